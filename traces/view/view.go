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
	"html/template"
	"io"

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
	// Reproduce is the command shown as the way to reproduce the run;
	// "" shows the header's command.
	Reproduce string
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
