// Running every row's seeds side by side and adding up their anomalies,
// keeping each cell's smallest failing seeds for shrinking.

package matrix

import (
	"fmt"
	"github.com/acpsim/acpsim/traces"
	"slices"
	"sync"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/world"
)

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
	// subs, prompts, unknown: the row's counts (Row.Submissions, …).
	subs, prompts, unknown int
	sessions, unused       int
}

func (c *Config) runSeeds(cells []*cell) error {
	n := len(cells) * c.Seeds
	keep := max(c.Shrink, 1)
	var mu sync.Mutex
	inflight := map[int]seedResult{} // at most Jobs entries: memory flat in seeds
	var firstErr error
	errAt := n
	done := 0
	var runners world.Runners
	parallel.ForEach(n, c.Jobs, func(i int) {
		cl := cells[i/c.Seeds]
		cfg := cl.cfg
		cfg.Seed = c.FirstSeed + uint64(i%c.Seeds)
		cfg.Command = c.command(cfg.Seed, cl.flags, nil)
		var r seedResult
		r.err = runners.JudgeOnly(cfg, func(v *world.Verdict) {
			r.size = sizeOf(v.Result)
			verdict, _ := v.Report.Verdict()
			r.inconclusive = v.Report.Inconclusive || verdict == properties.VerdictInconclusive
			r.subs, r.prompts = v.Report.Stats.Submissions, v.Report.Stats.Prompts
			r.sessions, r.unused = v.Report.Stats.Sessions, v.Report.Stats.UnusedSessions
			for _, sr := range v.Report.Submissions {
				if sr.Outcome == traces.OutcomeUnknown || sr.Outcome == traces.OutcomeAbandoned || sr.Outcome == "" {
					r.unknown++
				}
			}
			for _, a := range v.Report.Anomalies {
				if j, ok := kindIndex[a.Kind]; ok {
					r.kinds |= 1 << j
				}
			}
		})
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
		cl.row.Submissions += r.subs
		cl.row.PromptRequests += r.prompts
		cl.row.ToldUnknown += r.unknown
		cl.row.Sessions += r.sessions
		cl.row.UnusedSessions += r.unused
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

// sizeOf is a run's size from its counts, trace kept or not: a fault is
// a choose event, a prompt a submit event.
func sizeOf(r *world.Result) Size {
	s := Size{Events: r.Events, Prompts: r.Submits}
	for _, f := range r.Faults {
		s.Faults += f.Faults
	}
	return s
}
