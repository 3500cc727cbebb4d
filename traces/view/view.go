// Package view renders one trace as a self-contained HTML page: a sequence
// diagram with a lane per Client, per link and per Agent process, frames as
// arrows from sender to receiver, faults, kills and restarts inline, each
// submission's life coloured by its outcome and the anomalies the checker
// found marked on the events they cite (issue 7, "View").
//
// The page needs no network: the template, the CSS and the script are
// embedded, and the trace reaches the page as one JSON model in a
// <script type="application/json"> element, escaped by html/template. The
// script draws the diagram from that model; every element it draws for an
// event carries data- attributes (see Render) so a test can check the page
// after the script ran, in a headless browser.
//
// Go does the reading (pairing frames, attributing them to submissions,
// choosing the window) and the script only draws, so what the page shows is
// decided by code the unit tests reach without a browser.
package view

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

// DefaultMaxEvents is the size cap acpsim view uses unless told otherwise: a
// page with more rows than this is slow to draw and hard to read.
const DefaultMaxEvents = 400

//go:embed assets/page.html.tmpl assets/view.css assets/view.js
var assets embed.FS

var page = template.Must(template.New("page.html.tmpl").ParseFS(assets, "assets/page.html.tmpl"))

// Options say what to show.
type Options struct {
	// Name is the trace's file name, shown in the page's title.
	Name string
	// MaxEvents caps the events shown: a longer trace is cut to the window
	// around the first anomaly's events. 0 shows every event.
	MaxEvents int
}

// Render writes the page for log, judged by properties.Check.
//
// The data- attributes the page's elements carry (set by its script):
//
//	data-seq         the event's seq (every event element)
//	data-kind        the event's kind: send, deliver, drop, kill, insert, …
//	data-lane        the lane the event is drawn on (c1, c1:a1#1, a1#2, …)
//	data-submission  the submission the event belongs to ("s3"): its submit
//	                 and outcome, its prompt requests, their responses and
//	                 the messages attributed to it
//	data-key         the idempotencyKey a prompt request carries
//	data-msg         the messageId of an insert, a user_message update, a
//	                 prompt response or an inserted outcome
//	data-fault       the decision kind of a choose event, the note of a
//	                 drop, the note of a kill that was not an orderly exit
//	data-anomaly     the kinds (space-separated) of the anomalies that cite
//	                 the event; for a duplicate, also the insert events of
//	                 the duplicated submission's messages
//	data-outcome     on submission bars and list items: inserted, failed,
//	                 unknown, abandoned or none
//
// Gap rows (events cut by the window) carry data-cut (how many); the
// bracket joining a duplicate's copies carries data-anomaly and
// data-submission; <body data-ready="true"> says the script ran to its end.
func Render(w io.Writer, log *traces.Log, opt Options) (*Summary, error) {
	rep := properties.Check(log.Header, log.Events)
	m := build(log, rep, opt)
	css, err := assets.ReadFile("assets/view.css")
	if err != nil {
		return nil, err
	}
	js, err := assets.ReadFile("assets/view.js")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = page.Execute(&buf, struct {
		Title string
		CSS   template.CSS
		JS    template.JS
		Model *model
	}{m.Title, template.CSS(css), template.JS(js), m})
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return nil, err
	}
	return &Summary{Shown: m.Shown, Total: m.Total, Verdict: m.Verdict, Window: m.Window}, nil
}

// Summary says what a page shows.
type Summary struct {
	Shown, Total int
	// Verdict is the checker's verdict in one line ("FAIL: 1 duplicate").
	Verdict string
	// Window says what the window cut, "" when every event is shown.
	Window string
}

// model is what the page's script draws, as JSON.
type model struct {
	Title     string      `json:"title"`
	Run       runInfo     `json:"run"`
	Verdict   string      `json:"verdict"`
	OK        bool        `json:"ok"`
	Window    string      `json:"window"` // what the window shows and what it cut, "" when nothing was cut
	Total     int         `json:"total"`
	Shown     int         `json:"shown"`
	Focus     int64       `json:"focus"` // the seq to scroll to first: the first anomaly's first shown event
	Lanes     []lane      `json:"lanes"`
	Rows      []row       `json:"rows"`
	Subs      []subInfo   `json:"subs"`
	Anomalies []anomInfo  `json:"anomalies"`
	Legend    []legendRow `json:"legend"`
}

type runInfo struct {
	Seed     uint64 `json:"seed"`
	Source   string `json:"source"`
	Policy   string `json:"policy"`
	Agent    string `json:"agent"`
	Link     string `json:"link"`
	Command  string `json:"command"`
	Observed string `json:"observed"`
}

type lane struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // client, link, agent, other
}

// row is one event, or a gap where the window cut events (Cut > 0).
type row struct {
	Cut     int    `json:"cut,omitempty"`
	CutFrom int64  `json:"cutFrom,omitempty"`
	CutTo   int64  `json:"cutTo,omitempty"`
	Seq     int64  `json:"seq,omitempty"`
	Time    string `json:"time,omitempty"`
	Kind    string `json:"kind,omitempty"`
	// Lane is where the event's mark is, -1 for events of the whole run
	// (heal, end) and for faults no lane owns.
	Lane int `json:"lane"`
	// Peer is the other end of a frame: the receiver of a send or drop, the
	// sender of a deliver; -1 when none.
	Peer int `json:"peer"`
	// Via is a frame's link lane (a drop is drawn there), -1 when none.
	Via int `json:"via"`
	// Pair is the seq of the other half of a frame's journey: a send's
	// deliver or drop, a deliver's or drop's send; 0 when there is none.
	Pair    int64  `json:"pair,omitempty"`
	Label   string `json:"label"`
	Detail  string `json:"detail"`
	Class   string `json:"class,omitempty"` // prompt, response, user-message, update, other (frames only)
	Sub     string `json:"sub,omitempty"`
	Outcome string `json:"outcome,omitempty"` // the outcome of Sub, for colour
	Key     string `json:"key,omitempty"`
	Msg     string `json:"msg,omitempty"`
	Fault   string `json:"fault,omitempty"`
	Anoms   []int  `json:"anoms,omitempty"` // indexes into model.Anomalies
}

type subInfo struct {
	Sub       string   `json:"sub"`
	Client    string   `json:"client"`
	Text      string   `json:"text"`
	Key       string   `json:"key"`
	Mixed     bool     `json:"mixed"`
	Attempts  int      `json:"attempts"`
	Outcome   string   `json:"outcome"` // "none" when the Client never told its user
	MessageID string   `json:"messageId"`
	Copies    int      `json:"copies"` // messages of the final transcript attributed to it
	Anomalies []string `json:"anomalies"`
	First     int64    `json:"first"` // seqs of its first and last event
	Last      int64    `json:"last"`
}

type anomInfo struct {
	Kind        string  `json:"kind"`
	Sub         string  `json:"sub"`
	Explanation string  `json:"explanation"`
	Events      []int64 `json:"events"` // the seqs the checker cites
	Shown       int     `json:"shown"`  // how many of them the window shows
}

type legendRow struct {
	Class string `json:"class"`
	Text  string `json:"text"`
}

// outcomeNone is the colour class of a submission without an outcome.
const outcomeNone = "none"

func build(log *traces.Log, rep *properties.Report, opt Options) *model {
	evs := log.Events
	h := log.Header
	m := &model{
		Title: "acpsim view",
		Run: runInfo{Seed: h.Seed, Source: h.Source, Policy: h.Policy, Agent: h.Agent, Link: h.Link,
			Command: h.Command, Observed: h.Observed},
		OK:    rep.OK(),
		Total: len(evs),
		Subs:  []subInfo{},
		Lanes: []lane{},
		Rows:  []row{},
	}
	if opt.Name != "" {
		m.Title = "acpsim view: " + opt.Name
	}
	m.Verdict = verdict(rep)

	a := attribute(evs, rep)
	m.Anomalies = make([]anomInfo, len(rep.Anomalies))
	for i, an := range rep.Anomalies {
		m.Anomalies[i] = anomInfo{Kind: an.Kind, Sub: an.Sub, Explanation: an.Explanation, Events: an.Events}
		if m.Anomalies[i].Events == nil {
			m.Anomalies[i].Events = []int64{}
		}
	}
	cited := citations(evs, rep, a)

	keep, note := window(evs, rep, opt.MaxEvents)
	m.Window = note
	lanes := newLaneSet()
	for i := range evs {
		if keep[i] {
			lanes.noteEvent(&evs[i], i)
		}
	}
	lanes.order()
	m.Lanes = lanes.lanes

	outcome := map[string]string{}
	for _, s := range rep.Submissions {
		o := s.Outcome
		if o == "" {
			o = outcomeNone
		}
		outcome[s.Sub] = o
	}
	var cutFrom int64 // first seq of the gap being collected, 0 when none
	cut := 0
	flush := func(to int64) {
		if cut > 0 {
			m.Rows = append(m.Rows, row{Cut: cut, CutFrom: cutFrom, CutTo: to, Lane: -1, Peer: -1, Via: -1})
		}
		cut, cutFrom = 0, 0
	}
	for i := range evs {
		e := &evs[i]
		if !keep[i] {
			if cut == 0 {
				cutFrom = e.Seq
			}
			cut++
			continue
		}
		if cut > 0 {
			flush(evs[i-1].Seq)
		}
		r := a.row(e, i, lanes)
		r.Outcome = outcome[r.Sub]
		r.Anoms = cited[e.Seq]
		m.Rows = append(m.Rows, r)
		m.Shown++
	}
	if cut > 0 {
		flush(evs[len(evs)-1].Seq)
	}

	shown := map[int64]bool{}
	for _, r := range m.Rows {
		if r.Cut == 0 {
			shown[r.Seq] = true
		}
	}
	for i := range m.Anomalies {
		for _, s := range m.Anomalies[i].Events {
			if shown[s] {
				m.Anomalies[i].Shown++
				if m.Focus == 0 && i == 0 {
					m.Focus = s
				}
			}
		}
	}
	for _, s := range rep.Submissions {
		o := outcome[s.Sub]
		an := s.Anomalies
		if an == nil {
			an = []string{}
		}
		span := a.span[s.Sub]
		m.Subs = append(m.Subs, subInfo{Sub: s.Sub, Client: s.Client, Text: s.Text, Key: s.Key, Mixed: s.Mixed,
			Attempts: s.Attempts, Outcome: o, MessageID: s.MessageID, Copies: len(s.Transcript),
			Anomalies: an, First: span[0], Last: span[1]})
	}
	m.Legend = []legendRow{
		{"o-inserted", "inserted"}, {"o-failed", "failed"}, {"o-unknown", "unknown"},
		{"o-abandoned", "abandoned"}, {"o-none", "no outcome"},
	}
	return m
}

func verdict(rep *properties.Report) string {
	if rep.OK() {
		if rep.Inconclusive {
			return "inconclusive: the run stopped while still busy; no anomaly found"
		}
		return "PASS: every submission inserted at most once and never silently lost"
	}
	n := map[string]int{}
	var kinds []string
	for _, a := range rep.Anomalies {
		if n[a.Kind] == 0 {
			kinds = append(kinds, a.Kind)
		}
		n[a.Kind]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", n[k], k)
	}
	return "FAIL: " + strings.Join(parts, ", ")
}

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

// citations maps each seq to the anomalies (indexes) that cite it. A
// duplicate also marks the insert events of its submission's messages: the
// checker never cites them (they are the simulator's notes, not evidence)
// but they are where the message went in twice.
func citations(evs []traces.Event, rep *properties.Report, a *attribution) map[int64][]int {
	cited := map[int64][]int{}
	add := func(seq int64, i int) {
		if !slices.Contains(cited[seq], i) {
			cited[seq] = append(cited[seq], i)
		}
	}
	for i, an := range rep.Anomalies {
		for _, s := range an.Events {
			add(s, i)
		}
		if an.Kind != properties.Duplicate || an.Sub == "" {
			continue
		}
		for j := range evs {
			if e := &evs[j]; e.Kind == traces.KindInsert && a.msgSub[e.MessageID] == an.Sub {
				add(e.Seq, i)
			}
		}
	}
	return cited
}

// frame is what the page needs to know of one JSON-RPC frame.
type frame struct {
	ok      bool   // it parsed as a JSON object
	batch   int    // elements of a batch
	id      string // the id as JSON, "" when none
	method  string
	result  bool
	errCode int
	errMsg  string
	msg     string // result.messageId, or the messageId of a user_message update
	update  string // params.update.sessionUpdate
	state   string // params.update.state
	key     string // params.idempotencyKey when it is a string
	hasKey  bool
}

func parseFrame(s string) frame {
	var f frame
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "[") {
		var arr []json.RawMessage
		if json.Unmarshal([]byte(t), &arr) == nil {
			f.batch = len(arr)
		}
		return f
	}
	var raw struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
		Params struct {
			Key    json.RawMessage `json:"idempotencyKey"`
			Update struct {
				Kind      string `json:"sessionUpdate"`
				MessageID string `json:"messageId"`
				State     string `json:"state"`
			} `json:"update"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(t), &raw) != nil {
		return f
	}
	f.ok = true
	if len(raw.ID) > 0 && string(raw.ID) != "null" {
		f.id = string(raw.ID)
	}
	f.method = raw.Method
	if len(raw.Result) > 0 {
		f.result = true
		var res struct {
			MessageID string `json:"messageId"`
		}
		if json.Unmarshal(raw.Result, &res) == nil {
			f.msg = res.MessageID
		}
	}
	if raw.Error != nil {
		f.errCode, f.errMsg = raw.Error.Code, raw.Error.Message
	}
	if len(raw.Params.Key) > 0 {
		f.hasKey = true
		_ = json.Unmarshal(raw.Params.Key, &f.key) // a malformed key (a number, an object) stays ""
	}
	f.update, f.state = raw.Params.Update.Kind, raw.Params.Update.State
	if f.update == "user_message" {
		f.msg = raw.Params.Update.MessageID
	}
	return f
}

// attribution ties events to submissions: prompt requests carry their Sub,
// responses are matched to requests by link and JSON-RPC id, messages to
// submissions by the messageIds the checker attributed.
type attribution struct {
	frames map[int64]frame     // by seq, for send, deliver and drop
	reqSub map[string]string   // link + " " + id of a prompt request → sub
	msgSub map[string]string   // messageId → sub
	pair   map[int64]int64     // send ↔ its deliver or drop
	span   map[string][2]int64 // sub → first and last seq
	subOf  map[int64]string    // seq → sub
}

func attribute(evs []traces.Event, rep *properties.Report) *attribution {
	a := &attribution{frames: map[int64]frame{}, reqSub: map[string]string{}, msgSub: map[string]string{},
		pair: map[int64]int64{}, span: map[string][2]int64{}, subOf: map[int64]string{}}
	for _, s := range rep.Submissions {
		for _, id := range append(append([]string{s.MessageID}, s.Answered...), s.Transcript...) {
			if id != "" {
				if _, taken := a.msgSub[id]; !taken {
					a.msgSub[id] = s.Sub
				}
			}
		}
	}
	// A link delivers its frames in the order they were sent, one direction
	// at a time; identical frames are told apart by that order.
	inFlight := map[string][]int64{}
	for i := range evs {
		e := &evs[i]
		switch e.Kind {
		case traces.KindSend, traces.KindDeliver, traces.KindDrop:
		default:
			continue
		}
		f := parseFrame(e.Frame)
		a.frames[e.Seq] = f
		q := e.Link + "\x00" + e.Dir + "\x00" + e.Frame
		if e.Kind == traces.KindSend {
			inFlight[q] = append(inFlight[q], e.Seq)
		} else if sent := inFlight[q]; len(sent) > 0 {
			a.pair[e.Seq], a.pair[sent[0]] = sent[0], e.Seq
			inFlight[q] = sent[1:]
		}
	}
	for i := range evs {
		e := &evs[i]
		sub := a.sub(e)
		if sub == "" {
			continue
		}
		a.subOf[e.Seq] = sub
		sp, ok := a.span[sub]
		if !ok {
			sp[0] = e.Seq
		}
		sp[1] = e.Seq
		a.span[sub] = sp
	}
	return a
}

// sub is the submission e belongs to, "" when none. Called in seq order: a
// request is seen before its response.
func (a *attribution) sub(e *traces.Event) string {
	switch e.Kind {
	case traces.KindSubmit, traces.KindOutcome:
		return e.Sub
	case traces.KindInsert:
		return a.msgSub[e.MessageID]
	case traces.KindSend, traces.KindDeliver, traces.KindDrop:
		f := a.frames[e.Seq]
		if e.Sub != "" {
			if f.id != "" && f.method != "" {
				a.reqSub[e.Link+" "+f.id] = e.Sub
			}
			return e.Sub
		}
		if e.Dir == traces.AgentToClient && f.method == "" && f.id != "" {
			if s := a.reqSub[e.Link+" "+f.id]; s != "" {
				return s
			}
		}
		if f.msg != "" {
			return a.msgSub[f.msg]
		}
	}
	return ""
}

// row turns event i into a row of the page.
func (a *attribution) row(e *traces.Event, i int, ls *laneSet) row {
	r := row{Seq: e.Seq, Kind: e.Kind, Time: ms(e.T), Lane: -1, Peer: -1, Via: -1, Sub: a.subOf[e.Seq]}
	switch e.Kind {
	case traces.KindSend, traces.KindDeliver, traces.KindDrop:
		f := a.frames[e.Seq]
		r.Pair = a.pair[e.Seq]
		r.Via = ls.index(e.Link)
		switch e.Kind {
		case traces.KindSend:
			r.Lane, r.Peer = ls.index(e.From), ls.index(e.To)
		case traces.KindDeliver:
			r.Lane, r.Peer = ls.index(e.To), ls.index(e.From)
		case traces.KindDrop:
			r.Lane, r.Peer = ls.index(e.Link), ls.index(e.From)
			r.Fault = e.Note
		}
		r.Label, r.Class = frameLabel(f)
		if f.hasKey {
			r.Key = f.key
		}
		if f.msg != "" && (f.result || f.update == "user_message") {
			r.Msg = f.msg
		}
		if e.Kind == traces.KindDrop {
			r.Label = "✕ " + e.Note + ": " + r.Label
		}
		if e.Sub != "" && r.Class == "prompt" {
			r.Label += " · " + e.Sub
		}
		if e.Note != "" && e.Kind == traces.KindDeliver {
			r.Label += " (" + e.Note + ")"
		}
		r.Detail = fmt.Sprintf("seq %d · %s · %s %s → %s on %s (%s)", e.Seq, r.Time, e.Kind, e.From, e.To, e.Link, e.Dir)
		if e.Note != "" {
			r.Detail += " · " + e.Note
		}
		r.Detail += "\n" + pretty(e.Frame)
	case traces.KindSubmit:
		r.Lane = ls.index(e.Client)
		r.Label = fmt.Sprintf("submit %s %q", e.Sub, clip(e.Text, 40))
	case traces.KindOutcome:
		r.Lane = ls.index(e.Client)
		r.Label = e.Sub + " → user: " + e.Outcome
		if e.MessageID != "" {
			r.Label += " " + short(e.MessageID)
			r.Msg = e.MessageID
		}
	case traces.KindConnect:
		r.Lane = ls.index(e.Link)
		r.Label = "connect " + e.From + " ⇄ " + e.To
	case traces.KindDisconnect:
		r.Lane = ls.index(e.Link)
		r.Label = "link ended"
		if e.Note != "" {
			r.Label += ": " + e.Note
		}
	case traces.KindKill:
		r.Lane = ls.index(e.From)
		r.Label = "✝ " + e.Note
		if e.LostUnsynced {
			r.Label += " (unsynced writes lost)"
		}
		if !strings.HasPrefix(e.Note, "exit") {
			r.Fault = e.Note
		}
	case traces.KindRestart:
		r.Lane = ls.index(e.From)
		r.Label = "▶ " + e.From + " started"
	case traces.KindInsert:
		r.Lane = ls.index(e.From)
		r.Msg = e.MessageID
		r.Label = fmt.Sprintf("insert %s %q", short(e.MessageID), clip(e.Text, 30))
	case traces.KindChoose:
		r.Lane = ls.siteLane(e.Site, i)
		r.Fault = e.Decision
		r.Label = fmt.Sprintf("⚡ %s (option %d) at %s", e.Decision, e.Option, e.Site)
	case traces.KindTimer:
		r.Lane = ls.index(e.To)
		r.Label = "⏱ " + e.Note
	case traces.KindStream:
		r.Lane = ls.index(e.Link)
		r.Label = "stream " + e.Note
	case traces.KindRoute:
		r.Lane = ls.index(e.Link)
		r.Peer = ls.index(e.To)
		r.Label = "route → " + e.To
		if e.Note != "" {
			r.Label += " (" + e.Note + ")"
		}
	case traces.KindHeal:
		r.Label = "heal: no more faults from here on"
	case traces.KindEnd:
		r.Label = "end: " + e.Note
	default:
		r.Label = e.Kind
	}
	if r.Detail == "" {
		b, _ := json.MarshalIndent(e, "", "  ")
		r.Detail = fmt.Sprintf("seq %d · %s · %s\n%s", e.Seq, r.Time, e.Kind, b)
	}
	return r
}

// frameLabel is a frame in a few words, and its class for colour.
func frameLabel(f frame) (label, class string) {
	switch {
	case f.batch > 0:
		return fmt.Sprintf("batch of %d", f.batch), "other"
	case !f.ok:
		return "(not a JSON object)", "other"
	case f.method == "session/prompt":
		l := "session/prompt #" + f.id
		if f.hasKey {
			l += " key " + short(f.key)
		}
		return l, "prompt"
	case f.method == "session/update":
		l := "update " + f.update
		if f.state != "" {
			l += " " + f.state
		}
		if f.msg != "" {
			return l + " " + short(f.msg), "user-message"
		}
		return l, "update"
	case f.method != "" && f.id != "":
		return f.method + " #" + f.id, "other"
	case f.method != "":
		return f.method, "other"
	case f.errCode != 0 || f.errMsg != "":
		return fmt.Sprintf("error #%s %d", f.id, f.errCode), "response"
	case f.msg != "":
		return "result #" + f.id + " messageId " + short(f.msg), "response"
	default:
		return "result #" + f.id, "response"
	}
}

func pretty(s string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(s), "", "  ") != nil {
		return s
	}
	return b.String()
}

func ms(us int64) string {
	return strconv.FormatFloat(float64(us)/1000, 'f', -1, 64) + "ms"
}

// short abbreviates an id as the checker's explanations do.
func short(id string) string {
	if r := []rune(id); len(r) > 9 {
		return string(r[:8]) + "…"
	}
	return id
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// laneSet collects the lanes the shown events use and orders them like the
// system they draw: each Client, then its links, then its Agent's endpoint
// and processes; links from the observer after the processes they reach;
// the observer last.
type laneSet struct {
	lanes []lane
	at    map[string]int // name → index into lanes
	first map[string]int // name → order of first appearance
	// links lists link lanes in first-appearance order with the index of
	// the event that brought each in, for choose sites that name a link by
	// its prefix ("c1:http/post/4" → c1:http#5).
	links []laneAt
	event int // index of the event being noted
}

type laneAt struct {
	name  string
	event int
}

func newLaneSet() *laneSet { return &laneSet{at: map[string]int{}, first: map[string]int{}} }

func (ls *laneSet) add(name, kind string) {
	if name == "" {
		return
	}
	if _, ok := ls.first[name]; ok {
		return
	}
	ls.first[name] = len(ls.lanes)
	ls.lanes = append(ls.lanes, lane{Name: name, Kind: kind})
	if kind == "link" {
		ls.links = append(ls.links, laneAt{name, ls.event})
	}
}

// noteEvent adds the lanes e is drawn on. choose events name sites, not
// lanes: they are placed on a lane other events brought in (siteLane).
func (ls *laneSet) noteEvent(e *traces.Event, i int) {
	ls.event = i
	switch e.Kind {
	case traces.KindSend, traces.KindDeliver, traces.KindDrop:
		ls.add(e.From, nameKind(e.From))
		ls.add(e.Link, "link")
		ls.add(e.To, nameKind(e.To))
	case traces.KindSubmit, traces.KindOutcome:
		ls.add(e.Client, nameKind(e.Client))
	case traces.KindConnect, traces.KindDisconnect, traces.KindStream, traces.KindRoute:
		ls.add(e.From, nameKind(e.From))
		ls.add(e.Link, "link")
		ls.add(e.To, nameKind(e.To))
	case traces.KindKill, traces.KindRestart, traces.KindInsert:
		ls.add(e.From, nameKind(e.From))
	case traces.KindTimer:
		ls.add(e.To, nameKind(e.To))
	}
}

// nameKind guesses what an endpoint is from its name: c1 and the observer
// are Clients, a1 an Agent endpoint, a1#2 an Agent process.
func nameKind(name string) string {
	switch {
	case name == traces.Observer:
		return "client"
	case strings.Contains(name, ":"):
		return "link"
	}
	if n, _ := nameNumber(name, 'c'); n > 0 {
		return "client"
	}
	if n, _ := nameNumber(name, 'a'); n > 0 {
		return "agent"
	}
	return "other"
}

// nameNumber reads names like c3 (3, 0) and a1#2 (1, 2); 0 when name is not
// one of them.
func nameNumber(name string, prefix byte) (n, incarnation int) {
	if len(name) < 2 || name[0] != prefix {
		return 0, 0
	}
	base, inc, hasInc := strings.Cut(name[1:], "#")
	n, err := strconv.Atoi(base)
	if err != nil || n <= 0 {
		return 0, 0
	}
	if hasInc {
		if incarnation, err = strconv.Atoi(inc); err != nil {
			return 0, 0
		}
	}
	return n, incarnation
}

// rank places a lane: by installation (c1 with a1), then by role in it.
type rank struct{ group, role, n, first int }

const lastGroup = 1 << 30

func (ls *laneSet) rank(name string) rank {
	r := rank{group: lastGroup - 1, role: 0, first: ls.first[name]}
	switch {
	case name == traces.Observer:
		r.group = lastGroup
	case strings.Contains(name, ":"):
		left, right, _ := strings.Cut(name, ":")
		if left == traces.Observer {
			if n, _ := nameNumber(right, 'a'); n > 0 {
				r.group, r.role = n, 4
			}
		} else if n, _ := nameNumber(left, 'c'); n > 0 {
			r.group, r.role = n, 1
		}
	default:
		if n, _ := nameNumber(name, 'c'); n > 0 {
			r.group, r.role = n, 0
		} else if n, inc := nameNumber(name, 'a'); n > 0 {
			r.group, r.role, r.n = n, 2, inc
			if inc > 0 {
				r.role = 3
			}
		}
	}
	return r
}

func (ls *laneSet) order() {
	sort.SliceStable(ls.lanes, func(i, j int) bool {
		a, b := ls.rank(ls.lanes[i].Name), ls.rank(ls.lanes[j].Name)
		switch {
		case a.group != b.group:
			return a.group < b.group
		case a.role != b.role:
			return a.role < b.role
		case a.n != b.n:
			return a.n < b.n
		}
		return a.first < b.first
	})
	for i, l := range ls.lanes {
		ls.at[l.Name] = i
	}
}

func (ls *laneSet) index(name string) int {
	if i, ok := ls.at[name]; ok {
		return i
	}
	return -1
}

// siteLane places a fault decision on the lane its site names: a process
// (a1#1/14/respond-prompt), a link (c1:a1#1/a2c/7), a link by its prefix
// (c1:http/post/4: the latest such link shown by event i, else the first)
// or a Client (c1/step/3); -1 when none is shown.
func (ls *laneSet) siteLane(site string, i int) int {
	head, _, _ := strings.Cut(site, "/")
	if l := ls.index(head); l >= 0 {
		return l
	}
	found := ""
	for _, l := range ls.links {
		if strings.HasPrefix(l.name, head+"#") && (found == "" || l.event <= i) {
			found = l.name
		}
	}
	if found != "" {
		return ls.index(found)
	}
	if client, _, ok := strings.Cut(head, ":"); ok {
		return ls.index(client)
	}
	return -1
}
