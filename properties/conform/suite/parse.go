// Reading a case file. The header lines name the case; every other line is
// a directive in the style of cockroachdb/datadriven's: a command, then
// arguments as name or name=value, where a value with spaces is a quoted
// Go string (raw= values stay as written: they are JSON).

package suite

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// step is one directive of a case's script.
type step struct {
	line int
	cmd  string
	// pos are the bare words after the command (a connection, labels).
	pos  []string
	args map[string]string
	// flags are the arguments given without a value (replay, image).
	flags map[string]bool
}

func (s step) arg(name string) string { return s.args[name] }

// text is the step's words after its command, as a report quotes them.
func (s step) text() string {
	words := append([]string{}, s.pos...)
	names := make([]string, 0, len(s.args))
	for n := range s.args {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		words = append(words, n+"="+s.args[n])
	}
	return strings.Join(words, " ")
}

// directives lists every command with the arguments it takes; Parse
// refuses anything else, so a typo in a case file is caught by go test.
var directives = map[string]struct {
	pos   int // bare words: -1 any number
	args  []string
	flags []string
}{
	"connect":        {1, nil, nil},
	"cut":            {1, nil, nil},
	"kill":           {0, nil, nil},
	"new":            {1, []string{"as"}, nil},
	"fork":           {1, []string{"session", "as"}, nil},
	"resume":         {1, []string{"session", "as"}, []string{"replay"}},
	"list":           {1, []string{"as"}, nil},
	"close":          {1, []string{"session", "as"}, nil},
	"prompt":         {1, []string{"session", "text", "block", "key", "rawkey", "astral", "keylen", "as"}, []string{"image"}},
	"cancel-request": {1, []string{"request"}, nil},
	"session-cancel": {1, []string{"session"}, nil},
	"await":          {-1, nil, nil},
	"idle":           {1, nil, nil},
	"running":        {1, nil, nil},
	"settle":         {0, nil, nil},
	"needs":          {-1, []string{"after", "probe", "why"}, nil},
	"expect":         {-1, []string{"code", "of", "text", "count", "id", "in", "original", "until"}, nil},
}

// Parse reads one case file; name is its file name, for errors.
func Parse(name, text string) (*Case, error) {
	c := &Case{File: name}
	var quote []string
	labels := map[string]bool{}
	for i, raw := range strings.Split(text, "\n") {
		n := i + 1
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch word {
		case "id":
			c.ID = rest
			continue
		case "title":
			c.Title = rest
			continue
		case "source":
			c.Source = rest
			continue
		case "quote":
			quote = append(quote, rest)
			continue
		case "requires":
			r, err := parseRequirement(rest)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %v", name, n, err)
			}
			c.Requires = append(c.Requires, r)
			continue
		}
		s, err := parseDirective(n, line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
		if as := s.arg("as"); as != "" {
			if labels[as] {
				return nil, fmt.Errorf("%s:%d: label %s is already taken", name, n, as)
			}
			labels[as] = true
		}
		c.steps = append(c.steps, s)
	}
	c.Quote = strings.Join(quote, " ")
	switch {
	case c.ID == "" || c.Title == "" || c.Source == "" || c.Quote == "":
		return nil, fmt.Errorf("%s: a case needs id, title, source and quote lines", name)
	case len(c.steps) == 0:
		return nil, fmt.Errorf("%s: case %s has no script", name, c.ID)
	}
	return c, nil
}

func parseDirective(n int, line string) (step, error) {
	s := step{line: n, args: map[string]string{}, flags: map[string]bool{}}
	toks, err := tokens(line)
	if err != nil {
		return s, err
	}
	s.cmd = toks[0].name
	d, ok := directives[s.cmd]
	if !ok {
		return s, fmt.Errorf("unknown directive %q", s.cmd)
	}
	for _, t := range toks[1:] {
		switch {
		case !t.hasValue && isArg(d.flags, t.name):
			s.flags[t.name] = true
		case !t.hasValue && len(s.args) == 0 && len(s.flags) == 0:
			s.pos = append(s.pos, t.name)
		case !t.hasValue || !isArg(d.args, t.name):
			return s, fmt.Errorf("%s takes no argument %q (it takes %s)", s.cmd, t.name, strings.Join(append(d.args, d.flags...), ", "))
		default:
			s.args[t.name] = t.value
		}
	}
	if d.pos >= 0 && len(s.pos) != d.pos {
		return s, fmt.Errorf("%s takes %d word(s) before its arguments, got %d", s.cmd, d.pos, len(s.pos))
	}
	if (s.cmd == "needs" || s.cmd == "expect") && len(s.pos) == 0 {
		return s, fmt.Errorf("%s needs a rule name", s.cmd)
	}
	if s.cmd == "needs" || s.cmd == "expect" {
		if _, ok := rules[s.pos[0]]; !ok {
			return s, fmt.Errorf("unknown rule %q", s.pos[0])
		}
	}
	return s, nil
}

func isArg(args []string, name string) bool {
	for _, a := range args {
		if a == name {
			return true
		}
	}
	return false
}

type token struct {
	name, value string
	hasValue    bool
}

// tokens splits a directive line into words and name=value pairs. A value
// that starts with a double quote runs to the matching quote; it is
// unquoted as a Go string, except for raw values (rawkey), which are JSON
// and kept as written.
func tokens(line string) ([]token, error) {
	var out []token
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		end := strings.IndexAny(line, " =")
		if end < 0 {
			out = append(out, token{name: line})
			break
		}
		t := token{name: line[:end]}
		line = line[end:]
		if line[0] == ' ' {
			out = append(out, t)
			continue
		}
		line = line[1:]
		t.hasValue = true
		if strings.HasPrefix(line, `"`) {
			q := quotedEnd(line)
			if q < 0 {
				return nil, fmt.Errorf("unterminated quoted value of %s", t.name)
			}
			t.value = line[:q]
			if t.name != "rawkey" {
				v, err := strconv.Unquote(t.value)
				if err != nil {
					return nil, fmt.Errorf("value of %s: %v", t.name, err)
				}
				t.value = v
			}
			line = line[q:]
		} else {
			sp := strings.IndexByte(line, ' ')
			if sp < 0 {
				sp = len(line)
			}
			t.value, line = line[:sp], line[sp:]
		}
		out = append(out, t)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty directive")
	}
	return out, nil
}

// quotedEnd is the index just past the closing quote of the quoted string
// s starts with, or -1.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
