package view

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// realFailure is a failing seed of `acpsim check --seeds 3 -- acpsim agent
// --keys memory` (seed 3: a duplicate and a wrong-id after a kill): thirteen
// lanes, emoji keys hundreds of characters long, the layout a real-mode
// failure gives.
const realFailure = "testdata/check-keys-memory-failure.ndjson"

// measure runs after the page's script and writes, for the test to read in
// the dumped DOM, each element's box (left top right bottom, in CSS px of
// the viewport) and, for each lane head, what is drawn at its centre: itself,
// or the id of what covers it.
const measure = `<script>(function () {
  function box(e) {
    var r = e.getBoundingClientRect();
    e.setAttribute('data-box', [r.left, r.top, r.right, r.bottom].map(Math.round).join(' '));
    return r;
  }
  box(document.getElementById('side'));
  box(document.getElementById('diagram-wrap'));
  document.querySelectorAll('#lane-heads [data-lane]').forEach(function (e) {
    var r = box(e), hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
    var owner = hit && hit.closest('[id]');
    e.setAttribute('data-hit', hit && (hit === e || e.contains(hit)) ? 'self' : owner ? owner.id : 'nothing');
  });
  document.querySelectorAll('line.lane-line[data-lane], .ev.k-send .arrow').forEach(box);
  document.body.setAttribute('data-viewport', innerWidth + ' ' + innerHeight);
})();</script>`

// Issue 28, must-show 5: a real-mode failure rendered by headless Chromium
// at 1280 and 1920 px wide shows every lane: its head within the viewport,
// left of the side panel and not covered, its line in the diagram's width,
// and no arrow running off the right under the panel.
func TestChromiumShowsEveryLaneOfARealFailure(t *testing.T) {
	log, err := traces.ReadFile(realFailure)
	if err != nil {
		t.Fatal(err)
	}
	page := render(t, log, Options{Name: filepath.Base(realFailure), MaxEvents: DefaultMaxEvents}) // as acpsim view shows it
	lanes := modelOf(t, page).Lanes
	if len(lanes) < 10 {
		t.Fatalf("the trace should give a crowded diagram, got %d lanes", len(lanes))
	}
	page = strings.Replace(page, "</body>", measure+"</body>", 1)
	for _, width := range []int{1280, 1920} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			dom := dumpDOM(t, page, filepath.Join(t.TempDir(), "run.html"), fmt.Sprintf("--window-size=%d,900", width))
			els := elements(dom)
			byID := map[string]map[string]string{}
			for _, e := range els {
				if e["id"] != "" {
					byID[e["id"]] = e
				}
			}
			var viewport []string
			for _, e := range els {
				if e["tag"] == "body" {
					viewport = strings.Fields(e["data-viewport"])
				}
			}
			if len(viewport) != 2 || viewport[0] != strconv.Itoa(width) {
				t.Fatalf("the page was laid out %v wide, want %d (--window-size not applied?)", viewport, width)
			}
			side, wrap := boxOf(t, byID["side"]), boxOf(t, byID["diagram-wrap"])
			right := min(side[0], float64(width))
			heads, lines := map[string]bool{}, map[string]bool{}
			pastRight, farthest := 0, 0.0
			for _, e := range els {
				switch {
				case e["data-lane"] != "" && e["data-hit"] != "":
					b := boxOf(t, e)
					heads[e["data-lane"]] = true
					if b[0] < wrap[0] || b[2] > right || b[1] < wrap[1] {
						t.Errorf("lane %s: head at %v, outside the diagram's visible width %v … %v", e["data-lane"], b, wrap[0], right)
					}
					if e["data-hit"] != "self" {
						t.Errorf("lane %s: head covered by #%s", e["data-lane"], e["data-hit"])
					}
				case e["tag"] == "line" && e["data-lane"] != "":
					b := boxOf(t, e)
					lines[e["data-lane"]] = true
					if b[0] < wrap[0] || b[2] > right {
						t.Errorf("lane %s: line at x %v, outside the diagram's visible width %v … %v", e["data-lane"], b[0], wrap[0], right)
					}
				case e["class"] == "arrow" && e["data-box"] != "":
					if b := boxOf(t, e); b[2] > right+1 {
						pastRight, farthest = pastRight+1, max(farthest, b[2])
					}
				}
			}
			if pastRight > 0 {
				t.Errorf("%d arrows run past the diagram's visible right edge %v, to x %v", pastRight, right, farthest)
			}
			for _, l := range lanes {
				if !heads[l.Name] {
					t.Errorf("lane %s has no head in the page", l.Name)
				}
			}
			if len(lines) == 0 {
				t.Errorf("no lane lines measured")
			}
		})
	}
}

// boxOf reads the data-box the measuring script wrote: left top right bottom.
func boxOf(t *testing.T, e map[string]string) [4]float64 {
	t.Helper()
	var b [4]float64
	f := strings.Fields(e["data-box"])
	if len(f) != 4 {
		t.Fatalf("no data-box on %v", e)
	}
	for i, s := range f {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("data-box %q: %v", e["data-box"], err)
		}
		b[i] = v
	}
	return b
}

// The seq and time columns stay apart however long both get (issue 28:
// seq 265 at 1213.741 ms read "2651213.741ms"): a trace of 12,000 events
// over 120 s, its last rows measured in the browser.
func TestChromiumKeepsSeqAndTimeApart(t *testing.T) {
	l := &traces.Log{Header: traces.Header{Format: 1, Contract: traces.Contract{Retention: "all"}}}
	for i := range 12000 {
		l.Append(traces.Event{Kind: traces.KindTimer, To: "c1", Note: "tick", T: int64(i)*10_000 + 1_741})
	}
	// A submission never told: its anomaly puts the window at the end.
	l.Append(traces.Event{Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: "hi", T: 120_001_741})
	l.Append(traces.Event{Kind: traces.KindEnd, Note: "quiet", T: 120_002_741})
	page := render(t, l, Options{Name: "long.ndjson", MaxEvents: 40})
	clash := `<script>(function () {
  document.querySelectorAll('.ev[data-seq]').forEach(function (g) {
    var cols = g.querySelectorAll('.time-text'), a = cols[0].getBoundingClientRect(), b = cols[1].getBoundingClientRect();
    g.setAttribute('data-apart', a.right + 2 <= b.left ? 'yes' : 'no ' + cols[0].textContent + ' ' + cols[1].textContent + ' at x ' + [a.left, a.right, b.left, b.right].map(Math.round).join(' '));
  });
})();</script>`
	page = strings.Replace(page, "</body>", clash+"</body>", 1)
	measured := 0
	for _, e := range elements(dumpDOM(t, page, filepath.Join(t.TempDir(), "long.html"))) {
		if e["data-apart"] == "" {
			continue
		}
		measured++
		if seqOf(t, e) < 10000 {
			t.Errorf("seq %s measured: the window should show the trace's end", e["data-seq"])
		}
		if e["data-apart"] != "yes" {
			t.Errorf("seq %s: its seq and time run together (%s)", e["data-seq"], e["data-apart"])
		}
	}
	if measured == 0 {
		t.Fatalf("no event rows measured")
	}
}
