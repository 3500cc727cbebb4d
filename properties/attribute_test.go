package properties

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// shares must agree with enumerating every matching of small random groups.
func TestSharesMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 3000 {
		ncand := 1 + rng.IntN(3)
		var slots []slot
		for ci := range ncand {
			for range 1 + rng.IntN(2) {
				slots = append(slots, slot{int64(1 + rng.IntN(8)), ci})
			}
		}
		bounds := make([]int64, 1+rng.IntN(4))
		for k := range bounds {
			bounds[k] = int64(1 + rng.IntN(10))
		}
		slices.Sort(bounds)
		orig := slices.Clone(slots)
		feasible, lo, hi := shares(slots, bounds, ncand)

		// Enumerate injective maps message → slot (or none), respecting
		// eligibility; complete ones give lo/hi when any exists.
		wantLo, wantHi := make([]int, ncand), make([]int, ncand)
		for i := range wantLo {
			wantLo[i] = 1 << 30
		}
		complete := false
		used := make([]bool, len(orig))
		count := make([]int, ncand)
		var walk func(k, matched int)
		walk = func(k, matched int) {
			if k == len(bounds) {
				for ci := range ncand {
					wantHi[ci] = max(wantHi[ci], count[ci]) // over all matchings
					if matched == len(bounds) {
						wantLo[ci] = min(wantLo[ci], count[ci])
					}
				}
				complete = complete || matched == len(bounds)
				return
			}
			walk(k+1, matched)
			for i, s := range orig {
				if !used[i] && s.del < bounds[k] {
					used[i], count[s.cand] = true, count[s.cand]+1
					walk(k+1, matched+1)
					used[i], count[s.cand] = false, count[s.cand]-1
				}
			}
		}
		walk(0, 0)
		if complete {
			// At most, among complete matchings only.
			wantHi = make([]int, ncand)
			var walk2 func(k int)
			walk2 = func(k int) {
				if k == len(bounds) {
					for ci := range ncand {
						wantHi[ci] = max(wantHi[ci], count[ci])
					}
					return
				}
				for i, s := range orig {
					if !used[i] && s.del < bounds[k] {
						used[i], count[s.cand] = true, count[s.cand]+1
						walk2(k + 1)
						used[i], count[s.cand] = false, count[s.cand]-1
					}
				}
			}
			walk2(0)
		} else {
			for i := range wantLo {
				wantLo[i] = 0
			}
		}
		if feasible != complete || !reflect.DeepEqual(lo, wantLo) || !reflect.DeepEqual(hi, wantHi) {
			t.Fatalf("trial %d: slots %v bounds %v: got feasible %v lo %v hi %v, want %v %v %v",
				trial, orig, bounds, feasible, lo, hi, complete, wantLo, wantHi)
		}
	}
}
