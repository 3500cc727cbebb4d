package client_test

import (
	"reflect"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/client"
)

func TestObserver(t *testing.T) {
	o := client.NewObserver("/work")
	if o.Done() {
		t.Error("Done before connecting")
	}
	cursor := "page-2"
	step := func(what string, out []client.Output) []sent {
		t.Helper()
		s := split(t, out)
		if len(s.sends) != len(out) {
			t.Fatalf("%s: observer output %+v, want only frames", what, out)
		}
		for _, x := range s.sends {
			if x.conn != "obs" {
				t.Fatalf("%s: frame on %q", what, x.conn)
			}
		}
		return s.sends
	}

	init := step("connected", o.Connected("obs"))
	if len(init) != 1 || init[0].msg.Method != acp.MethodInitialize || init[0].msg.ID != acp.NumID(1) {
		t.Fatalf("Connected: %+v, want initialize with id 1", init)
	}
	if o.Done() {
		t.Error("Done with initialize unanswered")
	}
	list := step("initialized", o.Receive("obs", acp.Result(init[0].msg.ID, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion})))
	if len(list) != 1 || list[0].msg.Method != acp.MethodSessionList {
		t.Fatalf("after initialize: %+v, want session/list", list)
	}
	if p := params[acp.ListSessionsParams](t, list[0]); p.Cursor != nil {
		t.Errorf("first session/list has cursor %q", *p.Cursor)
	}

	page1 := step("page 1", o.Receive("obs", acp.Result(list[0].msg.ID, acp.ListSessionsResult{
		Sessions:   []acp.SessionInfo{{SessionID: "A", Cwd: "/work"}, {SessionID: "B", Cwd: "/work"}},
		NextCursor: &cursor,
	})))
	var methods []string
	for _, s := range page1 {
		methods = append(methods, s.msg.Method)
	}
	if want := []string{acp.MethodSessionResume, acp.MethodSessionResume, acp.MethodSessionList}; !reflect.DeepEqual(methods, want) {
		t.Fatalf("after page 1: %v, want %v", methods, want)
	}
	for i, want := range []string{"A", "B"} {
		p := params[acp.ResumeSessionParams](t, page1[i])
		if p.SessionID != want || p.Cwd != "/work" || p.ReplayFrom == nil || p.ReplayFrom.Type != acp.ReplayStart {
			t.Errorf("resume %d: %+v, want session %s, cwd /work, replayFrom start", i, p, want)
		}
	}
	if p := params[acp.ListSessionsParams](t, page1[2]); p.Cursor == nil || *p.Cursor != cursor {
		t.Errorf("second session/list: %+v, want cursor %q", p, cursor)
	}

	page2 := step("page 2", o.Receive("obs", acp.Result(page1[2].msg.ID, acp.ListSessionsResult{
		Sessions: []acp.SessionInfo{{SessionID: "C", Cwd: "/else"}},
	})))
	if len(page2) != 1 || params[acp.ResumeSessionParams](t, page2[0]).SessionID != "C" {
		t.Fatalf("after the last page: %+v, want one resume of C", page2)
	}

	// Updates replayed during a resume are not answers.
	upd := acp.Notification(acp.MethodSessionUpdate, acp.SessionUpdateParams{SessionID: "A", Update: acp.MessageUpdate(acp.UpdateUserMessage, "m1", "hi")})
	if out := o.Receive("obs", upd); len(out) != 0 {
		t.Errorf("update produced %+v", out)
	}
	resumes := []sent{page1[0], page1[1], page2[0]}
	ids := map[acp.ID]bool{}
	for _, r := range append(append([]sent{}, init[0], list[0], page1[2]), resumes...) {
		if ids[r.msg.ID] {
			t.Errorf("request id %s used twice", r.msg.ID)
		}
		ids[r.msg.ID] = true
	}
	var probes []sent
	for i, r := range resumes {
		if o.Done() {
			t.Fatalf("Done with %d resumes unanswered", len(resumes)-i)
		}
		out := split(t, o.Receive("obs", acp.Result(r.msg.ID, struct{}{}))).sends
		if i < len(resumes)-1 && len(out) != 0 {
			t.Errorf("answer to a resume produced %+v", out)
		}
		if i == len(resumes)-1 {
			probes = out
		}
	}
	// Once every read is done, the first resumed session gets one prompt per
	// malformed key; each must be refused with -32602.
	if len(probes) != len(client.MalformedKeys) {
		t.Fatalf("%d probes after the last read, want %d", len(probes), len(client.MalformedKeys))
	}
	for i, p := range probes {
		pp := params[acp.PromptParams](t, p)
		if _, _, err := pp.Key(); pp.SessionID != "A" || err == nil || err.Code != acp.CodeInvalidParams {
			t.Errorf("probe %d: session %s key %s: want session A and a key Key() refuses", i, pp.SessionID, pp.IdempotencyKey)
		}
		if o.Done() {
			t.Fatalf("Done with probe %d unanswered", i)
		}
		o.Receive("obs", acp.ErrorResponse(p.msg.ID, acp.Errorf(acp.CodeInvalidParams, "bad key")))
	}
	if !o.Done() {
		t.Error("not Done after every request was answered")
	}
}

// A transient error to a read is answered by sending it again (list and
// resume are safe to resend); a definite error ends that read.
func TestObserverRetriesTransientErrorsOnly(t *testing.T) {
	o := client.NewObserver("/")
	init := split(t, o.Connected("obs")).sends[0]
	list := split(t, o.Receive("obs", acp.Result(init.msg.ID, struct{}{}))).sends[0]
	again := split(t, o.Receive("obs", acp.ErrorResponse(list.msg.ID, acp.Errorf(acp.CodeInternalError, "boom")))).sends
	if len(again) != 1 || again[0].msg.Method != acp.MethodSessionList || again[0].msg.ID == list.msg.ID {
		t.Fatalf("after -32603 to session/list: %+v, want one new session/list request", again)
	}
	if out := o.Receive("obs", acp.ErrorResponse(again[0].msg.ID, acp.Errorf(acp.CodeMethodNotFound, "no"))); len(out) != 0 {
		t.Errorf("a definite error produced %+v", out)
	}
	if !o.Done() {
		t.Error("not Done after the only open request was answered with a definite error")
	}
}

// An error to initialize makes the observer ask for a new connection.
func TestObserverHangsUpWhenInitializeFails(t *testing.T) {
	o := client.NewObserver("/")
	init := split(t, o.Connected("obs")).sends[0]
	out := o.Receive("obs", acp.ErrorResponse(init.msg.ID, acp.Errorf(acp.CodeInternalError, "not now")))
	if len(out) != 1 || out[0].Kind != client.OutHangup || out[0].Conn != "obs" {
		t.Fatalf("after a failed initialize: %+v, want one hangup of obs", out)
	}
}
