package properties

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/sim/bench"
	"github.com/acpsim/acpsim/traces"
)

// synthetic builds a healthy keyed run of n submissions over 8 Clients with
// 4 sessions each; every tenth submission is resent after a timeout and
// answered from the binding. The observer reads every session at the end.
func synthetic(n int) *tb {
	b := newTB("all")
	const clients, sessions = 8, 4
	texts := []string{"fix the tests", "make it faster", "write the docs", "continue"}
	replay := map[string][]msg{}
	var order []string
	for c := 1; c <= clients; c++ {
		b.connect(fmt.Sprintf("c%d>a%d#1", c, c))
	}
	for i := 0; i < n; i++ {
		c := i%clients + 1
		client, link := fmt.Sprintf("c%d", c), fmt.Sprintf("c%d>a%d#1", c, c)
		session := fmt.Sprintf("%08x-0000-4000-8000-%012x", c, i/clients%sessions)
		if _, ok := replay[session]; !ok {
			replay[session] = nil
			order = append(order, session)
		}
		sub, key, id := fmt.Sprintf("s%d", i+1), fmt.Sprintf("%08x-1111-4222-8333-%012x", i, i), fmt.Sprintf("m-%d", i)
		t := texts[i%len(texts)]
		b.submit(client, sub, t)
		rid := b.prompt(link, sub, session, t, key)
		b.userMsg(link, session, id, t)
		b.answer(link, rid, id)
		if i%10 == 0 {
			b.prompt(link, sub, session, t, key)
			b.answer(link, acp.NumID(b.ids[link]), id)
		}
		b.turn(link, session, "o-"+id)
		b.outcome(client, sub, traces.OutcomeInserted, id)
		replay[session] = append(replay[session], msg{id: id, text: t})
	}
	var ss []sess
	for _, s := range order {
		ss = append(ss, sess{s, replay[s]})
	}
	b.observe("a1#1", ss...)
	b.add(traces.Event{Kind: traces.KindEnd, Note: "quiet"})
	return b
}

func TestSyntheticIsHealthy(t *testing.T) {
	r := synthetic(200).check()
	if !r.OK() || r.Stats.RetriesFromBinding != 20 || r.Stats.Submissions != 200 {
		t.Fatalf("stats %+v\n%s", r.Stats, dump(r))
	}
}

// BenchmarkCheck measures the checker alone on a prepared trace; docs/design.md#performance-targets
// asks for a million submissions in a second on one core (the million
// itself is bench.BenchmarkCheckMillion).
func BenchmarkCheck(b *testing.B) {
	const n = 20000
	tr := synthetic(n)
	b.ReportAllocs()
	cpu0 := bench.CPUTime()
	for b.Loop() {
		if r := Check(tr.h, tr.evs); !r.OK() {
			b.Fatal("synthetic trace is not healthy")
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "submissions/s")
	b.ReportMetric(float64(len(tr.evs))*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	cpu := (bench.CPUTime() - cpu0).Seconds()
	b.ReportMetric(float64(n)*float64(b.N)/cpu, "submissions/cpu-s")
}

// BenchmarkLedgerPass times the ledger's pass reading the bench history:
// its facts made before the clock, as a producer of typed events makes
// them, and each event's frame at hand for the leak scan, as the simulator
// hands it over. The tables every rule reads, and the decisions that must
// be made in the pass, are made in it; BenchmarkLedgerCheck adds every
// judgement and the report. Beside sim/bench.BenchmarkCheckMillionSteps
// they say what the pass and the judgements cost of the million-a-second
// budget.
func BenchmarkLedgerPass(b *testing.B) { benchLedger(b, false) }

// BenchmarkLedgerCheck is BenchmarkLedgerPass with every judgement after
// the pass and the report built: the whole check, less making the facts.
func BenchmarkLedgerCheck(b *testing.B) { benchLedger(b, true) }

func benchLedger(b *testing.B, judge bool) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			h := bench.Generate(bench.Defaults(n))
			in := NewInterner(true)
			steps := make([]Step, len(h.Events))
			var facts []fact
			ends := make([]int32, len(h.Events))
			for i := range h.Events {
				steps[i] = in.Step(&h.Events[i])
				facts = in.facts(&steps[i], facts)
				ends[i] = int32(len(facts))
			}
			runtime.GC() // the history's and the facts' making are not the pass's
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				lg := newLedger(h.Header, in, len(h.Events))
				start := int32(0)
				for i := range steps {
					f := facts[start:ends[i]]
					lg.sendLeaks(&steps[i], f)
					lg.read(f)
					start = ends[i]
				}
				if judge {
					if r := lg.finishReport(); !r.OK() || len(r.Submissions) != n {
						b.Fatalf("the bench history is judged unhealthy: %d anomalies, %d submissions", len(r.Anomalies), len(r.Submissions))
					}
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "submissions/s")
			b.ReportMetric(float64(len(facts))/float64(n), "facts/submission")
		})
	}
}

// BenchmarkLedgerFloor is the floor of any pass over the facts: visiting
// each one.
func BenchmarkLedgerFloor(b *testing.B) {
	const n = 100_000
	h := bench.Generate(bench.Defaults(n))
	in := NewInterner(true)
	var facts []fact
	for i := range h.Events {
		st := in.Step(&h.Events[i])
		facts = in.facts(&st, facts)
	}
	h = nil
	runtime.GC()
	b.ResetTimer()
	var sum int64
	for b.Loop() {
		for i := range facts {
			sum += facts[i].seq + int64(facts[i].ev)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "submissions/s")
	if sum == 0 {
		b.Fatal("no facts")
	}
}
