// This file holds the attribution of events to submissions and the turning
// of each event into a row of the page.

package view

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/traces"
)

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
