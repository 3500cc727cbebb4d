package view

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
)

// demoDir, when set (make view-demo), is where the browser test also
// leaves its page as view-demo.html.
var demoDir = flag.String("demo", "", "write the duplicate's page to DIR/view-demo.html (make view-demo)")

// duplicateTrace is a small simulated run in which a naive Client (no key)
// duplicates a prompt: the Agent is killed after inserting the second
// prompt and before answering it, and the Client resends it to the restarted
// Agent. The kill is planned, not drawn, so the run does not depend on a
// seed's fault schedule.
func duplicateTrace(t testing.TB) (*traces.Log, *properties.Report) {
	t.Helper()
	cfg := world.DefaultConfig()
	cfg.Policy, cfg.Prompts, cfg.Sessions = "naive", 2, 1
	cfg.Command = "(view test: naive Client, Agent killed before respond-prompt of the second prompt)"
	cfg.Chooser = sim.NewPlan([]sim.PlannedFault{{Kind: netfault.Kill, Match: "/respond-prompt", Nth: 1, Option: 1}})
	res, err := world.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rep := properties.Check(res.Log.Header, res.Log.Events)
	if len(rep.Anomalies) != 1 || rep.Anomalies[0].Kind != properties.Duplicate || rep.Anomalies[0].Sub == "" {
		t.Fatalf("the planned kill should give one duplicate of one submission, got %+v", rep.Anomalies)
	}
	return res.Log, rep
}

func render(t testing.TB, log *traces.Log, opt Options) string {
	t.Helper()
	var b bytes.Buffer
	if _, err := Render(&b, log, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// modelOf reads back the JSON model a page carries.
func modelOf(t testing.TB, page string) *model {
	t.Helper()
	const open = `<script type="application/json" id="model">`
	_, rest, ok := strings.Cut(page, open)
	if !ok {
		t.Fatalf("no model element in the page")
	}
	body, _, ok := strings.Cut(rest, "</script>")
	if !ok {
		t.Fatalf("model element not closed")
	}
	var m model
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("model is not JSON: %v", err)
	}
	return &m
}

// The page stands alone: no URL it would fetch, the script and the styles
// inline, one model element.
func TestPageIsSelfContained(t *testing.T) {
	log, _ := duplicateTrace(t)
	page := render(t, log, Options{Name: "dup.ndjson"})
	for _, bad := range []string{"http://", "https://", "src=", "<link", "@import", "url("} {
		if i := strings.Index(page, bad); i >= 0 && !strings.Contains(page[max(i-40, 0):i], "xmlns") &&
			!strings.HasPrefix(page[i:], "http://www.w3.org/2000/svg") {
			t.Errorf("page refers to something outside it: %q", page[max(i-40, 0):min(i+40, len(page))])
		}
	}
	for _, want := range []string{"<!DOCTYPE html>", "<title>acpsim view: dup.ndjson</title>", `<script type="application/json" id="model">`, "JSON.parse"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page, "<script"); n != 2 {
		t.Errorf("%d script elements, want 2 (the model and the drawing code)", n)
	}
}

// A frame, a prompt text or a file name that holds markup stays text: the
// model's JSON has no raw <, so nothing closes the script element early,
// and the title is escaped.
func TestMarkupInTheTraceCannotBreakOut(t *testing.T) {
	evil := `</script><img src=x onerror="alert(1)"><!-- & ]]> ` + "\u2028"
	l := &traces.Log{Header: traces.Header{Format: 1, Contract: traces.Contract{Retention: "all"}}}
	l.Append(traces.Event{Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: evil})
	l.Append(traces.Event{Kind: traces.KindConnect, Link: "c1:a1#1", From: "c1", To: "a1#1"})
	prompt := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"S","prompt":[{"type":"text","text":%q}],"idempotencyKey":%q}}`, evil, evil)
	l.Append(traces.Event{Kind: traces.KindSend, Link: "c1:a1#1", From: "c1", To: "a1#1", Dir: traces.ClientToAgent, Frame: prompt, Sub: "s1"})
	l.Append(traces.Event{Kind: traces.KindSend, Link: "c1:a1#1", From: "a1#1", To: "c1", Dir: traces.AgentToClient, Frame: evil})
	l.Append(traces.Event{Kind: traces.KindEnd, Note: "quiet"})
	page := render(t, l, Options{Name: `<b>x</b>.ndjson`})

	if n := strings.Count(page, "</script>"); n != 2 {
		t.Errorf("%d </script> in the page, want 2: the trace's text closed a script element", n)
	}
	for _, bad := range []string{"<img", "<!--", "<b>", "\u2028"} {
		if strings.Contains(page, bad) {
			t.Errorf("page holds %q raw", bad)
		}
	}
	if !strings.Contains(page, "<title>acpsim view: &lt;b&gt;x&lt;/b&gt;.ndjson</title>") {
		t.Errorf("title not escaped")
	}
	// The text survives, as text: the model gives it back unchanged.
	m := modelOf(t, page)
	if got := m.Subs[0].Text; got != evil {
		t.Errorf("submission text %q, want %q", got, evil)
	}
	if got := m.Rows[2].Key; got != evil {
		t.Errorf("key %q, want %q", got, evil)
	}
	if !strings.Contains(m.Rows[3].Detail, evil) || m.Rows[3].Label != "(not a JSON object)" {
		t.Errorf("a frame that is not JSON: label %q, detail %q", m.Rows[3].Label, m.Rows[3].Detail)
	}
	// The script never turns model text into markup.
	js, _ := assets.ReadFile("assets/view.js")
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("} {
		if bytes.Contains(js, []byte(bad)) {
			t.Errorf("view.js uses %s", bad)
		}
	}
}

// The model of the duplicate: lanes in the system's order, frames paired,
// responses and messages attributed to the submission, the kill and the
// decision marked as faults, and the anomaly on the events it cites and on
// both insertions.
func TestModelOfADuplicate(t *testing.T) {
	log, rep := duplicateTrace(t)
	m := modelOf(t, render(t, log, Options{MaxEvents: 0}))
	dup := rep.Anomalies[0]

	var names []string
	for _, l := range m.Lanes {
		names = append(names, l.Name+"/"+l.Kind)
	}
	want := []string{"c1/client", "c1:a1#1/link", "c1:a1#2/link", "a1#1/agent", "a1#2/agent", "a1#3/agent", "observer:a1#3/link", "observer/client"}
	if !slices.Equal(names, want) {
		t.Errorf("lanes %v, want %v", names, want)
	}
	if m.Shown != len(log.Events) || m.Total != len(log.Events) || m.Window != "" {
		t.Errorf("shown %d of %d, window %q: want every event", m.Shown, m.Total, m.Window)
	}
	if m.Focus != dup.Events[0] {
		t.Errorf("focus %d, want the anomaly's first event %d", m.Focus, dup.Events[0])
	}

	bySeq := map[int64]row{}
	for _, r := range m.Rows {
		bySeq[r.Seq] = r
	}
	var inserts, kills []row
	for _, r := range m.Rows {
		switch {
		case r.Kind == traces.KindInsert && r.Sub == dup.Sub:
			inserts = append(inserts, r)
		case r.Kind == traces.KindKill && r.Fault != "":
			kills = append(kills, r)
		}
		if r.Kind == traces.KindSend {
			p, ok := bySeq[r.Pair]
			if r.Pair != 0 && (!ok || p.Pair != r.Seq || p.Kind == traces.KindSend) {
				t.Errorf("send %d paired with %d (%+v)", r.Seq, r.Pair, p)
			}
		}
	}
	if len(inserts) != 2 || inserts[0].Msg == inserts[1].Msg {
		t.Fatalf("want two insertions of %s with distinct messageIds, got %+v", dup.Sub, inserts)
	}
	for _, r := range inserts {
		if len(r.Anoms) != 1 || r.Anoms[0] != 0 {
			t.Errorf("insert %d not marked with the duplicate: %v", r.Seq, r.Anoms)
		}
	}
	if len(kills) != 1 || kills[0].Fault != "killed before respond-prompt" || kills[0].Seq < inserts[0].Seq || kills[0].Seq > inserts[1].Seq ||
		m.Lanes[kills[0].Lane].Name != m.Lanes[inserts[0].Lane].Name {
		t.Errorf("want the kill before the response between the insertions, on the first inserting process: kills %+v, inserts %+v", kills, inserts)
	}
	for _, s := range dup.Events {
		r, ok := bySeq[s]
		if !ok || !slices.Contains(r.Anoms, 0) {
			t.Errorf("cited event %d not marked", s)
		}
	}
	// Every response to one of the submission's requests names it, and so
	// does every frame carrying one of its messages.
	for _, r := range m.Rows {
		if r.Class == "response" && r.Msg != "" && slices.ContainsFunc(inserts, func(i row) bool { return i.Msg == r.Msg }) && r.Sub != dup.Sub {
			t.Errorf("response %d names %s but is attributed to %q", r.Seq, r.Msg, r.Sub)
		}
	}
	var choose bool
	for _, r := range m.Rows {
		if r.Kind == traces.KindChoose && r.Fault == netfault.Kill {
			choose = m.Lanes[r.Lane].Name == "a1#1"
		}
	}
	if !choose {
		t.Errorf("the kill decision is not on a1#1 with data-fault kill")
	}
}

// Frames whose text is a prompt, a response, an update or a batch get short
// labels; a prompt's names its session and the first 12 characters of its
// key; a key that is not a string is not shown as one.
func TestFrameLabels(t *testing.T) {
	for _, tc := range []struct{ frame, label, class, msg, key string }{
		{`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"S","prompt":[],"idempotencyKey":"k-123456789"}}`, "session/prompt #4 key k-123456789 session S", "prompt", "", "k-123456789"},
		{`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"663bc778-b265-4695","prompt":[],"idempotencyKey":"😃😃😌😏😃😁😋😁😐😊😍😄😂😐😄"}}`, "session/prompt #4 key 😃😃😌😏😃😁😋😁😐😊😍😄… session 663bc778…", "prompt", "", "😃😃😌😏😃😁😋😁😐😊😍😄😂😐😄"},
		{`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"S","prompt":[],"idempotencyKey":5}}`, "session/prompt #4 key  session S", "prompt", "", ""},
		{`{"jsonrpc":"2.0","id":4,"result":{"messageId":"0123456789abcdef"}}`, "result #4 messageId 01234567…", "response", "0123456789abcdef", ""},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"bad"}}`, `error #"x" -32602`, "response", "", ""},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"user_message","messageId":"m1"}}}`, "update user_message m1", "user-message", "m1", ""},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"state_update","state":"idle"}}}`, "update state_update idle", "update", "", ""},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "initialize #1", "other", "", ""},
		{`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b"}]`, "batch of 2", "other", "", ""},
		{`{"jsonrpc":`, "(not a JSON object)", "other", "", ""},
	} {
		f := parseFrame(tc.frame)
		label, class := frameLabel(f)
		if label != tc.label || class != tc.class || f.msg != tc.msg || f.key != tc.key {
			t.Errorf("%s: got %q %q msg %q key %q, want %q %q msg %q key %q", tc.frame, label, class, f.msg, f.key, tc.label, tc.class, tc.msg, tc.key)
		}
	}
}

// Lanes follow the system, whatever order the events name them in: each
// Client with its links, its Agent's endpoint and processes (by
// incarnation), the observer's links after them, the observer last.
func TestLaneOrder(t *testing.T) {
	ls := newLaneSet()
	for _, n := range []string{"observer", "observer:a2#3", "a2#3", "a1#10", "c2:ws#1", "c2", "a1#2", "c1:a1#2", "a2", "c1", "proxy-x", "c1:http#1"} {
		ls.add(n, nameKind(n))
	}
	ls.order()
	var got []string
	for _, l := range ls.lanes {
		got = append(got, l.Name)
	}
	want := []string{"c1", "c1:a1#2", "c1:http#1", "a1#2", "a1#10", "c2", "c2:ws#1", "a2", "a2#3", "observer:a2#3", "proxy-x", "observer"}
	if !slices.Equal(got, want) {
		t.Errorf("lanes %v\nwant  %v", got, want)
	}
	ls.links = []laneAt{{"c1:http#1", 3}, {"c1:http#5", 40}}
	ls.at["c1:http#5"] = 99
	for _, tc := range []struct {
		site string
		at   int
		want int
	}{
		{"a1#2/14/respond-prompt", 0, ls.index("a1#2")},
		{"c1:a1#2/a2c/7", 0, ls.index("c1:a1#2")},
		{"c1:http/post/4", 10, ls.index("c1:http#1")},
		{"c1:http/post/9", 50, 99},
		{"c1/step/3", 0, ls.index("c1")},
		{"extra/1", 0, -1},
	} {
		if got := ls.siteLane(tc.site, tc.at); got != tc.want {
			t.Errorf("siteLane(%q, %d) = %d, want %d", tc.site, tc.at, got, tc.want)
		}
	}
}

// A long trace is cut to the window around the first anomaly's events: at
// most MaxEvents shown, every cited event among them, the rest as gap rows
// that say how much was cut; MaxEvents 0 shows everything.
func TestWindowAroundTheFirstAnomaly(t *testing.T) {
	log, _ := duplicateTrace(t)
	// Pad the run with quiet timer events before and after, as a long run
	// would have, keeping the seqs consecutive.
	long := &traces.Log{Header: log.Header}
	pad := func(n int) {
		for range n {
			long.Append(traces.Event{Kind: traces.KindTimer, To: "c1", Note: "tick"})
		}
	}
	pad(700)
	for _, e := range log.Events {
		long.Append(e)
	}
	pad(900)
	rep := properties.Check(long.Header, long.Events)
	if len(rep.Anomalies) == 0 {
		t.Fatal("padding lost the anomaly")
	}
	for _, max := range []int{400, 60, 12} {
		m := modelOf(t, render(t, long, Options{MaxEvents: max}))
		if m.Shown > max || m.Total != len(long.Events) {
			t.Errorf("max %d: shown %d of %d", max, m.Shown, m.Total)
		}
		shown, cut := map[int64]bool{}, 0
		for _, r := range m.Rows {
			if r.Cut > 0 {
				cut += r.Cut
				if r.CutTo-r.CutFrom+1 != int64(r.Cut) {
					t.Errorf("max %d: gap %d–%d says %d", max, r.CutFrom, r.CutTo, r.Cut)
				}
			} else {
				shown[r.Seq] = true
			}
		}
		if cut+m.Shown != m.Total {
			t.Errorf("max %d: %d shown + %d cut != %d", max, m.Shown, cut, m.Total)
		}
		for _, s := range rep.Anomalies[0].Events {
			if !shown[s] {
				t.Errorf("max %d: cited event %d cut", max, s)
			}
		}
		if !strings.Contains(m.Window, fmt.Sprintf("of %d events shown", m.Total)) || !strings.Contains(m.Window, "--max-events") {
			t.Errorf("max %d: window note %q", max, m.Window)
		}
		if max == 400 && m.Shown < 390 {
			t.Errorf("max 400: only %d shown: the window should use its room", m.Shown)
		}
	}
	if m := modelOf(t, render(t, long, Options{})); m.Shown != m.Total || m.Window != "" {
		t.Errorf("MaxEvents 0: shown %d of %d, note %q", m.Shown, m.Total, m.Window)
	}
	// Without an anomaly the window is the start of the run.
	quiet := &traces.Log{Header: log.Header}
	for range 50 {
		quiet.Append(traces.Event{Kind: traces.KindTimer, To: "c1", Note: "tick"})
	}
	m := modelOf(t, render(t, quiet, Options{MaxEvents: 10}))
	if m.Shown != 10 || m.Rows[0].Seq != 1 || m.Rows[10].Cut != 40 || !strings.Contains(m.Window, "no anomaly") {
		t.Errorf("no anomaly: shown %d, rows %+v, note %q", m.Shown, m.Rows[:min(len(m.Rows), 11)], m.Window)
	}
}

// A dropped response is paired with its send, drawn on the link with the
// drop's note as its fault, and belongs to the submission whose request it
// answers.
func TestDroppedResponseIsAFaultOfItsSubmission(t *testing.T) {
	l := &traces.Log{Header: traces.Header{Format: 1, Contract: traces.Contract{Retention: "all"}}}
	link := "c1:a1#1"
	frame := func(kind, dir, f, sub, note string) {
		from, to := "c1", "a1#1"
		if dir == traces.AgentToClient {
			from, to = to, from
		}
		l.Append(traces.Event{Kind: kind, Link: link, From: from, To: to, Dir: dir, Frame: f, Sub: sub, Note: note})
	}
	req := `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"S","prompt":[],"idempotencyKey":"K1"}}`
	resp := `{"jsonrpc":"2.0","id":7,"result":{"messageId":"M1"}}`
	l.Append(traces.Event{Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: "hi"})
	l.Append(traces.Event{Kind: traces.KindConnect, Link: link, From: "c1", To: "a1#1"})
	frame(traces.KindSend, traces.ClientToAgent, req, "s1", "")
	frame(traces.KindDeliver, traces.ClientToAgent, req, "s1", "")
	frame(traces.KindSend, traces.AgentToClient, resp, "", "")
	l.Append(traces.Event{Kind: traces.KindChoose, Decision: "cut", Site: link + "/a2c/1", Option: 1})
	frame(traces.KindDrop, traces.AgentToClient, resp, "", "cut")
	l.Append(traces.Event{Kind: traces.KindDisconnect, Link: link, Note: "cut"})
	l.Append(traces.Event{Kind: traces.KindEnd, Note: "cap"})
	m := modelOf(t, render(t, l, Options{}))
	send, drop, choose := m.Rows[4], m.Rows[6], m.Rows[5]
	if send.Pair != drop.Seq || drop.Pair != send.Seq {
		t.Errorf("send %d ↔ %d, drop %d ↔ %d", send.Seq, send.Pair, drop.Seq, drop.Pair)
	}
	if drop.Fault != "cut" || drop.Sub != "s1" || drop.Msg != "M1" || m.Lanes[drop.Lane].Name != link || m.Lanes[drop.Peer].Name != "a1#1" {
		t.Errorf("drop row %+v", drop)
	}
	if choose.Fault != "cut" || m.Lanes[choose.Lane].Name != link {
		t.Errorf("choose row %+v", choose)
	}
	if r := m.Rows[2]; r.Key != "K1" || r.Sub != "s1" || r.Class != "prompt" {
		t.Errorf("request row %+v", r)
	}
	if s := m.Subs[0]; s.Outcome != outcomeNone || s.Key != "K1" || s.First != 1 || s.Last != 7 {
		t.Errorf("submission %+v", s)
	}
}
