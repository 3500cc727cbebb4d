package view

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// The browser tests (issue 7, "What it must show" 4): the page of a
// duplicate, rendered by headless Chromium, marks after its script ran the
// two insertions of the one submission and the lost response between them.

// dumpDOM writes page to path, loads it in headless Chromium and returns
// the DOM after the page's script ran (chromiumFlags such as
// --window-size go before --dump-dom), failing the test unless the script
// got to its end (it marks <body data-ready>). Chromium missing is a
// failure, not a skip: the assertions would silently not run.
func dumpDOM(t *testing.T, page, path string, chromiumFlags ...string) string {
	t.Helper()
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("chromium is not installed (%v): this test renders the page in headless Chromium; install it with: apt-get install -y --no-install-recommends chromium (.ci/run does)", err)
	}
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := time.Now()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu",
		"--user-data-dir=" + filepath.Join(t.TempDir(), "profile")}, chromiumFlags...)
	cmd := exec.CommandContext(ctx, chromium, append(args, "--dump-dom", "file://"+abs)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.String())
	}
	t.Logf("chromium --dump-dom took %v", time.Since(start).Round(time.Millisecond))
	dom := stdout.String()
	if !slices.ContainsFunc(elements(dom), func(e map[string]string) bool { return e["tag"] == "body" && e["data-ready"] == "true" }) {
		t.Fatalf("the page's script did not finish (no <body data-ready>); DOM:\n%.2000s", dom)
	}
	return dom
}

func TestChromiumMarksTheDuplicateAndTheLostResponse(t *testing.T) {
	log, rep := duplicateTrace(t)
	dup := rep.Anomalies[0]
	path := filepath.Join(t.TempDir(), "run.html")
	if *demoDir != "" {
		path = filepath.Join(*demoDir, "view-demo.html")
	}
	els := elements(dumpDOM(t, render(t, log, Options{Name: "duplicate.ndjson"}), path))
	marked := func(e map[string]string) bool {
		return e["data-seq"] != "" && slices.Contains(strings.Fields(e["data-anomaly"]), properties.Duplicate) && e["data-submission"] == dup.Sub
	}
	// The two insertions: the Agent's insert events, and the user messages
	// of the final transcript (the black-box evidence), each with two
	// distinct messageIds.
	var inserts []map[string]string
	insertMsgs, userMsgs := map[string]bool{}, map[string]bool{}
	for _, e := range els {
		if !marked(e) || e["data-msg"] == "" {
			continue
		}
		switch {
		case e["data-kind"] == traces.KindInsert:
			inserts = append(inserts, e)
			insertMsgs[e["data-msg"]] = true
		case e["data-kind"] == traces.KindDeliver && strings.Contains(e["class"], "c-user-message"):
			userMsgs[e["data-msg"]] = true
		}
	}
	if len(inserts) != 2 || len(insertMsgs) != 2 {
		t.Fatalf("want two insert elements of %s marked duplicate with distinct data-msg, got %v", dup.Sub, inserts)
	}
	if len(userMsgs) < 2 {
		t.Errorf("want the transcript's two user messages of %s marked duplicate, got %v", dup.Sub, userMsgs)
	}
	// The lost response between them: the kill of the process that
	// inserted first, before it could respond, marked as a fault.
	first, second := seqOf(t, inserts[0]), seqOf(t, inserts[1])
	if first > second {
		first, second = second, first
		inserts[0], inserts[1] = inserts[1], inserts[0]
	}
	lost := slices.ContainsFunc(els, func(e map[string]string) bool {
		if e["data-seq"] == "" || e["data-fault"] == "" {
			return false
		}
		s := seqOf(t, e)
		between := first < s && s < second
		killed := e["data-kind"] == traces.KindKill && e["data-lane"] == inserts[0]["data-lane"] && strings.Contains(e["data-fault"], "respond")
		dropped := e["data-kind"] == traces.KindDrop && e["data-submission"] == dup.Sub
		return between && (killed || dropped)
	})
	if !lost {
		t.Errorf("no element marks the lost response between seq %d and %d (a kill of %s before respond-prompt, or a drop of %s's response)", first, second, inserts[0]["data-lane"], dup.Sub)
	}
	// The bracket that joins the copies is drawn too.
	if !slices.ContainsFunc(els, func(e map[string]string) bool {
		return strings.Contains(e["class"], "dup") && e["data-anomaly"] == properties.Duplicate && e["data-submission"] == dup.Sub
	}) {
		t.Errorf("no duplicate bracket for %s", dup.Sub)
	}
}

// In the browser too, markup in the trace stays text: no element comes from
// it, the script still runs to its end, and the text is there to read. The
// trace is cut by a small window, so the drawing of gaps, of frames whose
// other half was cut, and of a drop with no send runs as well.
func TestChromiumShowsMarkupAsText(t *testing.T) {
	evil := `</script><img src=x onerror="document.body.dataset.pwned=1"><svg onload="document.body.dataset.pwned=1">`
	l := &traces.Log{Header: traces.Header{Format: 1, Contract: traces.Contract{Retention: "all"}}}
	link := "c1:a1#1"
	l.Append(traces.Event{Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: evil})
	l.Append(traces.Event{Kind: traces.KindConnect, Link: link, From: "c1", To: "a1#1"})
	prompt := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"S","prompt":[{"type":"text","text":%q}],"idempotencyKey":%q}}`, evil, evil)
	l.Append(traces.Event{Kind: traces.KindSend, Link: link, From: "c1", To: "a1#1", Dir: traces.ClientToAgent, Frame: prompt, Sub: "s1"})
	l.Append(traces.Event{Kind: traces.KindKill, From: "a1#1", Note: evil}) // its label shows the note whole
	for range 30 {
		l.Append(traces.Event{Kind: traces.KindTimer, To: "c1", Note: "tick"})
	}
	l.Append(traces.Event{Kind: traces.KindDeliver, Link: link, From: "c1", To: "a1#1", Dir: traces.ClientToAgent, Frame: prompt, Sub: "s1"})
	l.Append(traces.Event{Kind: traces.KindSend, Link: link, From: "a1#1", To: "c1", Dir: traces.AgentToClient, Frame: evil})
	l.Append(traces.Event{Kind: traces.KindDrop, Link: link, From: "a1#1", To: "c1", Dir: traces.AgentToClient, Frame: evil, Note: "connection closed"})
	l.Append(traces.Event{Kind: traces.KindOutcome, Client: "c1", Sub: "s1", Outcome: traces.OutcomeUnknown})
	l.Append(traces.Event{Kind: traces.KindHeal})
	l.Append(traces.Event{Kind: traces.KindEnd, Note: "quiet"})
	page := render(t, l, Options{Name: evil, MaxEvents: 12})
	if m := modelOf(t, page); len(m.Anomalies) == 0 || m.Window == "" {
		t.Fatalf("want an anomaly and a cut window to draw, got %d anomalies, window %q", len(m.Anomalies), m.Window)
	}
	dom := dumpDOM(t, page, filepath.Join(t.TempDir(), "evil.html"))
	els := elements(dom)
	for _, e := range els {
		if e["tag"] == "img" || e["onerror"] != "" || e["onload"] != "" || e["data-pwned"] != "" {
			t.Errorf("markup from the trace became an element: %v", e)
		}
	}
	if n := strings.Count(dom, "<script"); n != 2 {
		t.Errorf("%d script elements in the DOM, want 2", n)
	}
	if !slices.ContainsFunc(els, func(e map[string]string) bool { return e["class"] == "gap" && e["data-cut"] != "" }) {
		t.Errorf("no gap row drawn for the cut events")
	}
	if !slices.ContainsFunc(els, func(e map[string]string) bool {
		return e["data-kind"] == "drop" && e["data-fault"] == "connection closed"
	}) {
		t.Errorf("no drop drawn with its note")
	}
	// The text is in the DOM as text (serialized escaped): the submit's
	// label, and the kill's, which shows its note whole.
	if !strings.Contains(dom, `submit s1 "&lt;/script&gt;&lt;img src=x`) || !strings.Contains(dom, "✝ &lt;/script&gt;&lt;img src=x onerror=") {
		t.Errorf("the submit's text is not shown as text")
	}
}

func seqOf(t *testing.T, e map[string]string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(e["data-seq"], 10, 64)
	if err != nil {
		t.Fatalf("data-seq %q: %v", e["data-seq"], err)
	}
	return n
}

var (
	startTag = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>/]+(?:="[^"]*")?)*)\s*/?>`)
	attr     = regexp.MustCompile(`([^\s=>/]+)(?:="([^"]*)")?`)
)

// elements lists the start tags of a serialized DOM with their attributes
// ("tag" holds the element's name). Chromium's serializer quotes every
// attribute value with " and escapes any " inside, which is all this needs.
func elements(dom string) []map[string]string {
	var out []map[string]string
	for _, m := range startTag.FindAllStringSubmatch(dom, -1) {
		e := map[string]string{"tag": strings.ToLower(m[1])}
		for _, a := range attr.FindAllStringSubmatch(m[2], -1) {
			e[a[1]] = html.UnescapeString(a[2])
		}
		out = append(out, e)
	}
	return out
}
