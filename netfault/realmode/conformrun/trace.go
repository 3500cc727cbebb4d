// A conformance case's frames as an acpsim trace, so that judge, view and
// lint read what conform saw, and conform checks every frame against the
// schema as lint does.

package conformrun

import (
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault/realmode/tap"
	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/properties/conform/suite"
	"github.com/acpsim/acpsim/traces"
)

// Trace is the trace of one run of a case: its frames as seen at the
// suite (the Client end, as a tap sees them), a process per connection a
// stdio case opens. agent labels the Agent in the header; link is "stdio"
// or the URL's scheme. The suite's malformed-key prompts are noted as
// probes, as the observer's are, so lint expects them refused.
func Trace(agent, link string, v suite.Verdict) *traces.Log {
	log := &traces.Log{Header: traces.Header{Format: traces.FormatVersion, Tool: "acpsim conform", Source: traces.SourceSeed,
		Agent: agent, Link: link, Clients: 1, Rates: map[string]float64{}, Knobs: map[string]string{},
		Contract: traces.Contract{Retention: "all", LiveOnly: []string{}}, KeyLengthUnit: acp.KeyLengthUnit,
		Command: "acpsim conform --run '^" + v.Case.ID + "$'", Observed: traces.ObservedAtTap}}
	procs := 0
	procOf := map[string]string{} // connection → the Agent process it reaches
	add := func(f *suite.Frame, e traces.Event) {
		e.T = int64(f.N)
		log.Append(e)
	}
	for _, f := range v.Log {
		proc := procOf[f.Conn]
		link := f.Conn + ":" + proc
		switch {
		case f.Event == "connect":
			procs++
			proc = tap.AgentName + "#" + strconv.Itoa(procs)
			procOf[f.Conn] = proc
			add(f, traces.Event{Kind: traces.KindRestart, From: proc})
			add(f, traces.Event{Kind: traces.KindConnect, Link: f.Conn + ":" + proc, From: f.Conn, To: proc})
		case f.Event == "killed":
			for _, p := range procOf {
				add(f, traces.Event{Kind: traces.KindKill, From: p, Note: "killed by the suite"})
			}
		case f.Event != "":
			add(f, traces.Event{Kind: traces.KindDisconnect, Link: link, From: f.Conn, To: proc, Note: f.Event})
		default:
			e := traces.Event{Kind: traces.KindSend, Link: link, From: f.Conn, To: proc, Dir: traces.ClientToAgent, Frame: string(f.Bytes)}
			if !f.Out {
				e.From, e.To, e.Dir = proc, f.Conn, traces.AgentToClient
			} else {
				e.Sub = tap.SubmissionOf(e.Frame, int64(len(log.Events)+1))
				if malformedKey(f.Bytes) {
					e.Note = traces.NoteProbe
				}
			}
			add(f, e)
			e.Kind, e.Note, e.Sub = traces.KindDeliver, "", ""
			add(f, e)
		}
	}
	if n := len(v.Log); n > 0 {
		add(v.Log[n-1], traces.Event{Kind: traces.KindEnd, Note: traces.EndQuiet})
	}
	return log
}

// malformedKey: frame is a prompt whose idempotencyKey the schema refuses,
// one of the suite's key-rule probes.
func malformedKey(frame []byte) bool {
	for _, p := range conform.Frame(traces.ClientToAgent, frame, "") {
		if strings.HasSuffix(p.Pointer, "/params/idempotencyKey") {
			return true
		}
	}
	return false
}
