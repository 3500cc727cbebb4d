// This file holds the page's data model: the JSON the script draws, and build,
// which makes it from a trace and the checker's report.

package view

import (
	"fmt"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

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
	command := h.Command
	if opt.Reproduce != "" {
		command = opt.Reproduce
	}
	m := &model{
		Title: "acpsim view",
		Run: runInfo{Seed: h.Seed, Source: h.Source, Policy: h.Policy, Agent: h.Agent, Link: h.Link,
			Command: command, Observed: h.Observed},
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
		if rep.NothingJudged != "" {
			return "inconclusive: nothing judged: " + rep.NothingJudged
		}
		if rep.Inconclusive {
			return fmt.Sprintf("inconclusive: %s; no anomaly found, %d submission(s) not judged", rep.Stopped(), len(rep.Unjudged))
		}
		_, line := rep.Verdict()
		return line
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
