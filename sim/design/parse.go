package design

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/sim/world"
)

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Parse reads one design: a name of known or of Builtin ("busy-reject"), or
// NAME=KEY:VALUE,… ("mine=busy:reject,keys:memory"; KEY=VALUE reads the
// same). Every value is checked as the run flag of its key checks it.
func Parse(spec string, known []Design) (Design, error) {
	spec = strings.TrimSpace(spec)
	name, settings, ok := strings.Cut(spec, "=")
	name = strings.TrimSpace(name)
	if !ok {
		if d, found := Lookup(name, known); found {
			return d, nil
		}
		if d, found := Lookup(name, Builtin); found {
			return d, nil
		}
		return Design{}, fmt.Errorf("design %q: not one of %s; make one as NAME=SETTING:VALUE,…, e.g. mine=busy:reject,keys:memory (acpsim knobs lists the settings)",
			name, strings.Join(Names(append(slices.Clip(Builtin), known...)), ", "))
	}
	if !nameRE.MatchString(name) {
		return Design{}, fmt.Errorf("design %q: its name must be a word of a-z, 0-9 and - (it names trace files)", name)
	}
	if _, builtin := Lookup(name, Builtin); builtin {
		return Design{}, fmt.Errorf("design %q: that name is a built-in design's; give yours another", name)
	}
	d := Design{Name: name}
	for _, part := range strings.Split(settings, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		key, value, ok := strings.Cut(part, ":")
		if k2, v2, ok2 := strings.Cut(part, "="); ok2 && (!ok || len(k2) < len(key)) {
			key, value, ok = k2, v2, true
		}
		if !ok {
			return Design{}, fmt.Errorf("design %s: setting %q: expected KEY:VALUE, e.g. busy:reject", name, part)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		if key == "links" {
			links, err := parseLinks(value)
			if err != nil {
				return Design{}, fmt.Errorf("design %s: links:%s: %v", name, value, err)
			}
			d.Links = links
		}
		d.Settings = append(d.Settings, Setting{key, value})
	}
	if len(d.Settings) == 0 {
		return Design{}, fmt.Errorf("design %s: no settings after =; e.g. %s=busy:reject (a design equal to the reference is the reference)", name, name)
	}
	cfg := world.DefaultConfig()
	if err := d.Apply(&cfg); err != nil {
		return Design{}, fmt.Errorf("design %s: %v", name, err)
	}
	if cfg.Nodes > 1 {
		if d.Links == nil {
			d.Links = Remote // nodes sit behind a remote endpoint
		} else if slices.Contains(d.Links, world.LinkStdio) {
			return Design{}, fmt.Errorf("design %s: nodes:%d needs remote links (http, ws), not stdio", name, cfg.Nodes)
		}
	}
	d.Why = "yours: " + strings.ReplaceAll(settings, ",", ", ")
	return d, nil
}

func parseLinks(v string) ([]string, error) {
	var out []string
	for _, l := range strings.Split(v, "+") {
		l = strings.TrimSpace(l)
		if !slices.Contains(world.Links, l) {
			return nil, fmt.Errorf("link %q: expected links joined by +, of %s", l, strings.Join(world.Links, ", "))
		}
		out = append(out, l)
	}
	return out, nil
}

// ReadFile reads a design file: one design per line, NAME = KEY:VALUE, …,
// with what follows a # a comment (on a design's line, its why); blank
// lines and comment lines are skipped. Errors name the file and line.
func ReadFile(path string) ([]Design, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Design
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line, why, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		where := path + ":" + strconv.Itoa(n)
		if !strings.Contains(line, "=") {
			return nil, fmt.Errorf("%s: %q: expected NAME = KEY:VALUE, …, e.g. mine = busy:reject, keys:memory", where, line)
		}
		d, err := Parse(line, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
		if _, dup := Lookup(d.Name, out); dup {
			return nil, fmt.Errorf("%s: design %s is already in the file", where, d.Name)
		}
		if why = strings.TrimSpace(why); why != "" {
			d.Why = why
		}
		out = append(out, d)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no design in it; write one per line, NAME = KEY:VALUE, …", path)
	}
	return out, nil
}
