// Package matrix answers "which Client policy with which Agent design breaks
// which property, and what is the shortest run that shows it": it runs the
// same seeds for every retry policy against every Agent design that matters,
// over each link, and reports per row (link, policy, design) the fraction of
// seeds that showed each anomaly kind of properties.Kinds, with, for every
// failing cell, the smallest counterexample among its smallest failing seeds
// after shrinking them (package shrink) and the commands that reproduce it.
//
// # Designs
//
// Designs lists the rows, as data. The reference Agent appears with each knob
// setting that changes what a retry of these Clients meets: busy (reject,
// breakpoint; hold is the reference), held-on-disconnect=keep (remote links
// only), retain (keys forgotten by contract) and live-only (messages never
// replayed). Then the adapter, three nodes with store keys (the control) and
// three nodes with key bindings in memory (failover loses them). Left out,
// because no policy here can tell them from the reference: compare (only a
// key reused for another prompt meets it, which none of these Clients does),
// close-missing and auth (no retry path), and the adapter's runtime-dedupe
// (the adapter looks its derived ids up before submitting, so its runtime
// never sees a repeat; the numbers are the same seed for seed).
//
// # Determinism and cost
//
// Every seed is one whole simulation on one goroutine (parallel.ForEach,
// Config.Jobs of them side by side); results are added up as commutative
// counts, and the failing seeds a cell keeps for shrinking are its smallest
// under a total order (fewest faults, then prompts, then events, then the
// lowest seed), so the report is the same for every Jobs. Nothing of a passing seed is kept: a
// running seed's trace is dropped once it is judged, and memory is flat in
// the number of seeds. Shrinking reruns a cell's Config.Shrink smallest
// failing seeds, each shrunk for the cell's kind; the smallest result (in the
// same order) is the counterexample. Shrinking costs about as much whatever
// the number of seeds: at the defaults, some 330 shrinks of 100 to 1500 runs
// each, about as much CPU as 60,000 seeds.
package matrix

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/shrink"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// Config is what a matrix runs.
type Config struct {
	// Base holds the settings every cell shares (Clients, Sessions,
	// Prompts, Timeout, the base fault rates, …); each cell sets its Link
	// and Policy and applies its Design. Base's own Link, Policy, Seed,
	// Chooser, Skip and Command are ignored.
	Base world.Config
	// FaultRates are kind=rate overrides (as --fault-rates), applied to
	// each cell after its link's faults are switched on, as `acpsim run`
	// does.
	FaultRates string
	// Flags are the `acpsim run` flags that give Base (and FaultRates), for
	// rerun commands, e.g. "--prompts=4"; each cell adds --link, --policy
	// and its design's flags.
	Flags []string
	// Bin is how a rerun command starts ("acpsim" when empty), e.g.
	// "go run ./cmd/acpsim".
	Bin string

	Policies []string // default Policies()
	Designs  []Design // default Designs
	Links    []string // default Links

	FirstSeed uint64
	Seeds     int
	// Jobs is how many seeds run side by side (at least 1).
	Jobs int
	// Shrink is how many of a failing cell's failing seeds are shrunk: the
	// smallest runs (fewest faults, then prompts, then events, then the
	// lowest seed); the smallest result is the cell's counterexample. 0:
	// the smallest failing seed is, unshrunk.
	Shrink int
	// TraceDir, when set, receives each counterexample's trace,
	// LINK-DESIGN-POLICY-KIND.ndjson, for acpsim replay.
	TraceDir string
	// Progress, when set, is called from one goroutine after each seed
	// (phase "seeds") and each shrink (phase "shrink").
	Progress func(phase string, done, total int)
}

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
	// Failed counts the seeds with any anomaly; Inconclusive those that hit
	// their cap while still busy.
	Failed       int `json:"failed"`
	Inconclusive int `json:"inconclusive"`
	// Failing counts, per kind of Kinds (every kind, 0 included), the seeds
	// that showed it.
	Failing map[string]int `json:"failing"`
	// Counterexamples has one entry per kind with Failing > 0, in Kinds
	// order.
	Counterexamples []Counterexample `json:"counterexamples"`
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

// cell is a row being run.
type cell struct {
	cfg   world.Config
	flags []string
	row   *Row
	// first are, per kind index, the smallest failing seeds (by size, then
	// seed), at most max(Config.Shrink, 1), smallest first.
	first [][]candidate
}

// candidate is a failing seed and the size of its run.
type candidate struct {
	seed uint64
	size Size
}

func (a candidate) less(b candidate) bool {
	if a.size != b.size {
		return a.size.less(b.size)
	}
	return a.seed < b.seed
}

// Cell returns the configuration of one row and its `acpsim run` flags.
func (c *Config) Cell(link string, d Design, policy string) (world.Config, []string, error) {
	cfg := c.Base
	cfg.Rates = maps.Clone(c.Base.Rates)
	cfg.Seed, cfg.Chooser, cfg.Skip, cfg.Command = 0, nil, nil, ""
	cfg.Link, cfg.Policy = link, policy
	d.Apply(&cfg)
	cfg.EnableLinkFaults()
	rates, err := netfault.ParseRates(c.FaultRates, cfg.Rates)
	if err != nil {
		return cfg, nil, err
	}
	cfg.Rates = rates
	if err := cfg.Validate(); err != nil {
		return cfg, nil, fmt.Errorf("%s × %s over %s: %v", policy, d.Name, link, err)
	}
	flags := slices.Concat(c.Flags, []string{"--link=" + link, "--policy=" + policy}, d.Flags)
	slices.Sort(flags)
	return cfg, flags, nil
}

// command is the rerun command of a seed of a row.
func (c *Config) command(seed uint64, flags []string, skip []string) string {
	bin := c.Bin
	if bin == "" {
		bin = "acpsim"
	}
	parts := []string{bin, "run", fmt.Sprintf("--seed %d", seed)}
	parts = append(parts, flags...)
	if len(skip) > 0 {
		parts = append(parts, "--skip="+shell.Quote(strings.Join(skip, ",")))
	}
	return strings.Join(parts, " ")
}

func (c *Config) defaults() error {
	if c.Policies == nil {
		c.Policies = Policies()
	}
	if c.Designs == nil {
		c.Designs = Designs
	}
	if c.Links == nil {
		c.Links = Links
	}
	switch {
	case c.Seeds < 1:
		return fmt.Errorf("seeds %d: expected at least 1", c.Seeds)
	case c.Shrink < 0:
		return fmt.Errorf("shrink %d: expected 0 or more", c.Shrink)
	case len(c.Policies) == 0 || len(c.Designs) == 0 || len(c.Links) == 0:
		return errors.New("no policies, designs or links to run")
	}
	for _, p := range c.Policies {
		if _, err := client.LookupPolicy(p); err != nil {
			return err
		}
	}
	c.Jobs = max(c.Jobs, 1)
	return nil
}

// Run runs the matrix.
func Run(c Config) (*Report, error) {
	if err := c.defaults(); err != nil {
		return nil, err
	}
	rep := &Report{FirstSeed: c.FirstSeed, Seeds: c.Seeds, Clients: c.Base.Clients, Prompts: c.Base.Prompts,
		Kinds: properties.Kinds, Links: c.Links, Policies: c.Policies, Shrink: c.Shrink}
	for _, d := range c.Designs {
		dr := DesignReport{Name: d.Name, Why: d.Why, Flags: append([]string{}, d.Flags...), Links: []string{}}
		for _, l := range c.Links {
			if d.RunsOn(l) {
				dr.Links = append(dr.Links, l)
			}
		}
		rep.Designs = append(rep.Designs, dr)
	}
	var cells []*cell
	for _, link := range c.Links {
		for _, p := range c.Policies {
			for _, d := range c.Designs {
				if !d.RunsOn(link) {
					continue
				}
				cfg, flags, err := c.Cell(link, d, p)
				if err != nil {
					return nil, err
				}
				rep.Rows = append(rep.Rows, Row{Link: link, Policy: p, Design: d.Name, Flags: flags, Seeds: c.Seeds,
					Failing: map[string]int{}, Counterexamples: []Counterexample{}})
				cells = append(cells, &cell{cfg: cfg, flags: flags, first: make([][]candidate, len(properties.Kinds))})
			}
		}
	}
	if len(cells) == 0 {
		return nil, errors.New("no design runs on the links asked for")
	}
	for i := range cells {
		cells[i].row = &rep.Rows[i]
		for _, k := range properties.Kinds {
			cells[i].row.Failing[k] = 0
		}
	}
	if err := c.runSeeds(cells); err != nil {
		return nil, err
	}
	if err := c.shrinkCells(cells); err != nil {
		return nil, err
	}
	return rep, nil
}

// kindIndex maps an anomaly kind to its column.
var kindIndex = func() map[string]int {
	m := map[string]int{}
	for i, k := range properties.Kinds {
		m[k] = i
	}
	return m
}()

// seedResult is what a seed leaves behind: the kinds it showed, as a bit
// set over properties.Kinds.
type seedResult struct {
	kinds        uint64
	size         Size
	inconclusive bool
	err          error
}

func (c *Config) runSeeds(cells []*cell) error {
	n := len(cells) * c.Seeds
	keep := max(c.Shrink, 1)
	var mu sync.Mutex
	inflight := map[int]seedResult{} // at most Jobs entries: memory flat in seeds
	var firstErr error
	errAt := n
	done := 0
	parallel.ForEach(n, c.Jobs, func(i int) {
		cl := cells[i/c.Seeds]
		cfg := cl.cfg
		cfg.Seed = c.FirstSeed + uint64(i%c.Seeds)
		cfg.Command = c.command(cfg.Seed, cl.flags, nil)
		v, err := world.Judge(cfg)
		r := seedResult{err: err}
		if err == nil {
			r.inconclusive, r.size = v.Report.Inconclusive, sizeOf(v.Result.Log)
			for _, a := range v.Report.Anomalies {
				if j, ok := kindIndex[a.Kind]; ok {
					r.kinds |= 1 << j
				}
			}
		}
		mu.Lock()
		inflight[i] = r
		mu.Unlock()
	}, func(i int) {
		mu.Lock()
		r := inflight[i]
		delete(inflight, i)
		mu.Unlock()
		done++
		if c.Progress != nil {
			c.Progress("seeds", done, n)
		}
		if r.err != nil {
			if i < errAt {
				firstErr, errAt = r.err, i
			}
			return
		}
		cl := cells[i/c.Seeds]
		seed := c.FirstSeed + uint64(i%c.Seeds)
		if r.inconclusive {
			cl.row.Inconclusive++
		}
		if r.kinds == 0 {
			return
		}
		cl.row.Failed++
		for j, k := range properties.Kinds {
			if r.kinds&(1<<j) == 0 {
				continue
			}
			cl.row.Failing[k]++
			// Keep the smallest failing seeds (a total order: the same
			// whatever order the seeds finish in).
			cand := candidate{seed, r.size}
			at, _ := slices.BinarySearchFunc(cl.first[j], cand, func(a, b candidate) int {
				if a.less(b) {
					return -1
				}
				return 1
			})
			if at < keep {
				cl.first[j] = slices.Insert(cl.first[j], at, cand)
				if len(cl.first[j]) > keep {
					cl.first[j] = cl.first[j][:keep]
				}
			}
		}
	})
	if firstErr != nil {
		return fmt.Errorf("seed %d: %v", c.FirstSeed+uint64(errAt%c.Seeds), firstErr)
	}
	return nil
}

// shrinkJob is one failing seed of a cell to shrink for one kind.
type shrinkJob struct {
	cell *cell
	kind string
	slot int // index into the cell's Counterexamples
	seed uint64
}

func (c *Config) shrinkCells(cells []*cell) error {
	var jobs []shrinkJob
	for _, cl := range cells {
		for j, k := range properties.Kinds {
			if len(cl.first[j]) == 0 {
				continue
			}
			slot := len(cl.row.Counterexamples)
			tried := make([]uint64, 0, len(cl.first[j]))
			for _, cand := range cl.first[j] {
				tried = append(tried, cand.seed)
				jobs = append(jobs, shrinkJob{cell: cl, kind: k, slot: slot, seed: cand.seed})
			}
			cl.row.Counterexamples = append(cl.row.Counterexamples, Counterexample{Kind: k, Tried: tried, Skip: []string{}})
		}
	}
	var mu sync.Mutex
	inflight := map[int]Counterexample{}
	errs := make([]error, len(jobs))
	done := 0
	parallel.ForEach(len(jobs), c.Jobs, func(i int) {
		ce, err := c.shrinkOne(jobs[i])
		mu.Lock()
		inflight[i], errs[i] = ce, err
		mu.Unlock()
	}, func(i int) {
		mu.Lock()
		ce := inflight[i]
		delete(inflight, i)
		mu.Unlock()
		done++
		if c.Progress != nil {
			c.Progress("shrink", done, len(jobs))
		}
		if errs[i] != nil {
			return
		}
		slot := &jobs[i].cell.row.Counterexamples[jobs[i].slot]
		ce.Tried = slot.Tried
		// The smallest wins; ties go to the lowest seed, so the winner does
		// not depend on the order the shrinks finish in.
		if slot.Run == "" || ce.Size.less(slot.Size) || (ce.Size == slot.Size && ce.Seed < slot.Seed) {
			*slot = ce
		}
	})
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("%s × %s over %s, seed %d: %v", jobs[i].cell.row.Policy, jobs[i].cell.row.Design, jobs[i].cell.row.Link, jobs[i].seed, err)
		}
	}
	for _, cl := range cells {
		for i := range cl.row.Counterexamples {
			ce := &cl.row.Counterexamples[i]
			if c.TraceDir != "" && ce.log != nil {
				if err := c.writeTrace(cl.row, ce); err != nil {
					return err
				}
			}
			ce.log = nil
		}
	}
	return nil
}

// shrinkOne reruns a failing seed and, with Shrink > 0, shrinks it for the
// kind. A seed that does not shrink (its recorded faults do not bring the
// kind back) is its own counterexample, with a note.
func (c *Config) shrinkOne(j shrinkJob) (Counterexample, error) {
	cfg := j.cell.cfg
	cfg.Seed = j.seed
	cfg.Command = c.command(j.seed, j.cell.flags, nil)
	v, err := world.Judge(cfg)
	if err != nil {
		return Counterexample{}, err
	}
	ce := Counterexample{Kind: j.kind, Seed: j.seed, Run: cfg.Command, Skip: []string{}, SeedSize: sizeOf(v.Result.Log)}
	if !shrink.Shows(v.Report, j.kind) {
		return ce, fmt.Errorf("the rerun shows no %s: the seed is not deterministic", j.kind)
	}
	ce.Size, ce.log = ce.SeedSize, v.Result.Log
	if c.Shrink == 0 {
		return ce, nil
	}
	res, err := shrink.Shrink(cfg, sim.Recorded(v.Result.Log.Events), j.kind)
	if err != nil {
		ce.Note = err.Error()
		return ce, nil
	}
	small := res.Verdict.Result.Log
	small.Header.Command = c.command(j.seed, j.cell.flags, res.Config.Skip)
	ce.Shrunk, ce.log, ce.Size, ce.Runs = true, small, sizeOf(small), res.Runs
	ce.Skip = append(ce.Skip, res.Config.Skip...)
	return ce, nil
}

func sizeOf(l *traces.Log) Size {
	s := Size{Events: len(l.Events)}
	for _, e := range l.Events {
		switch e.Kind {
		case traces.KindChoose:
			s.Faults++
		case traces.KindSubmit:
			s.Prompts++
		}
	}
	return s
}

// TraceName is the file name of a counterexample's trace.
func TraceName(r *Row, kind string) string {
	return fmt.Sprintf("%s-%s-%s-%s.ndjson", r.Link, r.Design, r.Policy, kind)
}

func (c *Config) writeTrace(r *Row, ce *Counterexample) error {
	if err := os.MkdirAll(c.TraceDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(c.TraceDir, TraceName(r, ce.Kind))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := ce.log.WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	bin := c.Bin
	if bin == "" {
		bin = "acpsim"
	}
	ce.Trace, ce.Replay = path, bin+" replay "+shell.Quote(path)
	return nil
}
