package realmode

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
