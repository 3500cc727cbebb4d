// A matrix's result: the Report, its rows and designs, the Size of a run
// and each failing cell's Counterexample (field names as in --format json).

package matrix

import "github.com/acpsim/acpsim/traces"

// Report is a matrix's result. Its JSON field names are documented on each
// field and are the --format json output.
type Report struct {
	FirstSeed uint64 `json:"firstSeed"`
	Seeds     int    `json:"seeds"` // seeds per row
	Clients   int    `json:"clients"`
	Prompts   int    `json:"prompts"` // per Client
	// Kinds are the anomaly kinds, the table's columns in order.
	Kinds    []string       `json:"kinds"`
	Links    []string       `json:"links"`
	Policies []string       `json:"policies"`
	Designs  []DesignReport `json:"designs"`
	// Shrink is how many failing seeds per cell were shrunk (0: none).
	Shrink int `json:"shrink"`
	// NotRun are the policy × design cells the product left out, each
	// with why (a keyed policy against a v1 Agent).
	NotRun []string `json:"notRun,omitempty"`
	// Rows are in table order: by link, then policy, then design.
	Rows []Row `json:"rows"`
}

// DesignReport describes a design in a report.
type DesignReport struct {
	Name  string   `json:"name"`
	Why   string   `json:"why"`
	Flags []string `json:"flags"`
	Links []string `json:"links"` // the links it ran on
}

// Row is one policy against one design over one link.
type Row struct {
	Link   string `json:"link"`
	Policy string `json:"policy"`
	Design string `json:"design"`
	// Flags are the `acpsim run` flags of the row (with --seed N, a rerun).
	Flags []string `json:"flags"`
	Seeds int      `json:"seeds"`
	// Failed counts the seeds with any anomaly; Inconclusive those with
	// none that are still no pass: they hit their cap while still busy, or
	// never silently lost was judged for none of their submissions.
	Failed       int `json:"failed"`
	Inconclusive int `json:"inconclusive"`
	// Failing counts, per kind of Kinds (every kind, 0 included), the seeds
	// that showed it.
	Failing map[string]int `json:"failing"`
	// Counterexamples has one entry per kind with Failing > 0, in Kinds
	// order.
	Counterexamples []Counterexample `json:"counterexamples"`
	// Alternative names the RFD alternative the row measures (matrix
	// --alternatives; "" otherwise).
	Alternative string `json:"alternative,omitempty"`
	// Over all its seeds: the submissions, the prompt requests sent for
	// them, and the submissions whose user was told the outcome is unknown
	// (or told nothing).
	Submissions    int `json:"submissions"`
	PromptRequests int `json:"promptRequests"`
	ToldUnknown    int `json:"toldUnknown"`
	// Sessions the Agent made for the Clients' session/new, and those no
	// Client used: made for an attempt whose answer was lost.
	Sessions       int `json:"sessions"`
	UnusedSessions int `json:"unusedSessions"`
}

// Size is how big a run is.
type Size struct {
	Faults  int `json:"faults"`  // recorded non-zero fault choices
	Prompts int `json:"prompts"` // submissions
	Events  int `json:"events"`  // trace events
}

func (s Size) less(o Size) bool {
	if s.Faults != o.Faults {
		return s.Faults < o.Faults
	}
	if s.Prompts != o.Prompts {
		return s.Prompts < o.Prompts
	}
	return s.Events < o.Events
}

// Counterexample is the smallest run found that shows a cell's kind.
type Counterexample struct {
	Kind string `json:"kind"`
	Seed uint64 `json:"seed"`
	// Run reruns the whole failing seed: `acpsim run --seed N …`.
	Run string `json:"run"`
	// SeedSize is the seed's run; Size the counterexample (after
	// shrinking, when Shrunk).
	SeedSize Size `json:"seedSize"`
	Size     Size `json:"size"`
	Shrunk   bool `json:"shrunk"`
	// Skip are the users' events shrinking left out (run's --skip).
	Skip []string `json:"skip"`
	// Tried are the failing seeds shrunk to find it: the cell's smallest
	// (fewest faults, then prompts, then events, then the lowest seed).
	Tried []uint64 `json:"tried"`
	// Runs is how many runs shrinking it took.
	Runs int `json:"runs"`
	// Note says why a seed could not be shrunk ("" when it was).
	Note string `json:"note,omitempty"`
	// Trace is the counterexample's trace file (with Config.TraceDir) and
	// Replay the command that replays it: `acpsim replay FILE`.
	Trace  string `json:"trace,omitempty"`
	Replay string `json:"replay,omitempty"`

	log *traces.Log
}
