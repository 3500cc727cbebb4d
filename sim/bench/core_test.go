package bench

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// BenchmarkCheckCore measures how fast the two properties the mission names
// could be judged if the checker were rebuilt on integer handles (issue 33's
// "compact records"): at most once and never silently lost (duplicate, lost,
// phantom, unresolved, wrong-id, as TestCheckCoreJudges holds them to
// properties.Check on the bench histories), and nothing else — no cancels,
// sessions, set-up, leaks, rework, versions or replies, keys only as far as
// a key answered with two messageIds, no explanations, no report. Every id an event names is a small
// integer made outside the timed loop, as a simulator interning them per run
// would hand them over, and every record is a fixed-size struct without
// pointers in a slice. It is a measurement of a design, not a checker:
// properties.Check is what acpsim runs. Its rate against
// BenchmarkCheckFloor's "handles" and BenchmarkCheckMillion's is how much of
// the 1,000,000-a-second budget the core of a rebuilt checker would take
// before any other rule is judged (README "Speed"). "million+form" makes
// the compact form inside the clock, by string lookups: that, not the
// judging, is most of its cost, and whoever makes the form pays it.
func BenchmarkCheckCore(b *testing.B) {
	// BenchmarkPorcupine's histories, each with its planted duplicate.
	for _, n := range []int{100, 1000} {
		cfg := Defaults(n)
		cfg.Duplicates = 1
		evs := coreEvents(Generate(cfg).Events)
		b.Run(fmt.Sprintf("subs=%d", n), func(b *testing.B) {
			cpu0 := CPUTime()
			for b.Loop() {
				if f := judgeCore(evs); f != (coreFindings{duplicate: 1, wrongID: 1}) {
					b.Fatalf("want the planted duplicate alone (and its key's two messageIds), found %v", f)
				}
			}
			b.ReportMetric((CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/check")
		})
	}
	b.Run("million", func(b *testing.B) {
		h := millionHistory()
		evs := coreEvents(h.Events)
		runtime.GC()
		b.ReportAllocs()
		cpu0 := CPUTime()
		for b.Loop() {
			if f := judgeCore(evs); f != (coreFindings{}) {
				b.Fatalf("the history is not healthy: %v", f)
			}
		}
		reportFloor(b, cpu0, len(h.Texts))
	})
	// The compact form made inside the clock: coreEvents looks up every id
	// by its string, as an interner does; made where the ids are minted it
	// would cost what an actor spends keeping a handle beside each id.
	b.Run("million+form", func(b *testing.B) {
		h := millionHistory()
		runtime.GC()
		b.ReportAllocs()
		cpu0 := CPUTime()
		for b.Loop() {
			if f := judgeCore(coreEvents(h.Events)); f != (coreFindings{}) {
				b.Fatalf("the history is not healthy: %v", f)
			}
		}
		reportFloor(b, cpu0, len(h.Texts))
	})
}

// TestCheckCoreJudges holds the core to what properties.Check says of the
// same histories, kind by kind: nothing on a healthy one, each planted
// duplicate, every submission unresolved when no outcome is told, a
// phantom for each inserted one told failed, a loss for each told inserted
// whose message the final transcript lacks.
func TestCheckCoreJudges(t *testing.T) {
	type variant struct {
		name    string
		planted int
		change  func(h *History) []traces.Event
	}
	same := func(h *History) []traces.Event { return h.Events }
	for _, v := range []variant{
		{"healthy", 0, same},
		{"one duplicate", 1, same},
		{"three duplicates", 3, same},
		{"no outcome told", 0, func(h *History) []traces.Event {
			return slices.DeleteFunc(slices.Clone(h.Events), func(e traces.Event) bool { return e.Kind == traces.KindOutcome })
		}},
		{"five told failed", 0, func(h *History) []traces.Event { return toldOtherwise(h, 5, traces.OutcomeFailed) }},
		{"four lost from the transcript", 0, func(h *History) []traces.Event { return unread(h, 4) }},
	} {
		cfg := Defaults(2000)
		cfg.Duplicates = v.planted
		h := Generate(cfg)
		evs := v.change(h)
		got := judgeCore(coreEvents(evs))
		r := properties.Check(h.Header, evs)
		want := coreFindings{}
		for _, a := range r.Anomalies {
			switch a.Kind {
			case properties.Duplicate:
				want.duplicate++
			case properties.Lost:
				want.lost++
			case properties.Phantom:
				want.phantom++
			case properties.Unresolved:
				want.unresolved++
			case properties.WrongID:
				want.wrongID++
			}
		}
		if got != want || got == (coreFindings{}) != (v.name == "healthy") {
			t.Errorf("%s: the core found %v, properties.Check %v", v.name, got, want)
		}
	}
}

// toldOtherwise is h's events with the first n outcomes told inserted told
// as outcome instead.
func toldOtherwise(h *History, n int, outcome string) []traces.Event {
	evs := slices.Clone(h.Events)
	for i := range evs {
		if n > 0 && evs[i].Kind == traces.KindOutcome && evs[i].Outcome == traces.OutcomeInserted {
			evs[i].Outcome, evs[i].MessageID = outcome, ""
			n--
		}
	}
	return evs
}

// unread is h's events without the observer's reading of the first n
// messages told inserted: sent and delivered, their replays are gone.
func unread(h *History, n int) []traces.Event {
	gone := map[string]bool{}
	for _, e := range h.Events {
		if len(gone) < n && e.Kind == traces.KindOutcome && e.Outcome == traces.OutcomeInserted {
			gone[e.MessageID] = true
		}
	}
	observer := map[string]bool{}
	frames := map[string]bool{}
	return slices.DeleteFunc(slices.Clone(h.Events), func(e traces.Event) bool {
		switch e.Kind {
		case traces.KindConnect:
			observer[e.Link] = e.From == traces.Observer
		case traces.KindSend:
			if d := e.Digest; observer[e.Link] && d.Describes(e.Frame) && gone[d.MessageID()] {
				frames[e.Frame] = true
			}
		}
		return frames[e.Frame] && (e.Kind == traces.KindSend || e.Kind == traces.KindDeliver)
	})
}

// coreKind is what an event is to the core.
type coreKind uint8

const (
	coreSkip          coreKind = iota
	corePrompt                 // a Client sent a session/prompt
	corePromptArrived          // it reached the Agent
	coreAnswer                 // the Agent answered a prompt (ok: with success)
	coreAnswerArrived          // the answer reached the Client
	coreTranscript             // the observer read a user message of a final transcript
	coreOutcome                // the Client told the user
)

// coreOutcome8 is a Result in a byte.
type coreOutcome8 uint8

// coreOutcomeOf is an outcome event's Result ("inserted" and anything else
// not failed or unknown: Inserted).
func coreOutcomeOf(outcome string) coreOutcome8 {
	switch outcome {
	case traces.OutcomeFailed:
		return coreOutcome8(Failed)
	case traces.OutcomeUnknown:
		return coreOutcome8(Unknown)
	}
	return coreOutcome8(Inserted)
}

// coreEvent is an event as handles: 16 bytes, no pointers.
type coreEvent struct {
	kind    coreKind
	ok      bool
	outcome coreOutcome8
	sub     int32 // the submission (a transcript message's, by its text)
	req     int32 // a prompt's request, or the one an answer answers
	msg     int32 // the messageId an answer, outcome or transcript message names (-1: none)
}

type coreHistory struct {
	ev               []coreEvent
	subs, reqs, msgs int
}

// coreEvents interns every id the events name, outside the timed loop.
func coreEvents(evs []traces.Event) *coreHistory {
	subs, texts, msgs := map[string]int32{}, map[string]int32{}, map[string]int32{}
	type linkID struct {
		link string
		id   acp.ID
	}
	reqs := map[linkID]int32{}
	observer := map[string]bool{}
	sent := map[*byte]coreEvent{} // a frame's send, for its arrival
	h := &coreHistory{ev: make([]coreEvent, len(evs))}
	msgOf := func(id string) int32 {
		if id == "" {
			return -1
		}
		return intern(msgs, id)
	}
	for i := range evs {
		e, c := &evs[i], &h.ev[i]
		*c = coreEvent{sub: -1, req: -1, msg: -1}
		switch e.Kind {
		case traces.KindSubmit:
			texts[e.Text] = intern(subs, e.Sub)
		case traces.KindConnect:
			observer[e.Link] = e.From == traces.Observer
		case traces.KindOutcome:
			c.kind, c.sub, c.msg, c.outcome = coreOutcome, intern(subs, e.Sub), msgOf(e.MessageID), coreOutcomeOf(e.Outcome)
		case traces.KindDeliver:
			if s, ok := sent[unsafe.StringData(e.Frame)]; ok {
				c.req, c.kind = s.req, corePromptArrived
				if s.kind == coreAnswer {
					c.kind = coreAnswerArrived
				}
			}
		case traces.KindSend:
			d := e.Digest
			if !d.Describes(e.Frame) {
				continue
			}
			k := linkID{e.Link, d.ID}
			switch {
			case d.Kind() == acp.KindRequest && d.Method == acp.MethodSessionPrompt:
				r := int32(len(reqs))
				reqs[k] = r
				c.kind, c.sub, c.req = corePrompt, intern(subs, e.Sub), r
			case d.Kind() == acp.KindResponse:
				if r, ok := reqs[k]; ok {
					c.kind, c.req, c.ok = coreAnswer, r, !d.HasErr()
					if c.ok {
						c.msg = msgOf(d.MessageID())
					}
				}
			case d.Method == acp.MethodSessionUpdate && d.Update() == acp.UpdateUserMessage && observer[e.Link]:
				if s, ok := texts[d.Text()]; ok {
					c.kind, c.sub, c.msg = coreTranscript, s, msgOf(d.MessageID())
				}
			}
			if c.kind == corePrompt || c.kind == coreAnswer {
				sent[unsafe.StringData(e.Frame)] = *c
			}
		}
	}
	h.subs, h.reqs, h.msgs = len(subs), len(reqs), len(msgs)
	return h
}

// coreFindings counts what the core found, by kind.
type coreFindings struct {
	duplicate, lost, phantom, unresolved, wrongID, shared int
}

type coreSub struct {
	attempts, arrived, copies int32
	outMsg                    int32
	answered1                 int32 // the first message a success answer named to it, +1 (0: none)
	twoIDs                    bool  // success answers named it two messages (its key's, every bench Client keys)
	told, answered            bool
	outcome                   Result
}

// judgeCore judges at most once and never silently lost, as properties
// does, on handles: a message's owner is the submission whose request a
// success answer first named it to; a transcript message is its text's.
func judgeCore(h *coreHistory) coreFindings {
	subs := make([]coreSub, h.subs)
	reqSub := make([]int32, h.reqs)
	owner := make([]int32, h.msgs)
	for i := range owner {
		owner[i] = -1
	}
	var f coreFindings
	for i := range h.ev {
		e := &h.ev[i]
		switch e.kind {
		case corePrompt:
			reqSub[e.req] = e.sub
			subs[e.sub].attempts++
		case corePromptArrived:
			subs[reqSub[e.req]].arrived++
		case coreAnswer:
			if e.ok && e.msg >= 0 {
				s := reqSub[e.req]
				switch a := &subs[s]; {
				case a.answered1 == 0:
					a.answered1 = e.msg + 1
				case a.answered1 != e.msg+1:
					a.twoIDs = true
				}
				switch o := owner[e.msg]; {
				case o < 0:
					owner[e.msg] = s
				case o != s:
					f.shared++ // one message named to two submissions
				}
			}
		case coreAnswerArrived:
			subs[reqSub[e.req]].answered = true
		case coreTranscript:
			subs[e.sub].copies++
			if e.msg >= 0 && owner[e.msg] >= 0 && owner[e.msg] != e.sub {
				f.wrongID++
			}
		case coreOutcome:
			s := &subs[e.sub]
			s.told, s.outcome, s.outMsg = true, Result(e.outcome), e.msg
		}
	}
	for i := range subs {
		s := &subs[i]
		if s.twoIDs {
			f.wrongID++ // one key answered with two messageIds
		}
		switch {
		case s.copies > 1:
			f.duplicate++
		case !s.told:
			f.unresolved++
		case s.outcome == Inserted && s.copies == 0:
			f.lost++
		case s.outcome == Failed && s.copies > 0:
			f.phantom++
		case s.outcome == Inserted && (s.outMsg < 0 || owner[s.outMsg] != int32(i)):
			f.wrongID++
		}
	}
	return f
}

func (f coreFindings) String() string {
	return fmt.Sprintf("duplicate %d, lost %d, phantom %d, unresolved %d, wrong-id %d, shared %d", f.duplicate, f.lost, f.phantom, f.unresolved, f.wrongID, f.shared)
}
