// This file holds the window: which events a long trace keeps, around the
// first anomaly's evidence.

package view

import (
	"fmt"
	"slices"
	"sort"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// window picks the events to show. Up to max events are all shown; a longer
// trace keeps the first anomaly's cited events with as much context around
// each as fits (the same number of events on every side, so the evidence
// stays centred), or, without an anomaly, its first max events.
func window(evs []traces.Event, rep *properties.Report, max int) (keep []bool, note string) {
	keep = make([]bool, len(evs))
	if max <= 0 || len(evs) <= max {
		for i := range keep {
			keep[i] = true
		}
		return keep, ""
	}
	index := make(map[int64]int, len(evs))
	for i := range evs {
		index[evs[i].Seq] = i
	}
	var anchors []int
	if len(rep.Anomalies) > 0 {
		for _, s := range rep.Anomalies[0].Events {
			if i, ok := index[s]; ok {
				anchors = append(anchors, i)
			}
		}
	}
	sort.Ints(anchors)
	anchors = slices.Compact(anchors)
	if len(anchors) == 0 {
		for i := 0; i < max; i++ {
			keep[i] = true
		}
		why := "no anomaly"
		if len(rep.Anomalies) > 0 {
			why = "the first anomaly cites no event"
		}
		return keep, fmt.Sprintf("%d of %d events shown (%s: the first %d); %d cut. acpsim view --all or --max-events N shows more.",
			max, len(evs), why, max, len(evs)-max)
	}
	if len(anchors) > max {
		anchors = anchors[:max]
	}
	count := func(r int) int {
		n, end := 0, -1 // end: the last index counted so far
		for _, a := range anchors {
			lo, hi := max0(a-r, end+1), min(a+r, len(evs)-1)
			if hi >= lo {
				n += hi - lo + 1
				end = hi
			}
		}
		return n
	}
	// The widest radius that fits: count grows with r, so search for it.
	r := sort.Search(len(evs), func(r int) bool { return count(r) > max }) - 1
	r = max0(r, 0)
	for _, a := range anchors {
		for i := max0(a-r, 0); i <= min(a+r, len(evs)-1); i++ {
			keep[i] = true
		}
	}
	shown := 0
	for _, k := range keep {
		if k {
			shown++
		}
	}
	// Radius r+1 would overflow: use what room is left one event at a
	// time, after then before each anchor in turn.
	for _, a := range anchors {
		for _, i := range []int{a + r + 1, a - r - 1} {
			if shown < max && i >= 0 && i < len(evs) && !keep[i] {
				keep[i] = true
				shown++
			}
		}
	}
	a := rep.Anomalies[0]
	what := a.Kind
	if a.Sub != "" {
		what += " " + a.Sub
	}
	return keep, fmt.Sprintf("%d of %d events shown: the first anomaly's (%s) %d cited events and the %d nearest them; %d cut. acpsim view --all or --max-events N shows more.",
		shown, len(evs), what, len(anchors), shown-len(anchors), len(evs)-shown)
}

func max0(a, b int) int {
	if a > b {
		return a
	}
	return b
}
