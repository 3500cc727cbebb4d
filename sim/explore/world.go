// Schedules run as simulated worlds: World's RunFunc, the Digest a twin
// check compares, and Rerun for a counterexample's report and trace.

package explore

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"

	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
)

// World returns the RunFunc of cfg: each schedule is one whole world.Judge
// of cfg with the schedule's Chooser in place of the seeded fault stream
// (cfg.Seed still seeds the ids, keys and the users' scenario). Only a run
// whose digest the search wants keeps its trace.
func World(cfg world.Config) RunFunc {
	var runners world.Runners
	return func(ch *Forcing) (Outcome, error) {
		c := cfg
		c.Chooser = ch
		out := Pass
		judge := runners.JudgeOnly
		if ch.WantsDigest() {
			judge = runners.Judge
		}
		err := judge(c, func(v *world.Verdict) {
			if ch.WantsDigest() {
				ch.SetDigest(Digest(v.Result.Log))
			}
			switch {
			case !v.Report.OK():
				out = Fail
			case v.Report.Inconclusive:
				out = Inconclusive
			}
		})
		if err != nil {
			return Pass, err
		}
		return out, nil
	}
}

// Digest is a run's observable history for Config.Twin: every event of its
// trace but the choose events (the forced choices themselves) and the note
// of a kill (which names the step the process died before), without
// sequence numbers (choose events take some). The simulator's actors are
// state machines fed only by what the trace records (frames delivered,
// timers, kills with their losses, restarts), in virtual time, so two runs
// with the same digest were in the same state at every instant.
func Digest(log *traces.Log) []byte {
	h := sha256.New()
	var num [8]byte
	for i := range log.Events {
		e := &log.Events[i]
		if e.Kind == traces.KindChoose {
			continue
		}
		note := e.Note
		if e.Kind == traces.KindKill {
			note = ""
		}
		binary.LittleEndian.PutUint64(num[:], uint64(e.T))
		h.Write(num[:])
		for _, f := range []string{e.Kind, e.Link, e.From, e.To, e.Dir, e.Frame, e.Client, e.Sub, e.Text,
			e.Outcome, e.Session, e.MessageID, e.Decision, e.Site, strconv.Itoa(e.Option), strconv.FormatBool(e.LostUnsynced), note} {
			h.Write([]byte(f))
			h.Write([]byte{0})
		}
	}
	return h.Sum(nil)
}

// Rerun runs schedule s of cfg once more and returns its verdict, for the
// counterexample's report and trace. It fails if the run does not ask the
// decisions s forces, or if it passes where the search saw it fail.
func Rerun(cfg world.Config, s Schedule) (*world.Verdict, error) {
	ch := &Forcing{forced: s}
	cfg.Chooser = ch
	v, err := world.Judge(cfg)
	if err != nil {
		return nil, err
	}
	if err := ch.Err(); err != nil {
		return nil, err
	}
	if v.Report.OK() {
		return nil, fmt.Errorf("not deterministic: schedule %s passed when run again", s)
	}
	return v, nil
}
