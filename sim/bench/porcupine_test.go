package bench

import (
	"hash/maphash"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/acpsim/acpsim/properties"
)

// The transcript as porcupine sees it. The state is the multiset of
// inserted submissions (a message is its submission's, by its unique text).
// A prompt attempt "submit s" may insert s once: a success response means s
// is in the transcript from then on (inserted now, or earlier by another
// attempt and answered from the binding), an error means this attempt
// inserted nothing, and an attempt without a response may have inserted s
// or not. The observer's final read returns the transcript, and must equal
// the state. A correct Agent's history therefore has every submission at
// most once in the read; the planted duplicate has one twice, which no
// linearization explains.
//
// "May have inserted" is nondeterminism. porcupine's
// NondeterministicModel.ToModel would carry the power set of the possible
// multisets, 2^k of them after k unanswered attempts; this model keeps the
// same set in closed form, as the submissions surely in the transcript and
// those an unanswered attempt may have added (each such choice is
// independent of every other), so porcupine's search is not slowed by the
// model. One partition: no Model.Partition.

// pState is the set {in ∪ X : X ⊆ may} of possible transcripts, each a set
// of submissions as a bitmap (a correct Agent's multiset never holds one
// twice, so counts above one are only ever seen in a read).
type pState struct{ in, may string }

type pInput struct {
	read bool
	sub  int
}

type pOutput struct {
	result Result
	counts []uint8 // read: how often each submission is in the transcript
}

func setBit(bm string, i int) string {
	if bm[i/8]&(1<<(i%8)) != 0 {
		return bm
	}
	b := []byte(bm)
	b[i/8] |= 1 << (i % 8)
	return string(b)
}

func clearBit(bm string, i int) string {
	if bm[i/8]&(1<<(i%8)) == 0 {
		return bm
	}
	b := []byte(bm)
	b[i/8] &^= 1 << (i % 8)
	return string(b)
}

func hasBit(bm string, i int) bool { return bm[i/8]&(1<<(i%8)) != 0 }

var seed = maphash.MakeSeed()

func transcriptModel(subs int) porcupine.Model {
	empty := string(make([]byte, (subs+7)/8))
	return porcupine.Model{
		Init: func() any { return pState{empty, empty} },
		Step: func(state, input, output any) (bool, any) {
			st, in, out := state.(pState), input.(pInput), output.(pOutput)
			if in.read {
				var got []byte = make([]byte, len(empty))
				for s, n := range out.counts {
					switch {
					case n > 1:
						return false, nil // inserted twice
					case n == 1 && !hasBit(st.in, s) && !hasBit(st.may, s):
						return false, nil // never submitted, or refused
					case n == 0 && hasBit(st.in, s):
						return false, nil // lost
					case n == 1:
						got[s/8] |= 1 << (s % 8)
					}
				}
				return true, pState{string(got), empty}
			}
			switch out.result {
			case Inserted:
				return true, pState{setBit(st.in, in.sub), clearBit(st.may, in.sub)}
			case Unknown:
				if hasBit(st.in, in.sub) {
					return true, st
				}
				return true, pState{st.in, setBit(st.may, in.sub)}
			}
			return true, st // refused: nothing inserted
		},
		Hash: func(state any) uint64 {
			st := state.(pState)
			return maphash.String(seed, st.in) ^ maphash.String(seed, st.may)*31
		},
	}
}

// operations turns a history into porcupine's: one operation per prompt
// attempt and the observer's read. With clientView, an attempt the Client
// never got an answer for returns at the end of the history, as porcupine's
// own Jepsen tests encode crashed operations; otherwise it returns when the
// trace shows it could no longer take effect (Attempt.Return), which is
// what acpsim's checker reads from the same frames.
func operations(h *History, clientView bool) []porcupine.Operation {
	ops := make([]porcupine.Operation, 0, len(h.Attempts)+1)
	for _, a := range h.Attempts {
		ret := a.Return
		if clientView && a.Result == Unknown {
			ret = math.MaxInt64
		}
		ops = append(ops, porcupine.Operation{ClientId: a.Client, Input: pInput{sub: a.Sub}, Call: a.Call, Output: pOutput{result: a.Result}, Return: ret})
	}
	counts := make([]uint8, len(h.Texts))
	for _, s := range h.Read.Subs {
		counts[s]++
	}
	ops = append(ops, porcupine.Operation{ClientId: h.Header.Clients, Input: pInput{read: true}, Call: h.Read.Call, Output: pOutput{counts: counts}, Return: h.Read.Return})
	return ops
}

func porcupineCheck(h *History, clientView bool, limit time.Duration) porcupine.CheckResult {
	return porcupine.CheckOperationsTimeout(transcriptModel(len(h.Texts)), operations(h, clientView), limit)
}

func duplicates(r *properties.Report) (subs []string) {
	for _, a := range r.Anomalies {
		if a.Kind == properties.Duplicate {
			subs = append(subs, a.Sub)
		}
	}
	return subs
}

// The comparison's histories: both checkers must find the planted duplicate
// and pass the same history without it.
func TestBothCheckersFindThePlantedDuplicate(t *testing.T) {
	for _, n := range []int{100, 1000} {
		cfg := Defaults(n)
		cfg.Duplicates = 1
		h := Generate(cfg)
		if got, want := duplicates(properties.Check(h.Header, h.Events)), []string{subName(h.Planted[0])}; !slices.Equal(got, want) {
			t.Errorf("%d submissions: acpsim reports duplicates %v, want %v", n, got, want)
		}
		path := filepath.Join(t.TempDir(), "history.ndjson")
		if err := writeTrace(path, h); err != nil {
			t.Fatal(err)
		}
		if r, err := judgeTrace(path); err != nil {
			t.Errorf("%d submissions read from disk: %v", n, err)
		} else if got, want := duplicates(r), []string{subName(h.Planted[0])}; !slices.Equal(got, want) {
			t.Errorf("%d submissions read from disk: acpsim reports duplicates %v, want %v", n, got, want)
		}
		if res := porcupineCheck(h, false, time.Minute); res != porcupine.Illegal {
			t.Errorf("%d submissions: porcupine says %s, want %s", n, res, porcupine.Illegal)
		}
		cfg.Duplicates = 0
		h = Generate(cfg)
		if r := properties.Check(h.Header, h.Events); !r.OK() {
			t.Errorf("%d submissions without the duplicate: acpsim reports %v", n, r.Anomalies)
		}
		if res := porcupineCheck(h, false, time.Minute); res != porcupine.Ok {
			t.Errorf("%d submissions without the duplicate: porcupine says %s, want %s", n, res, porcupine.Ok)
		}
	}
}

// The model itself, on histories small enough to read.
func TestTranscriptModel(t *testing.T) {
	m := transcriptModel(2)
	read := func(call, ret int64, counts ...uint8) porcupine.Operation {
		return porcupine.Operation{ClientId: 9, Input: pInput{read: true}, Call: call, Output: pOutput{counts: counts}, Return: ret}
	}
	submit := func(sub int, call, ret int64, r Result) porcupine.Operation {
		return porcupine.Operation{Input: pInput{sub: sub}, Call: call, Output: pOutput{result: r}, Return: ret}
	}
	for _, tc := range []struct {
		name string
		ops  []porcupine.Operation
		want bool
	}{
		{"inserted and read", []porcupine.Operation{submit(0, 0, 1, Inserted), read(2, 3, 1, 0)}, true},
		{"retry answered from the binding", []porcupine.Operation{submit(0, 0, 1, Unknown), submit(0, 2, 3, Inserted), read(4, 5, 1, 0)}, true},
		{"unknown, not inserted", []porcupine.Operation{submit(0, 0, 1, Unknown), read(2, 3, 0, 0)}, true},
		{"unknown, inserted", []porcupine.Operation{submit(0, 0, 1, Unknown), read(2, 3, 1, 0)}, true},
		{"refused yet in the transcript", []porcupine.Operation{submit(0, 0, 1, Failed), read(2, 3, 1, 0)}, false},
		{"lost", []porcupine.Operation{submit(0, 0, 1, Inserted), read(2, 3, 0, 0)}, false},
		{"duplicate", []porcupine.Operation{submit(0, 0, 1, Unknown), submit(0, 2, 3, Inserted), read(4, 5, 2, 0)}, false},
		{"read before the insertion returned", []porcupine.Operation{submit(1, 0, 10, Inserted), read(2, 3, 0, 1)}, true},
	} {
		if got := porcupine.CheckOperations(m, tc.ops); got != tc.want {
			t.Errorf("%s: linearizable %v, want %v", tc.name, got, tc.want)
		}
	}
}
