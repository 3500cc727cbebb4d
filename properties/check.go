package properties

import (
	"sort"
	"strings"

	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// Check and the streaming Checker. Each event is read once, as it comes,
// into the ledger's pointer-free tables (ledger.go): the checker keeps
// rows per submission, request, response, session and link, and of the
// frames only those in flight (to pair a delivery with its send). Finish
// then runs every judgement over those tables, in finish.go's order, and
// builds the report.

// Check judges a trace. It reads only frames, submissions, outcomes and link
// and process events: events whose Kind is in traces.Bookkeeping are skipped,
// so stripping them never changes the report. Events are taken in Seq order
// (sorted first when they are not). It is a Checker fed the whole slice.
func Check(h traces.Header, events []traces.Event) *Report {
	evs := inSeqOrder(events)
	c := NewBorrowingChecker(h, len(evs))
	c.own.reserve(len(evs)) // not for a run's checker, whose ids its register holds
	for i := range evs {
		c.Add(&evs[i])
	}
	return c.Finish()
}

// Checker judges a trace one event at a time, as Check does, without holding
// the trace: its memory grows with the submissions, sessions, requests and
// links the trace names, not with its frames, so a trace can be judged as it
// is read (traces.Decoder) or written. Explanations still cite event numbers.
type Checker struct {
	lg *ledger
	// own is the checker's own interner, when it interns its events (Add).
	own      *Interner
	finished bool
}

// NewChecker starts judging a trace with header h.
func NewChecker(h traces.Header) *Checker { return NewCheckerSized(h, 0) }

// NewCheckerSized is NewChecker for a trace of about events events: its
// tables are made that size at the start instead of grown from empty, as
// a trace is read (a table grown copies all its rows each time; on the
// bench history that was about 6% of judging it). Estimate low
// (traces.EstimateEvents): a table too small still grows, while one too
// large holds memory it never fills. 0 is NewChecker.
func NewCheckerSized(h traces.Header, events int) *Checker {
	in := NewInterner(false)
	return &Checker{lg: newLedger(h, in, max(events, 0)), own: in}
}

// NewBorrowingChecker is NewChecker for a caller whose events' strings may
// stay in memory as long as the checker: what it keeps of them (keys, ids,
// texts, names) are those strings or substrings of them, not copies, which
// spares an allocation each but holds the frames they came from until the
// checker is dropped. Check borrows from the trace it is handed, and the
// simulator from the run it is making (the frames die with the run). events
// is how many events the trace is expected to hold (0: unknown), to size
// the checker's tables.
func NewBorrowingChecker(h traces.Header, events int) *Checker {
	in := NewInterner(true)
	return &Checker{lg: newLedger(h, in, events), own: in}
}

// NewStepChecker is a checker of the steps in made, borrowing as in does
// (NewInterner), for a caller that interns the events itself: AddStep, not
// Add. events is as for NewBorrowingChecker.
func NewStepChecker(h traces.Header, in *Interner, events int) *Checker {
	return &Checker{lg: newLedger(h, in, events)}
}

// UseNames makes the run's register of minted ids and texts the source of
// the handles the checker gives ids and texts (Interner.UseNames): the
// simulator's checker, whose actors mint every id and user's text there.
// Call it before the first Add.
func (c *Checker) UseNames(n *sim.Names) {
	if c.own == nil {
		panic("properties: Checker.UseNames on a NewStepChecker (its Interner's UseNames)")
	}
	c.own.UseNames(n)
}

// Add hands the checker the next event, in Seq order. Add does not retain e,
// so the caller may reuse it for the next event; of its strings it keeps
// copies of the few a verdict needs, and a sent frame itself while it is in
// flight (to pair its delivery by its bytes), until it is delivered, dropped
// or its link ends.
func (c *Checker) Add(e *traces.Event) {
	if c.finished {
		panic("properties: Checker.Add after Finish")
	}
	if c.own == nil {
		panic("properties: Checker.Add on a NewStepChecker (AddStep takes its steps)")
	}
	st := c.own.Step(e)
	c.add(&st)
}

// AddStep hands a checker made by NewStepChecker the next step, in Seq
// order, made by the Interner it was given. Like Add, it retains neither st
// nor its Event.
func (c *Checker) AddStep(st *Step) {
	if c.finished {
		panic("properties: Checker.AddStep after Finish")
	}
	if c.own != nil {
		panic("properties: Checker.AddStep on a checker that interns its events itself (NewChecker, NewBorrowingChecker: Add)")
	}
	if !st.made {
		panic("properties: Checker.AddStep of a Step not made by Interner.Step")
	}
	c.add(st)
}

func (c *Checker) add(st *Step) { c.lg.add(st) }

// Finish judges the events added and returns the report. It may be called
// once; Add must not follow.
func (c *Checker) Finish() *Report {
	if c.finished {
		panic("properties: Checker.Finish called twice")
	}
	c.finished = true
	rep := c.lg.finishReport()
	c.lg, c.own = nil, nil
	return rep
}

// inSeqOrder returns the events sorted by Seq, copying only when they are not.
func inSeqOrder(evs []traces.Event) []traces.Event {
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq < evs[i-1].Seq {
			out := append([]traces.Event(nil), evs...)
			sort.SliceStable(out, func(a, b int) bool { return out[a].Seq < out[b].Seq })
			return out
		}
	}
	return evs
}

// linkEnds are the Client and Agent ends a link's name spells ("c1>a1#2"),
// as a trace without connect events names them; ok false for a name of
// another shape.
func linkEnds(name string) (client, agent string, ok bool) {
	return strings.Cut(name, ">")
}

// byIndex is the entry of index i in *table, the table grown to hold it.
func byIndex[T any](table *[]T, i int32) *T {
	if n := int(i) + 1; n > len(*table) {
		*table = append(*table, make([]T, n-len(*table))...)
	}
	return &(*table)[i]
}
