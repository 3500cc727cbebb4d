package parallel_test

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/acpsim/acpsim/sim/parallel"
)

func TestEveryIndexRunsOnceAndAfterRunsOnTheCaller(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 7, 100} {
		const n = 50
		var ran [n]atomic.Int32
		var after []int // appended without a lock: after runs on this goroutine
		parallel.ForEach(n, workers, func(i int) { ran[i].Add(1) }, func(i int) {
			if ran[i].Load() != 1 {
				t.Errorf("workers %d: after(%d) before do(%d) finished", workers, i, i)
			}
			after = append(after, i)
		})
		slices.Sort(after)
		for i := range n {
			if ran[i].Load() != 1 || after[i] != i {
				t.Fatalf("workers %d: index %d ran %d times; after called for %v", workers, i, ran[i].Load(), after)
			}
		}
	}
}

func TestNothingToDo(t *testing.T) {
	parallel.ForEach(0, 4, func(int) { t.Error("do called") }, func(int) { t.Error("after called") })
}

// Results are folded by index, so the outcome is the same for any number
// of workers.
func ExampleForEach() {
	squares := make([]int, 5)
	sum := 0
	parallel.ForEach(len(squares), 3, func(i int) { squares[i] = i * i }, func(i int) { sum += squares[i] })
	fmt.Println(squares, sum)
	// Output: [0 1 4 9 16] 30
}

// A command that runs many seeds tunes the collector for its run, unless
// the user set GOGC or GOMEMLIMIT, and leaves it as it found it.
func ExampleTuneGC() {
	defer parallel.TuneGC()()
	verdicts := make([]string, 8)
	parallel.ForEach(len(verdicts), 2, func(i int) { verdicts[i] = "PASS" }, func(int) {})
	fmt.Println(verdicts[0])
	// Output: PASS
}
