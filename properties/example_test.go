package properties_test

import (
	"fmt"
	"io"
	"strings"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/traces"
)

// A Client without keys resends a prompt after the Agent process died; the
// first attempt had been inserted, so the final transcript holds it twice.
func ExampleCheck() {
	var evs []traces.Event
	add := func(e traces.Event) {
		e.Seq, e.T = int64(len(evs)+1), int64(len(evs)+1)*100
		evs = append(evs, e)
	}
	frame := func(link, dir string, f []byte, sub string, deliver bool) {
		from, to := "c1", link[3:]
		if link[:3] == "obs" {
			from, to = traces.Observer, link[9:]
		}
		if dir == traces.AgentToClient {
			from, to = to, from
		}
		add(traces.Event{Kind: traces.KindSend, Link: link, From: from, To: to, Dir: dir, Frame: string(f), Sub: sub})
		if deliver {
			add(traces.Event{Kind: traces.KindDeliver, Link: link, From: from, To: to, Dir: dir, Frame: string(f), Sub: sub})
		}
	}
	prompt := acp.Request(acp.NumID(1), acp.MethodSessionPrompt, acp.PromptParams{SessionID: "S1", Prompt: []acp.ContentBlock{acp.Text("fix the tests")}})
	userMsg := func(id string) []byte {
		return acp.Notification(acp.MethodSessionUpdate, acp.SessionUpdateParams{SessionID: "S1", Update: acp.MessageUpdate(acp.UpdateUserMessage, id, "fix the tests")})
	}

	add(traces.Event{Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: "fix the tests"})
	add(traces.Event{Kind: traces.KindConnect, Link: "c1>a1#1", From: "c1", To: "a1#1"})
	frame("c1>a1#1", traces.ClientToAgent, prompt, "s1", true)
	frame("c1>a1#1", traces.AgentToClient, acp.Result(acp.NumID(1), acp.PromptResult{MessageID: "M1"}), "", false)
	add(traces.Event{Kind: traces.KindDisconnect, Link: "c1>a1#1", Note: "kill"})
	add(traces.Event{Kind: traces.KindConnect, Link: "c1>a1#2", From: "c1", To: "a1#2"})
	frame("c1>a1#2", traces.ClientToAgent, prompt, "s1", true)
	frame("c1>a1#2", traces.AgentToClient, acp.Result(acp.NumID(1), acp.PromptResult{MessageID: "M2"}), "", true)
	add(traces.Event{Kind: traces.KindOutcome, Client: "c1", Sub: "s1", Outcome: traces.OutcomeInserted, MessageID: "M2"})

	// The observer reads the final transcript after the run has healed.
	add(traces.Event{Kind: traces.KindHeal})
	add(traces.Event{Kind: traces.KindConnect, Link: "observer>a1#2", From: traces.Observer, To: "a1#2"})
	frame("observer>a1#2", traces.ClientToAgent, acp.Request(acp.NumID(1), acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: "S1", ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}), "", true)
	frame("observer>a1#2", traces.AgentToClient, userMsg("M1"), "", true)
	frame("observer>a1#2", traces.AgentToClient, userMsg("M2"), "", true)
	frame("observer>a1#2", traces.AgentToClient, acp.Result(acp.NumID(1), nil), "", true)
	add(traces.Event{Kind: traces.KindEnd, Note: "quiet"})

	r := properties.Check(traces.Header{Contract: traces.Contract{Retention: "all"}}, evs)
	for _, a := range r.Anomalies {
		fmt.Printf("%s %s: %s\n", a.Kind, a.Sub, a.Explanation)
	}
	fmt.Println("transcript of s1:", r.Submissions[0].Transcript)
	// Output:
	// duplicate s1: s1 ("fix the tests", no key) was inserted twice: request 1 on c1>a1#1 delivered at 0.4ms, Agent answered messageId M1 at 0.5ms but the response was lost when the link ended (kill); request 1 on c1>a1#2 delivered at 0.9ms, Agent answered messageId M2 at 1ms; c1 told the user inserted(M2) at 1.2ms; the final transcript of session S1 (read on observer>a1#2 at 2.2ms) holds all of M1 and M2.
	// transcript of s1: [M1 M2]
}

// A Checker judges a trace as it is read, one event at a time, without
// holding it: here from a file's worth of ndjson through traces.Decoder,
// with one Event reused for every line.
func ExampleNewChecker() {
	trace := `{"format":1,"tool":"acpsim","source":"seed","seed":1,"policy":"keyed","agent":"reference","link":"stdio","clients":1,"sessions":1,"prompts":1,"rates":null,"knobs":null,"contract":{"retention":"all","liveOnly":[]},"keyLengthUnit":"","command":""}
{"t":0,"seq":1,"kind":"submit","client":"c1","sub":"s1","text":"fix the tests"}
{"t":100,"seq":2,"kind":"end","note":"quiet"}
`
	d := traces.NewDecoder(strings.NewReader(trace), "run.ndjson")
	h, err := d.Header()
	if err != nil {
		panic(err)
	}
	c := properties.NewChecker(h)
	var e traces.Event
	for {
		err := d.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		c.Add(&e)
	}
	r := c.Finish()
	for _, a := range r.Anomalies {
		fmt.Printf("%s %s: %s\n", a.Kind, a.Sub, a.Explanation)
	}
	// Output:
	// unresolved s1: s1 ("fix the tests", no key) never got an outcome: no prompt request was ever sent; the run ended quiet with it still pending, a liveness failure.
}

// A send event carrying its frame's digest reads through the digest as it
// reads from the bytes; a digest made for other bytes (here a copy of the
// frame) describes nothing, and the bytes are read.
func ExampleDigestDiff() {
	frame, d := acp.UpdateFrameDigest("s-1", acp.ChunkUpdate(acp.UpdateAgentMessageChunk, "m-1", "done"))
	shared := unsafe.String(unsafe.SliceData(frame), len(frame))
	e := traces.Event{Kind: traces.KindSend, Frame: shared, Digest: &d}
	fmt.Printf("%q %v\n", properties.DigestDiff(&e), d.Describes(e.Frame))
	e.Frame = string(frame)
	fmt.Printf("%q %v\n", properties.DigestDiff(&e), d.Describes(e.Frame))
	// Output:
	// "" true
	// "" false
}

// A producer that makes events (the simulator, as it records them) interns
// each one as it makes it, and a checker of those steps judges them: the
// checker itself then looks no id up by its string.
func ExampleNewStepChecker() {
	evs := []traces.Event{
		{Seq: 1, Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: "fix the tests"},
		{Seq: 2, Kind: traces.KindOutcome, Client: "c1", Sub: "s1", Outcome: traces.OutcomeUnknown},
		{Seq: 3, Kind: traces.KindEnd, Note: traces.EndQuiet},
	}
	in := properties.NewInterner(true) // the events outlive the checker
	steps := make([]properties.Step, len(evs))
	for i := range evs {
		steps[i] = in.Step(&evs[i])
	}
	c := properties.NewStepChecker(traces.Header{Contract: traces.Contract{Retention: "all"}}, in, len(steps))
	for i := range steps {
		c.AddStep(&steps[i])
	}
	r := c.Finish()
	fmt.Println("the first step's submission:", in.Sub(steps[0].Sub))
	fmt.Println("submissions:", r.Stats.Submissions, "outcome:", r.Submissions[0].Outcome)
	// Output:
	// the first step's submission: s1
	// submissions: 1 outcome: unknown
}

// A simulator mints its ids into a register (sim.Names); an interner that
// uses it gives each id the register's handle, found from the minted
// string's address rather than by hashing it, and registers an id no actor
// minted (an Agent's own, or garbage) as it first sees it.
func ExampleInterner_UseNames() {
	names := sim.NewNames()
	msg, h := names.Mint("9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001")
	in := properties.NewInterner(true)
	in.UseNames(names)
	st := in.Step(&traces.Event{Seq: 1, Kind: traces.KindOutcome, Client: "c1", Sub: "s1", Outcome: traces.OutcomeInserted, MessageID: msg})
	fmt.Println(st.Msg == h, in.IDName(st.Msg) == msg)
	fmt.Println(in.ID("msg-7") == names.Handle("msg-7"))
	// Output:
	// true true
	// true
}

// A trace cut short (here, its last line lost, with the end event) gives no
// verdict on what it could not show: the report says how the run stopped.
func ExampleReport_Stopped() {
	h := traces.Header{Format: traces.FormatVersion}
	r := properties.Check(h, []traces.Event{
		{Seq: 1, Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: "fix the tests"},
	})
	verdict, line := r.Verdict()
	fmt.Println(verdict)
	fmt.Println(r.Stopped())
	fmt.Println(strings.HasPrefix(line, "INCONCLUSIVE: "+r.Stopped()))
	// Output:
	// inconclusive
	// the trace has no end event: the run was cut short before it was done
	// true
}

// A checker of a trace file whose size is known sizes its tables from it
// (traces.EstimateEvents reads the first MiB), as acpsim judge does,
// instead of growing them as the trace is read.
func ExampleNewCheckerSized() {
	trace := `{"format":2,"tool":"acpsim","source":"seed","seed":1,"policy":"keyed","agent":"reference","link":"stdio","clients":1,"sessions":1,"prompts":1,"rates":null,"knobs":null,"contract":{"retention":"all","liveOnly":[]},"keyLengthUnit":"","command":""}
{"t":0,"kind":"submit","client":"c1","sub":"s1","text":"fix the tests"}
{"t":100,"kind":"end","note":"quiet"}
`
	file := strings.NewReader(trace) // an *os.File in acpsim judge
	events := traces.EstimateEvents(file, int64(len(trace)))
	d := traces.NewDecoder(file, "run.ndjson")
	h, err := d.Header()
	if err != nil {
		panic(err)
	}
	c := properties.NewCheckerSized(h, events)
	var e traces.Event
	for d.Next(&e) == nil {
		c.Add(&e)
	}
	r := c.Finish()
	fmt.Printf("%d events, %d submission, %d anomaly: %s\n", events, r.Stats.Submissions, len(r.Anomalies), r.Anomalies[0].Kind)
	// Output:
	// 2 events, 1 submission, 1 anomaly: unresolved
}
