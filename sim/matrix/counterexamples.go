// Turning each failing cell's smallest seeds into its counterexample:
// rerunning and shrinking them, keeping the smallest, and writing its
// trace and replay command.

package matrix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/shrink"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces/shell"
)

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
	ce := Counterexample{Kind: j.kind, Seed: j.seed, Run: cfg.Command, Skip: []string{}, SeedSize: sizeOf(v.Result)}
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
	ce.Shrunk, ce.log, ce.Size, ce.Runs = true, small, sizeOf(res.Verdict.Result), res.Runs
	ce.Skip = append(ce.Skip, res.Config.Skip...)
	return ce, nil
}

// TraceName is the file name of a counterexample's trace.
func TraceName(r *Row, kind string) string {
	return fmt.Sprintf("%s-%s-%s-%s.ndjson", r.Link, r.Design, fileWord(r.Policy), kind)
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

// fileWord is a policy spec as a file name's part: bounded:attempts=6 is
// bounded-attempts-6.
func fileWord(spec string) string {
	return strings.NewReplacer(":", "-", "=", "-", "/", "-", " ", "").Replace(spec)
}
