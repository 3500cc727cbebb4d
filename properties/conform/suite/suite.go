// Package suite is acpsim conform's conformance suite: the RFD's traces and
// its key rules as numbered cases, in the manner of the Autobahn|Testsuite
// and h2spec. Each case is a text file under testdata/ that quotes the
// sentence it checks, scripts the frames to send and the faults to apply
// (kill the Agent, cut a connection, open a new one), and says what must
// hold of the frames the Agent sends back.
//
// The package does no I/O. A runner (netfault/realmode/conformrun for a
// real process or endpoint, the model Agent in go test) drives an Exec: it
// asks Next for the next Action, performs it, and reports what the Agent
// sent with Received and Ended; Verdict then judges the case from those
// frames alone.
// Nothing is drawn at random, so a case runs the same way every time the
// Agent answers the same way.
package suite

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
	"sync"
)

//go:embed testdata/*.txt
var files embed.FS

// Case is one conformance case.
type Case struct {
	// ID names the case in reports, e.g. "rfd-3" or "key-5".
	ID string
	// Title says in one line what the case checks.
	Title string
	// Source is where the rule comes from: "RFD" (the prompt-idempotency
	// RFD) or "ACP v2 notes" (the v2 digest's traces).
	Source string
	// Quote is the sentence the case checks, verbatim from Source.
	Quote string
	// File is the case's file under testdata/.
	File string
	// Requires are the baseline cases it needs (its requires lines).
	Requires []Requirement
	steps    []step
}

var (
	loadOnce sync.Once
	loaded   []*Case
	loadErr  error
)

// Cases returns every case of the suite in id order (the RFD's traces
// first). The files are embedded; a file that does not parse is a defect of
// the suite, reported here.
func Cases() ([]*Case, error) {
	loadOnce.Do(func() { loaded, loadErr = load(files) })
	return loaded, loadErr
}

func load(fsys fs.FS) ([]*Case, error) {
	paths, err := fs.Glob(fsys, "testdata/*.txt")
	if err != nil {
		return nil, err
	}
	var out []*Case
	ids := map[string]string{}
	for _, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		c, err := Parse(strings.TrimPrefix(p, "testdata/"), string(b))
		if err != nil {
			return nil, err
		}
		if other, dup := ids[c.ID]; dup {
			return nil, fmt.Errorf("%s: case id %s is also the id of %s", c.File, c.ID, other)
		}
		ids[c.ID] = c.File
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return less(out[i].ID, out[j].ID) })
	return out, checkRequirements(out)
}

// groupOrder puts the RFD's traces first, then the key rules, the privacy
// rules and the rest, as the RFD lists them.
var groupOrder = []string{"rfd", "key", "private", "reuse", "cancel", "close", "error", "fork"}

// less orders ids by group, then by number.
func less(a, b string) bool {
	ba, bb := indexOf(baselineOrder, a), indexOf(baselineOrder, b)
	if ba != bb {
		return ba < bb
	}
	ga, na := splitID(a)
	gb, nb := splitID(b)
	ia, ib := indexOf(groupOrder, ga), indexOf(groupOrder, gb)
	if ia != ib {
		return ia < ib
	}
	if ga != gb {
		return ga < gb
	}
	return na < nb
}

func splitID(id string) (string, int) {
	i := strings.LastIndexByte(id, '-')
	n := 0
	if i < 0 {
		return id, 0
	}
	fmt.Sscan(id[i+1:], &n)
	return id[:i], n
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return len(list)
}

// Select keeps the cases whose id or title matches the regular expression
// pattern ("" keeps all).
func Select(cases []*Case, pattern string) ([]*Case, error) {
	if pattern == "" {
		return cases, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("--run %q: %v", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	var out []*Case
	for _, c := range cases {
		if re.MatchString(c.ID) || re.MatchString(c.Title) {
			out = append(out, c)
		}
	}
	return out, nil
}
