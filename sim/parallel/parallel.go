// Package parallel runs whole simulations side by side. It is the one place
// in the simulator's tree with goroutines, and they never reach inside a
// simulation: each index runs start to verdict on one goroutine, and the
// caller merges results by index, so what it builds does not depend on the
// Go scheduler. It lives apart from the real-mode code so that the
// simulation packages import no sockets, processes or databases.
//
// golang.org/x/sync/errgroup with SetLimit would bound the goroutines too,
// but it calls back on the workers' goroutines; callers here fold results
// on their own goroutine as each finishes, so no merge needs a lock.
package parallel

import "sync"

// ForEach calls do(i) for every i in [0, n) on up to workers goroutines and
// calls after(i), from the calling goroutine, as each one finishes (in the
// order they finish). It is how a swarm runs whole simulations side by side:
// each simulation stays on one goroutine, and results are merged by index,
// so nothing the caller builds depends on scheduling.
func ForEach(n, workers int, do func(i int), after func(i int)) {
	next := make(chan int)
	done := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				do(i)
				done <- i
			}
		}()
	}
	go func() {
		for i := range n {
			next <- i
		}
		close(next)
		wg.Wait()
		close(done)
	}()
	for i := range done {
		after(i)
	}
}
