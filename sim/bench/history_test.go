package bench

import (
	"reflect"
	"testing"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

func TestGenerateIsAFunctionOfItsConfig(t *testing.T) {
	cfg := Defaults(300)
	cfg.Duplicates = 1
	a, b := Generate(cfg), Generate(cfg)
	// The registers hold the same ids in the same order, at other addresses.
	if a.Names.Len() != b.Names.Len() {
		t.Fatalf("the registers hold %d and %d ids", a.Names.Len(), b.Names.Len())
	}
	for h := int32(1); int(h) <= a.Names.Len(); h++ {
		if a.Names.Name(h) != b.Names.Name(h) {
			t.Fatalf("id %d is %q and %q", h, a.Names.Name(h), b.Names.Name(h))
		}
	}
	a.Names, b.Names = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two histories of one config differ")
	}
	cfg.Seed++
	if c := Generate(cfg); reflect.DeepEqual(a.Events, c.Events) {
		t.Fatal("another seed gave the same history")
	}
}

// The trace and the operations tell one story, and acpsim's checker finds
// in the trace what the generator says it wrote.
func TestTheTraceAndTheOperationsAgree(t *testing.T) {
	h := Generate(Defaults(2000))
	r := properties.Check(h.Header, h.Events)
	if !r.OK() {
		t.Fatalf("the default history is not healthy: %v", r.Anomalies[0])
	}
	if r.Stats.Submissions != 2000 || r.Stats.Prompts != len(h.Attempts) {
		t.Errorf("checker saw %d submissions and %d prompts, the generator wrote 2000 and %d", r.Stats.Submissions, r.Stats.Prompts, len(h.Attempts))
	}
	outcomes := map[string]int{}
	for _, s := range r.Submissions {
		outcomes[s.Outcome]++
	}
	unknown := 0
	for _, a := range h.Attempts {
		if a.Return < a.Call {
			t.Fatalf("attempt returns before its call: %+v", a)
		}
	}
	for i := range h.Texts {
		last := Attempt{Result: Unknown}
		for _, a := range h.Attempts {
			if a.Sub == i {
				last = a
			}
		}
		if last.Result == Unknown {
			unknown++
		}
	}
	if outcomes[traces.OutcomeUnknown] != unknown || unknown < 150 || unknown > 250 {
		t.Errorf("%d unknown outcomes in the trace, %d submissions whose last attempt is unanswered; want both about 200", outcomes[traces.OutcomeUnknown], unknown)
	}
	in := map[int]int{}
	for _, s := range h.Read.Subs {
		in[s]++
	}
	for i := range h.Texts {
		if in[i] > 1 {
			t.Errorf("s%d is in the read %d times", i+1, in[i])
		}
	}
	if r.Stats.RetriesFromBinding < 150 {
		t.Errorf("only %d retries answered from the binding", r.Stats.RetriesFromBinding)
	}
}
