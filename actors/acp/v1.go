package acp

import "encoding/json"

// ACP v1, the protocol most published software speaks (spec/acp-v1/schema.json).
// acpsim's model Agents and Clients speak v2 inside; a peer that speaks v1 on
// the wire translates at its edge (agent.SpeakV1, the Client's Protocol), so
// one model serves both and the status quo is measured on the same seeds.

// ProtocolV1 is ACP v1's protocol version.
const ProtocolV1 = 1

// Methods of v1 that v2 renamed or dropped.
const (
	MethodSessionLoad  = "session/load"
	MethodAuthenticate = "authenticate"
)

// InitializeParamsV1 are v1's initialize params.
type InitializeParamsV1 struct {
	ProtocolVersion    int             `json:"protocolVersion"`
	ClientCapabilities json.RawMessage `json:"clientCapabilities,omitempty"`
	ClientInfo         *Implementation `json:"clientInfo,omitempty"`
}

// SessionCapabilitiesV1 are the session methods a v1 Agent advertises
// beyond the baseline ({} each, as the schema spells support).
type SessionCapabilitiesV1 struct {
	List   *struct{} `json:"list,omitempty"`
	Close  *struct{} `json:"close,omitempty"`
	Delete *struct{} `json:"delete,omitempty"`
}

// AgentCapabilitiesV1 are v1's Agent capabilities.
type AgentCapabilitiesV1 struct {
	LoadSession         bool                   `json:"loadSession"`
	SessionCapabilities *SessionCapabilitiesV1 `json:"sessionCapabilities,omitempty"`
}

// InitializeResultV1 is v1's initialize result.
type InitializeResultV1 struct {
	ProtocolVersion   int                 `json:"protocolVersion"`
	AgentCapabilities AgentCapabilitiesV1 `json:"agentCapabilities"`
	AgentInfo         *Implementation     `json:"agentInfo,omitempty"`
	AuthMethods       []AuthMethod        `json:"authMethods"`
}

// LoadSessionParams are the params of v1's session/load: the Agent replays
// the session's history as session/update notifications, then answers.
type LoadSessionParams struct {
	SessionID  string            `json:"sessionId"`
	Cwd        string            `json:"cwd"`
	McpServers []json.RawMessage `json:"mcpServers"`
}

// NewSessionParamsV1 are v1's session/new params: mcpServers is required.
type NewSessionParamsV1 struct {
	Cwd        string            `json:"cwd"`
	McpServers []json.RawMessage `json:"mcpServers"`
}

// PromptResultV1 is v1's session/prompt result, sent when the turn ends:
// no messageId, so a Client cannot name the message it inserted.
type PromptResultV1 struct {
	StopReason string `json:"stopReason"`
}

// Stop reasons of v1 that acpsim's models produce.
const (
	StopEndTurn   = "end_turn"
	StopCancelled = "cancelled"
)
