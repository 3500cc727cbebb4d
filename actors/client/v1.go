// This file holds the Client's ACP v1 edge (Config.Protocol 1): the same
// model Client, speaking v1 on the wire. v1 has no idempotencyKey and no
// messageId in a prompt's answer, which comes when the turn ends; a session
// is reopened with session/load, which replays its history. That is the
// status quo the RFD replaces, measured by the same users on the same seeds.

package client

import (
	"encoding/json"
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// v1Params returns the v1 method and params of a request the model builds
// in v2's terms. Methods v1 shares with v2 go as they are, less the key.
func v1Params(method string, params any) (string, any) {
	switch p := params.(type) {
	case acp.InitializeParams:
		info := p.Info
		return method, acp.InitializeParamsV1{ProtocolVersion: acp.ProtocolV1, ClientCapabilities: json.RawMessage(`{}`), ClientInfo: &info}
	case acp.NewSessionParams:
		return method, acp.NewSessionParamsV1{Cwd: p.Cwd, McpServers: []json.RawMessage{}}
	case acp.ResumeSessionParams:
		// v1 reopens a session with session/load, which always replays.
		return acp.MethodSessionLoad, acp.LoadSessionParams{SessionID: p.SessionID, Cwd: p.Cwd, McpServers: []json.RawMessage{}}
	case acp.PromptParams:
		p.IdempotencyKey = nil
		return method, p
	case acp.LoginParams:
		return acp.MethodAuthenticate, p
	}
	return method, params
}

// v1PromptResponse reads a v1 prompt's success answer: the turn ended, so
// the message went in (v1 has no messageId to name it), unless the turn was
// cancelled, which v1 answers the same whether or not the message went in.
func (c *Client) v1PromptResponse(s *submission, m *acp.Message) {
	var res acp.PromptResultV1
	switch {
	case s.done:
	case json.Unmarshal(m.Result, &res) != nil || res.StopReason == "" || res.StopReason == acp.StopCancelled:
		c.outcome(s, traces.OutcomeUnknown, "")
	default:
		c.outcome(s, traces.OutcomeInserted, "")
	}
}

// v1Replayed names a user message a v1 replay carries without a messageId:
// consecutive user_message_chunks are one message, numbered in the order
// the replay brings them, so that a Lookup Client can claim each once.
func (s *clientSession) v1Replayed(u *acp.Update) {
	if u.MessageID != "" {
		return
	}
	if u.Kind != acp.UpdateUserMessageChunk {
		s.v1UserOpen = false
		return
	}
	if !s.v1UserOpen {
		s.v1UserOpen = true
		s.v1Users++
	}
	u.MessageID = fmt.Sprintf("v1-replayed-%d", s.v1Users)
}
