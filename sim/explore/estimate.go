// Estimating how many schedules the tree holds, for Progress (the package
// comment's "Estimating the size of the tree").

package explore

// estimateNodes estimates how many schedules the subtrees of ns hold (see
// the package comment).
func estimateNodes(ns []node, k int, found, predicted float64) int {
	ratio := 1.0
	if predicted > 0 {
		ratio = found / predicted
	}
	total := 0.0
	for _, n := range ns {
		if n.siblings < 0 {
			total++ // the root: nothing to go by yet
			continue
		}
		total += subtree(ratio*float64(n.siblings), k-len(n.sched))
	}
	return int(total + 0.5)
}

// subtree is C(x,0)+C(x,1)+…+C(x,k) for a real x ≥ 0.
func subtree(x float64, k int) float64 {
	sum, term := 0.0, 1.0
	for m := 0; m <= k; m++ {
		if m > 0 {
			term *= (x - float64(m-1)) / float64(m)
		}
		if term <= 0 {
			break
		}
		sum += term
	}
	return sum
}
