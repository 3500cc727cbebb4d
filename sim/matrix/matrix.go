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
	"slices"
	"strings"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/world"
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
	// "acpsim-dev" for a binary built under that name.
	Bin string

	Policies []string // default Policies()
	Designs  []Design // default Designs
	Links    []string // default Links
	// Pairs, when set, are the rows instead of Policies × Designs: each a
	// policy with a design, on every link the design runs on.
	Pairs []Pair

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

// Cell returns the configuration of one row and its `acpsim run` flags;
// policy is a policy spec (design.ParsePolicy: a name, or one with
// parameters).
func (c *Config) Cell(link string, d Design, policy string) (world.Config, []string, error) {
	cfg := c.Base
	cfg.Rates = maps.Clone(c.Base.Rates)
	cfg.Seed, cfg.Chooser, cfg.Skip, cfg.Command = 0, nil, nil, ""
	cfg.Link = link
	pol, err := design.ParsePolicy(policy)
	if err != nil {
		return cfg, nil, err
	}
	if err := pol.Apply(&cfg); err != nil {
		return cfg, nil, err
	}
	if err := d.Apply(&cfg); err != nil {
		return cfg, nil, fmt.Errorf("design %s: %v", d.Name, err)
	}
	cfg.EnableLinkFaults()
	rates, err := netfault.ParseRates(c.FaultRates, cfg.Rates)
	if err != nil {
		return cfg, nil, err
	}
	cfg.Rates = rates
	if err := cfg.Validate(); err != nil {
		return cfg, nil, fmt.Errorf("%s × %s over %s: %w", policy, d.Name, link, err)
	}
	flags := slices.Concat(withoutPolicyParams(c.Flags, pol), []string{"--link=" + link}, pol.Flags(), d.Flags())
	slices.Sort(flags)
	return cfg, flags, nil
}

// rows are the rows of one link's table: Pairs, or every policy with every
// design.
func (c *Config) rows() []Pair {
	if c.Pairs != nil {
		return c.Pairs
	}
	var out []Pair
	for _, p := range c.Policies {
		for _, d := range c.Designs {
			out = append(out, Pair{Policy: p, Design: d})
		}
	}
	return out
}

// withoutPolicyParams leaves out of the base flags those a policy's own
// parameters give (a row's --timeout from timeout=…, not the base's).
func withoutPolicyParams(flags []string, pol design.Policy) []string {
	var out []string
	params := pol.Flags()[1:]
	for _, f := range flags {
		own := false
		for _, p := range params {
			name, _, _ := strings.Cut(p, "=")
			own = own || strings.HasPrefix(f, name+"=")
		}
		if !own {
			out = append(out, f)
		}
	}
	return out
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
	if c.Pairs != nil { // the report lists the pairs' policies and designs
		c.Policies, c.Designs = nil, nil
		for _, p := range c.Pairs {
			if !slices.Contains(c.Policies, p.Policy) {
				c.Policies = append(c.Policies, p.Policy)
			}
			if _, ok := design.Lookup(p.Design.Name, c.Designs); !ok {
				c.Designs = append(c.Designs, p.Design)
			}
		}
	}
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
		if _, err := design.ParsePolicy(p); err != nil {
			return err
		}
	}
	for _, p := range c.Pairs {
		if _, err := design.ParsePolicy(p.Policy); err != nil {
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
		dr := DesignReport{Name: d.Name, Why: d.Why, Flags: append([]string{}, d.Flags()...), Links: []string{}}
		for _, l := range c.Links {
			if d.RunsOn(l) {
				dr.Links = append(dr.Links, l)
			}
		}
		rep.Designs = append(rep.Designs, dr)
	}
	var cells []*cell
	for _, link := range c.Links {
		for _, p := range c.rows() {
			if !p.Design.RunsOn(link) {
				continue
			}
			cfg, flags, err := c.Cell(link, p.Design, p.Policy)
			if errors.Is(err, world.ErrNoKeyInV1) && c.Pairs == nil {
				// A product matrix crosses every policy with every
				// design: a keyed policy has nothing to say to a v1 Agent.
				if note := fmt.Sprintf("%s × %s: not run (ACP v1 has no idempotencyKey)", p.Policy, p.Design.Name); !slices.Contains(rep.NotRun, note) {
					rep.NotRun = append(rep.NotRun, note)
				}
				continue
			}
			if err != nil {
				return nil, err
			}
			rep.Rows = append(rep.Rows, Row{Link: link, Policy: p.Policy, Design: p.Design.Name, Flags: flags, Seeds: c.Seeds, Alternative: p.Label,
				Failing: map[string]int{}, Counterexamples: []Counterexample{}})
			cells = append(cells, &cell{cfg: cfg, flags: flags, first: make([][]candidate, len(properties.Kinds))})
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
