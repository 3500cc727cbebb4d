package conform_test

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/properties/conform"
	"github.com/acpsim/acpsim/traces"
)

// Every shape the acp package encodes validates, including the ones a
// simulated run rarely or never sends (the -32022 data, a list cursor, the
// idle snapshot without a stop reason, a title).
func TestACPEncodersConform(t *testing.T) {
	title, cursor, cwd := "a title", "c1", "/w"
	id := acp.NumID(7)
	for _, tc := range []struct {
		name, dir, method string
		frame             []byte
	}{
		{"initialize", traces.ClientToAgent, "", acp.Request(id, acp.MethodInitialize, acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion, Info: acp.Implementation{Name: "c", Version: "0", Title: &title}, Capabilities: []byte(`{}`)})},
		{"initialize result", traces.AgentToClient, acp.MethodInitialize, acp.Result(id, acp.InitializeResult{ProtocolVersion: acp.ProtocolVersion, Info: acp.Implementation{Name: "a", Version: "0"},
			Capabilities: acp.AgentCapabilities{Session: &acp.SessionCapabilities{Delete: &struct{}{}, Fork: &struct{}{}}},
			AuthMethods:  []acp.AuthMethod{{Type: "agent", MethodID: "token", Name: "Token"}}})},
		{"auth/login", traces.ClientToAgent, "", acp.Request(id, acp.MethodAuthLogin, acp.LoginParams{MethodID: "token"})},
		{"auth/login result", traces.AgentToClient, acp.MethodAuthLogin, acp.Result(id, nil)},
		{"auth/logout", traces.ClientToAgent, "", acp.Request(id, acp.MethodAuthLogout, nil)},
		{"session/new", traces.ClientToAgent, "", acp.Request(id, acp.MethodSessionNew, acp.NewSessionParams{Cwd: cwd, AdditionalDirectories: []string{"/x"}})},
		{"session/new result", traces.AgentToClient, acp.MethodSessionNew, acp.Result(id, acp.NewSessionResult{SessionID: "s"})},
		{"session/resume", traces.ClientToAgent, "", acp.Request(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: "s", Cwd: cwd, ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}})},
		{"session/resume result", traces.AgentToClient, acp.MethodSessionResume, acp.Result(id, nil)},
		{"session/list", traces.ClientToAgent, "", acp.Request(id, acp.MethodSessionList, acp.ListSessionsParams{Cwd: &cwd, Cursor: &cursor})},
		{"session/list result", traces.AgentToClient, acp.MethodSessionList, acp.Result(id, acp.ListSessionsResult{
			Sessions: []acp.SessionInfo{{SessionID: "s", Cwd: cwd, Title: &title, Meta: []byte(`{"x":1}`)}}, NextCursor: &cursor})},
		{"session/close", traces.ClientToAgent, "", acp.Request(id, acp.MethodSessionClose, acp.SessionParams{SessionID: "s"})},
		{"session/delete", traces.ClientToAgent, "", acp.Request(id, acp.MethodSessionDelete, acp.SessionParams{SessionID: "s"})},
		{"session/delete result", traces.AgentToClient, acp.MethodSessionDelete, acp.Result(id, nil)},
		{"session/fork", traces.ClientToAgent, "", acp.Request(id, acp.MethodSessionFork, acp.ForkSessionParams{SessionID: "s", Cwd: cwd})},
		{"session/fork result", traces.AgentToClient, acp.MethodSessionFork, acp.Result(id, acp.NewSessionResult{SessionID: "s2"})},
		{"session/prompt", traces.ClientToAgent, "", acp.Request(id, acp.MethodSessionPrompt, acp.PromptParams{SessionID: "s", Prompt: []acp.ContentBlock{acp.Text("hi")}, IdempotencyKey: acp.KeyJSON(strings.Repeat("é", acp.MaxKeyLength))})},
		{"session/prompt result", traces.AgentToClient, acp.MethodSessionPrompt, acp.Result(id, acp.PromptResult{MessageID: "m"})},
		{"session/cancel", traces.ClientToAgent, "", acp.Notification(acp.MethodSessionCancel, acp.SessionParams{SessionID: "s"})},
		{"$/cancel_request", traces.ClientToAgent, "", acp.Notification(acp.MethodCancelRequest, acp.CancelRequestParams{RequestID: id})},
		{"user_message", traces.AgentToClient, "", acp.UpdateFrame("s", acp.MessageUpdate(acp.UpdateUserMessage, "m", "hi"))},
		{"user_message blocks", traces.AgentToClient, "", acp.UpdateFrame("s", acp.BlocksUpdate(acp.UpdateUserMessage, "m", []acp.ContentBlock{acp.Text("a"), acp.Text("b")}))},
		{"user_message_chunk", traces.AgentToClient, "", acp.UpdateFrame("s", acp.ChunkUpdate(acp.UpdateUserMessageChunk, "m", "hi"))},
		{"agent_message", traces.AgentToClient, "", acp.UpdateFrame("s", acp.MessageUpdate(acp.UpdateAgentMessage, "m2", "ok"))},
		{"agent_message_chunk", traces.AgentToClient, "", acp.UpdateFrame("s", acp.ChunkUpdate(acp.UpdateAgentMessageChunk, "m2", "o\"k<>"))},
		{"running", traces.AgentToClient, "", acp.UpdateFrame("s", acp.StateUpdate(acp.StateRunning, ""))},
		{"idle", traces.AgentToClient, "", acp.UpdateFrame("s", acp.StateUpdate(acp.StateIdle, "cancelled"))},
		{"idle snapshot", traces.AgentToClient, "", acp.UpdateFrame("s", acp.StateUpdate(acp.StateIdle, ""))},
		{"invalid params", traces.AgentToClient, acp.MethodSessionPrompt, acp.ErrorResponse(id, acp.Errorf(acp.CodeInvalidParams, "bad key"))},
		{"session not found", traces.AgentToClient, acp.MethodSessionPrompt, acp.ErrorResponse(id, acp.SessionNotFound("s"))},
		{"unsupported version", traces.AgentToClient, acp.MethodInitialize, acp.ErrorResponse(id, acp.UnsupportedVersion(9))},
		{"parse error", traces.AgentToClient, "", acp.ErrorResponse("", acp.Errorf(acp.CodeParseError, "parse error"))},
		{"cancelled", traces.AgentToClient, acp.MethodSessionPrompt, acp.ErrorResponse(id, acp.Errorf(acp.CodeRequestCancelled, "cancelled"))},
	} {
		for _, p := range conform.Frame(tc.dir, tc.frame, tc.method) {
			t.Errorf("%s: %s\n  frame: %s", tc.name, p, tc.frame)
		}
	}
}
