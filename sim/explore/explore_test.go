package explore

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/world"
)

// runs records, for each run a search made, the non-zero answers its
// Chooser gave ("#index kind at site = option"), safe for parallel runs.
type runs struct {
	mu  sync.Mutex
	got []string
}

func (r *runs) add(s string) {
	r.mu.Lock()
	r.got = append(r.got, s)
	r.mu.Unlock()
}

// asker wraps a Chooser and writes down what it answered.
type asker struct {
	ch      sim.Chooser
	n       int
	answers []int
	faults  []string
}

func (a *asker) ask(kind, site string, n int) int {
	o := a.ch.Choose(sim.Decision{Kind: kind, Site: site, N: n})
	if o != 0 {
		a.faults = append(a.faults, fmt.Sprintf("#%d %s at %s = %d", a.n, kind, site, o))
	}
	a.n++
	a.answers = append(a.answers, o)
	return o
}

func (a *asker) String() string {
	if len(a.faults) == 0 {
		return "(no fault)"
	}
	return strings.Join(a.faults, ", ")
}

// tiny is a three-decision run: a cut ends the pipe, so after it only a kill
// is asked; otherwise a delay (three options) and a reject.
func tiny(rec *runs) RunFunc {
	return func(ch *Forcing) (Outcome, error) {
		a := &asker{ch: ch}
		if a.ask("cut", "p/1", 2) != 0 {
			a.ask("kill", "a/1", 2)
		} else {
			a.ask("delay", "p/2", 3)
			a.ask("reject", "a/2", 2)
		}
		rec.add(a.String())
		return Pass, nil
	}
}

// The search runs every schedule of at most K faults exactly once, in DFS
// order when it runs one at a time.
func TestSearchEnumeratesTheTinyTreeInDFSOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		k       int
		options OptionsFunc
		want    []string
	}{
		{"K=2", 2, nil, []string{
			"(no fault)",
			"#0 cut at p/1 = 1",
			"#0 cut at p/1 = 1, #1 kill at a/1 = 1",
			"#1 delay at p/2 = 1",
			"#1 delay at p/2 = 1, #2 reject at a/2 = 1",
			"#1 delay at p/2 = 2",
			"#1 delay at p/2 = 2, #2 reject at a/2 = 1",
			"#2 reject at a/2 = 1",
		}},
		{"K=1", 1, nil, []string{
			"(no fault)",
			"#0 cut at p/1 = 1",
			"#1 delay at p/2 = 1",
			"#1 delay at p/2 = 2",
			"#2 reject at a/2 = 1",
		}},
		{"K=0", 0, nil, []string{"(no fault)"}},
		{"one delay, no kill", 2, func(d sim.Decision) []int {
			switch d.Kind {
			case "delay":
				return []int{2}
			case "kill":
				return nil
			}
			return AllOptions(d)
		}, []string{
			"(no fault)",
			"#0 cut at p/1 = 1",
			"#1 delay at p/2 = 2",
			"#1 delay at p/2 = 2, #2 reject at a/2 = 1",
			"#2 reject at a/2 = 1",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &runs{}
			res, err := Search(tiny(rec), Config{Faults: tc.k, Workers: 1, Batch: 1, Options: tc.options})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rec.got, tc.want) {
				t.Errorf("runs:\n  %s\nwant:\n  %s", strings.Join(rec.got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if res.Schedules != len(tc.want) || res.Failed {
				t.Errorf("result %+v: want %d schedules and no counterexample", res, len(tc.want))
			}
			if res.Decisions != 3 {
				t.Errorf("decisions %d: want 3", res.Decisions)
			}
			// In parallel and in batches: the same schedules, once each.
			rec = &runs{}
			if _, err := Search(tiny(rec), Config{Faults: tc.k, Workers: 3, Batch: 2, Options: tc.options}); err != nil {
				t.Fatal(err)
			}
			slices.Sort(rec.got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(rec.got, want) {
				t.Errorf("parallel runs:\n  %s\nwant:\n  %s", strings.Join(rec.got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}

// bushy is a bigger synthetic run whose shape depends on every answer so
// far: how many decisions follow, their kinds and option counts are hashed
// from the answers. A run fails when the hash of its answers says so (about
// one in failEvery), and it spins a while, differently per schedule, so
// parallel runs finish out of order.
func bushy(failEvery uint32, rec *runs) RunFunc {
	return func(ch *Forcing) (Outcome, error) {
		a := &asker{ch: ch}
		h := fnv.New32a()
		more := 10
		for i := 0; i < more && i < 40; i++ {
			fmt.Fprint(h, a.answers)
			x := h.Sum32()
			kind := []string{"cut", "delay", "kill", "reject"}[x%4]
			if o := a.ask(kind, fmt.Sprintf("s/%d", i), 1+int(x>>3%4)); o != 0 {
				more += int(x>>7%5) - 1 // a fault may open or close windows
			}
		}
		if rec != nil {
			rec.add(a.String())
		}
		fmt.Fprint(h, a.answers)
		x := h.Sum32()
		for range x >> 11 % 4000 {
			h.Write([]byte{0})
		}
		if failEvery > 0 && len(a.faults) > 0 && x%failEvery == 0 {
			return Fail, nil
		}
		return Pass, nil
	}
}

// reference is the plain recursive DFS the search must agree with: every
// schedule in order, and the first failing one.
func reference(t *testing.T, run RunFunc, k int) (order []string, first string, failed bool) {
	var visit func(s Schedule) bool
	visit = func(s Schedule) bool {
		ch := &Forcing{forced: s, record: true}
		out, err := run(ch)
		if err != nil || ch.Err() != nil {
			t.Fatal(err, ch.Err())
		}
		order = append(order, s.String())
		if out == Fail {
			first, failed = s.String(), true
			return true
		}
		if len(s) == k {
			return false
		}
		from := 0
		if len(s) > 0 {
			from = s[len(s)-1].Index + 1
		}
		for i := from; i < len(ch.asked); i++ {
			for o := 1; o < ch.asked[i].N; o++ {
				if visit(append(slices.Clip(s), Forced{i, ch.asked[i], o})) {
					return true
				}
			}
		}
		return false
	}
	visit(nil)
	return order, first, failed
}

// Whatever the workers and the batch size, the search runs the same
// schedules as the plain DFS, and reports the same counterexample: the first
// in DFS order, not the first found.
func TestSearchCounterexampleIsTheFirstInDFSOrder(t *testing.T) {
	for _, failEvery := range []uint32{0, 5, 23, 97} {
		for k := 1; k <= 3; k++ {
			order, first, failed := reference(t, bushy(failEvery, nil), k)
			if failEvery == 0 && k == 2 {
				// Without failures the sizes are what they are; keep them
				// honest about the tree being big enough to mean something.
				if len(order) < 100 {
					t.Fatalf("the bushy tree is too small: %d schedules", len(order))
				}
			}
			for _, workers := range []int{1, 2, 5} {
				for _, batch := range []int{1, 3, 64, 0} {
					rec := &runs{}
					res, err := Search(bushy(failEvery, rec), Config{Faults: k, Workers: workers, Batch: batch})
					if err != nil {
						t.Fatal(err)
					}
					name := fmt.Sprintf("fail 1/%d, K=%d, %d workers, batch %d", failEvery, k, workers, batch)
					if res.Failed != failed || (failed && res.Counterexample.String() != first) {
						t.Errorf("%s: counterexample %v %q, want %v %q", name, res.Failed, res.Counterexample, failed, first)
					}
					if !failed {
						got := slices.Sorted(slices.Values(rec.got))
						want := slices.Sorted(slices.Values(order))
						if !slices.Equal(got, want) || res.Schedules != len(order) {
							t.Errorf("%s: %d schedules run, want the reference's %d", name, res.Schedules, len(order))
						}
						if workers == 1 && batch == 1 && !slices.Equal(rec.got, order) {
							t.Errorf("%s: not in DFS order", name)
						}
					}
				}
			}
		}
	}
}

// A run that fails without any fault is the counterexample: an empty
// schedule, not "none".
func TestSearchRootFailure(t *testing.T) {
	res, err := Search(func(*Forcing) (Outcome, error) { return Fail, nil }, Config{Faults: 2, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Failed || len(res.Counterexample) != 0 || res.Schedules != 1 {
		t.Fatalf("result %+v: want the root as counterexample after 1 schedule", res)
	}
}

// A run that does not ask what its parent asked (the simulator is not
// deterministic) stops the search with an error naming the decision.
func TestSearchNondeterminism(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	_, err := Search(func(ch *Forcing) (Outcome, error) {
		mu.Lock()
		calls++
		site := fmt.Sprintf("s/%d", calls)
		mu.Unlock()
		ch.Choose(sim.Decision{Kind: "cut", Site: site, N: 2})
		return Pass, nil
	}, Config{Faults: 1, Workers: 1})
	if err == nil || !strings.Contains(err.Error(), "not deterministic") {
		t.Fatalf("err %v: want a determinism error", err)
	}
}

// The estimate is exact for a uniform tree (every run asks the same D
// binary decisions): each schedule's subtree is C(r,0)+…+C(r,k) for its r
// younger siblings.
func TestSearchEstimateOnAUniformTree(t *testing.T) {
	const d, k = 12, 2
	total := 1 + d + d*(d-1)/2
	var bad []Progress
	res, err := Search(func(ch *Forcing) (Outcome, error) {
		for i := range d {
			ch.Choose(sim.Decision{Kind: "kill", Site: fmt.Sprint(i), N: 2})
		}
		return Pass, nil
	}, Config{Faults: k, Workers: 2, Batch: 5, Progress: func(p Progress) {
		if p.Done > 1 && p.Estimate != total {
			bad = append(bad, p)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Schedules != total {
		t.Fatalf("%d schedules, want %d", res.Schedules, total)
	}
	if len(bad) > 0 {
		t.Fatalf("estimates off the exact %d: %+v", total, bad)
	}
}

// The default space forces the kinds the run's config can draw and one
// delay, the first step over the Client's timeout.
func TestDefaultSpace(t *testing.T) {
	cfg := world.DefaultConfig()
	sp := DefaultSpace(cfg)
	want := []string{"delay", "cut", "kill", "lose-unsynced", "reject", "client-restart"}
	if !slices.Equal(sp.Kinds, want) || !slices.Equal(sp.Delays, []int{3}) || netfault.DelaySteps[3] != 300*time.Millisecond {
		t.Fatalf("default space %+v: want kinds %v and delay option 3 (300ms)", sp, want)
	}
	cfg.Link = world.LinkHTTP
	cfg.EnableLinkFaults()
	if sp := DefaultSpace(cfg); !slices.Contains(sp.Kinds, netfault.PostLost) || !slices.Contains(sp.Kinds, netfault.StreamBreak) {
		t.Fatalf("http space %+v: want the HTTP kinds", sp)
	}
	opts := sp.Options()
	for _, tc := range []struct {
		d    sim.Decision
		want []int
	}{
		{sim.Decision{Kind: "delay", N: 5}, []int{3}},
		{sim.Decision{Kind: "kill", N: 2}, []int{1}},
		{sim.Decision{Kind: "route", N: 3}, nil},
		{sim.Decision{Kind: "post-lost", N: 2}, nil},
		{sim.Decision{Kind: "cut", N: 1}, nil},
	} {
		if got := opts(tc.d); !slices.Equal(got, tc.want) {
			t.Errorf("options of %+v: %v, want %v", tc.d, got, tc.want)
		}
	}
}

// The reference Agent passes every schedule of one fault over two prompts.
func TestReferenceAgentPassesASmallBound(t *testing.T) {
	cfg := world.DefaultConfig()
	cfg.Prompts = 2
	res, err := Search(World(cfg), Config{Faults: 1, Workers: 2, Options: DefaultSpace(cfg).Options()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed || res.Inconclusive > 0 {
		t.Fatalf("reference Agent: counterexample %v (%d inconclusive)", res.Counterexample, res.Inconclusive)
	}
	if res.Schedules < 50 || res.ByFaults[0] != 1 || res.ByFaults[1] != res.Schedules-1 {
		t.Fatalf("%d schedules %v: want the fault-free run and at least 49 with one fault", res.Schedules, res.ByFaults)
	}
}

// Twins: a schedule whose run equals its proposed twin's keeps only its
// extension at the next decision; one that differs keeps all of them.
func TestSearchCutsTwins(t *testing.T) {
	// Decisions: kill "a/1" (twin of "a/2"), kill "a/2", then "x" and "y".
	// Killing at a/1 asks "lose" right after; both kills end in the same
	// history unless lose is forced.
	run := func(same bool) RunFunc {
		return func(ch *Forcing) (Outcome, error) {
			a := &asker{ch: ch}
			hist := "ok"
			if a.ask("kill", "a/1", 2) != 0 {
				hist = "killed"
				if a.ask("lose", "a/1", 2) != 0 {
					hist = "lost"
				}
				if !same {
					hist = "killed early"
				}
			} else if a.ask("kill", "a/2", 2) != 0 {
				hist = "killed"
			}
			a.ask("x", "x", 2)
			a.ask("y", "y", 2)
			if ch.WantsDigest() {
				ch.SetDigest([]byte(hist))
			}
			return Pass, nil
		}
	}
	twin := func(d, next sim.Decision) bool { return d.Site == "a/1" && next.Site == "a/2" }
	for _, same := range []bool{true, false} {
		res, err := Search(run(same), Config{Faults: 2, Workers: 2, Twin: twin})
		if err != nil {
			t.Fatal(err)
		}
		// Without the cut: root, 4 singles (a/1, a/2, x, y), a/1 with lose,
		// x, y; a/2 with x, y; x with y: 1+4+3+2+1 = 11.
		want, twins := 11, 0
		if same {
			want, twins = 9, 1 // a/1+x and a/1+y are a/2+x and a/2+y
		}
		if res.Schedules != want || res.Twins != twins {
			t.Errorf("same=%v: %d schedules, %d twins; want %d, %d", same, res.Schedules, res.Twins, want, twins)
		}
	}
}

// The one equivalence the simulator has: when the search takes a kill
// before a sync and a kill just after it for twins, every extension of the
// one runs exactly as the same extension of the other.
func TestTwinsRunAlike(t *testing.T) {
	cfg := world.DefaultConfig()
	cfg.Prompts, cfg.Sessions = 2, 1
	opts := DefaultSpace(cfg).Options()
	run := World(cfg)
	judge := func(s Schedule) (*Forcing, Outcome) {
		ch := &Forcing{forced: s, record: true, digest: true}
		out, err := run(ch)
		if err != nil || ch.Err() != nil {
			t.Fatal(err, ch.Err())
		}
		return ch, out
	}
	root, _ := judge(nil)
	asked := root.Asked()
	pairs, checked := 0, 0
	for i := 0; i+1 < len(asked); i++ {
		if !KillTwin(asked[i], asked[i+1]) {
			continue
		}
		a := Schedule{{i, asked[i], 1}}
		b := Schedule{{i + 1, asked[i+1], 1}}
		ra, _ := judge(a)
		twin, err := twinOf(run, a, asked[i+1], ra)
		if err != nil {
			t.Fatal(err)
		}
		if !twin {
			continue
		}
		pairs++
		rb, _ := judge(b)
		for j := i + 2; j < len(ra.asked); j += 2 { // every other one: enough, and fast
			for _, o := range opts(ra.asked[j]) {
				x, outx := judge(append(slices.Clip(a), Forced{j, ra.asked[j], o}))
				y, outy := judge(append(slices.Clip(b), Forced{j, rb.asked[j], o}))
				checked++
				if !bytes.Equal(x.dig, y.dig) || outx != outy {
					t.Errorf("%v and %v, then %v: different runs", a, b, ra.asked[j])
				}
			}
		}
	}
	t.Logf("%d twin pairs, %d extensions checked", pairs, checked)
	if pairs < 3 || checked < 20 {
		t.Fatalf("%d twin pairs, %d extensions checked: want a real check", pairs, checked)
	}
}
