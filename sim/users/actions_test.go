package users

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/acpsim/acpsim/sim"
)

// A seed's action draw is a function of the seed and the base alone, each
// class is on in about half the seeds, and the counts stay in 1 … 2×base.
func TestDrawActionsIsDeterministicAndSwitchesEachClassInHalfTheSeeds(t *testing.T) {
	on := map[string]int{}
	const seeds = 2000
	for seed := uint64(1); seed <= seeds; seed++ {
		d := DrawActions(seed, DefaultActionBase)
		if again := DrawActions(seed, DefaultActionBase); !reflect.DeepEqual(d, again) {
			t.Fatalf("seed %d: %+v, then %+v", seed, d, again)
		}
		for _, c := range d.On {
			on[c]++
		}
		b := DefaultActionBase
		for _, f := range []struct {
			name  string
			n, of int
		}{{"cancels", d.Cancels, b.Cancels}, {"closes", d.Closes, b.Closes}, {"forks", d.Forks, b.Forks}} {
			if f.n < 0 || f.n > 2*f.of {
				t.Fatalf("seed %d: %s %d, want 0 … %d", seed, f.name, f.n, 2*f.of)
			}
		}
		has := func(c string) bool { return slices.Contains(d.On, c) }
		req, ses := has("cancel-request"), has("session-cancel")
		if (d.Cancels > 0) != (req || ses) || (d.Closes > 0) != has("close-resume") || (d.Forks > 0) != has("fork") {
			t.Fatalf("seed %d: %+v: counts and classes on disagree", seed, d)
		}
		want := map[[2]bool]string{{true, false}: CancelByRequest, {false, true}: CancelBySession}[[2]bool{req, ses}]
		if d.CancelBy != want {
			t.Fatalf("seed %d: %+v: cancel-by %q, want %q", seed, d, d.CancelBy, want)
		}
	}
	for _, c := range ActionClasses {
		if n := on[c.Name]; n < seeds*4/10 || n > seeds*6/10 {
			t.Errorf("class %s on in %d of %d seeds, want about half", c.Name, n, seeds)
		}
	}
}

// A base count of 0, or a cancel way the base excludes, makes a class
// absent; the other classes' draws stay what they were.
func TestDrawActionsLeavesOutAbsentClassesOnly(t *testing.T) {
	noForks := DefaultActionBase
	noForks.Forks = 0
	sessionOnly := DefaultActionBase
	sessionOnly.CancelBy = CancelBySession
	if got := PresentActionClasses(noForks); !slices.Equal(got, []string{"cancel-request", "session-cancel", "close-resume", "impatient"}) {
		t.Errorf("present with no forks: %v", got)
	}
	for seed := uint64(1); seed <= 300; seed++ {
		all := DrawActions(seed, DefaultActionBase)
		d := DrawActions(seed, noForks)
		if d.Forks != 0 || slices.Contains(d.On, "fork") {
			t.Fatalf("seed %d: forks with base 0: %+v", seed, d)
		}
		if d.Cancels != all.Cancels || d.Closes != all.Closes || !slices.Equal(d.On, slices.DeleteFunc(slices.Clone(all.On), func(c string) bool { return c == "fork" })) {
			t.Fatalf("seed %d: without forks %+v, with %+v: the other classes moved", seed, d, all)
		}
		s := DrawActions(seed, sessionOnly)
		if slices.Contains(s.On, "cancel-request") || s.Cancels > 0 && s.CancelBy != CancelBySession {
			t.Fatalf("seed %d: cancel-by session base drew %+v", seed, s)
		}
	}
}

// CancelBy chooses how every cancel is sent without changing anything else
// of the scenario: the id stream is drawn as without it.
func TestCancelByKeepsTheScenario(t *testing.T) {
	spec := Spec{Clients: 2, Prompts: 8, Sessions: 2, Cancels: 3, Closes: 1, Forks: 1, MaxGap: 100 * time.Millisecond}
	for seed := uint64(1); seed <= 50; seed++ {
		either := Draw(sim.NewIDs(seed), spec)
		for _, by := range []string{CancelByRequest, CancelBySession} {
			s := spec
			s.CancelBy = by
			got := Draw(sim.NewIDs(seed), s)
			for i, e := range either {
				if e.Action == Cancel {
					e.Alt = by == CancelByRequest
				}
				if got[i] != e {
					t.Fatalf("seed %d, cancel-by %s: event %d is %+v, want %+v", seed, by, i, got[i], e)
				}
			}
		}
	}
}

// The impatient class gives a seed's users the base's short prompt timeout,
// only with the class on, and is absent from a base without one (the user
// chose the timeout).
func TestImpatientClassSetsTheTimeoutOnlyWhenOn(t *testing.T) {
	patient := DefaultActionBase
	patient.Timeout = 0
	if slices.Contains(PresentActionClasses(patient), "impatient") {
		t.Errorf("impatient present without a base timeout")
	}
	on := 0
	for seed := uint64(1); seed <= 300; seed++ {
		d := DrawActions(seed, DefaultActionBase)
		if impatient := slices.Contains(d.On, "impatient"); impatient != (d.Timeout == ImpatientTimeout) || !impatient && d.Timeout != 0 {
			t.Fatalf("seed %d: %+v: timeout and class disagree", seed, d)
		}
		if slices.Contains(d.On, "impatient") {
			on++
		}
		p := DrawActions(seed, patient)
		if p.Timeout != 0 || slices.Contains(p.On, "impatient") {
			t.Fatalf("seed %d: impatient drawn without a base timeout: %+v", seed, p)
		}
	}
	if on == 0 || on == 300 {
		t.Errorf("impatient on in %d of 300 seeds", on)
	}
}

// Appending a class shifts no draw of the older ones: the four classes
// that were there first are switched, and the counts drawn, from the same
// values of the action stream as before the impatient class was added.
func TestAppendedClassesLeaveTheOlderDrawsAlone(t *testing.T) {
	for seed := uint64(1); seed <= 300; seed++ {
		rng := actionStream(seed)
		var want []string
		for _, c := range ActionClasses[:drawnBeforeCounts] {
			if rng.Float64() < actionOn {
				want = append(want, c.Name)
			}
		}
		scale := rng.Float64() // cancels
		d := DrawActions(seed, DefaultActionBase)
		got := slices.DeleteFunc(slices.Clone(d.On), func(c string) bool { return c == "impatient" })
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d: older classes on %v, want %v", seed, got, want)
		}
		if d.Cancels > 0 && d.Cancels != 1+int(scale*float64(2*DefaultActionBase.Cancels)) {
			t.Fatalf("seed %d: cancels %d moved", seed, d.Cancels)
		}
	}
}

// check draws each class on in two seeds of three: the same draws at a
// higher probability, so a seed keeps every class it had at one in two.
func TestDrawActionsOnOnlyAddsClassesAtAHigherProbability(t *testing.T) {
	on := map[string]int{}
	const seeds = 2000
	for seed := uint64(1); seed <= seeds; seed++ {
		half, more := DrawActions(seed, DefaultActionBase), DrawActionsOn(seed, DefaultActionBase, 2.0/3)
		for _, c := range half.On {
			if !slices.Contains(more.On, c) {
				t.Fatalf("seed %d: class %s on at 1/2 but off at 2/3 (%v, %v)", seed, c, half.On, more.On)
			}
		}
		for _, c := range more.On {
			on[c]++
		}
	}
	for _, c := range ActionClasses {
		if n := on[c.Name]; n < seeds*6/10 || n > seeds*73/100 {
			t.Errorf("class %s on in %d of %d seeds, want about two thirds", c.Name, n, seeds)
		}
	}
}
