package acp

import (
	"strings"

	json "github.com/goccy/go-json"
)

// Method names.
const (
	MethodInitialize    = "initialize"
	MethodSessionNew    = "session/new"
	MethodSessionResume = "session/resume"
	MethodSessionList   = "session/list"
	MethodSessionClose  = "session/close"
	MethodSessionPrompt = "session/prompt"
	MethodSessionCancel = "session/cancel"
	MethodSessionUpdate = "session/update"
	MethodSessionDelete = "session/delete"
	MethodSessionFork   = "session/fork"
	MethodAuthLogin     = "auth/login"
	MethodAuthLogout    = "auth/logout"
	MethodCancelRequest = "$/cancel_request"
)

// Implementation names a Client or an Agent.
type Implementation struct {
	Name    string  `json:"name"`
	Version string  `json:"version"`
	Title   *string `json:"title,omitempty"`
}

// InitializeParams are the params of initialize.
type InitializeParams struct {
	ProtocolVersion int             `json:"protocolVersion"`
	Info            Implementation  `json:"info"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
}

// SessionCapabilities are the Agent's session capabilities; {} means the
// baseline. Fork is from the unstable schema.
type SessionCapabilities struct {
	Delete *struct{} `json:"delete,omitempty"`
	Fork   *struct{} `json:"fork,omitempty"`
}

// AuthMethod is an authentication method an Agent offers.
type AuthMethod struct {
	Type     string `json:"type"`
	MethodID string `json:"methodId"`
	Name     string `json:"name"`
}

// LoginParams are the params of auth/login.
type LoginParams struct {
	MethodID string `json:"methodId"`
}

// ForkSessionParams are the params of session/fork (unstable schema).
type ForkSessionParams struct {
	SessionID  string            `json:"sessionId"`
	Cwd        string            `json:"cwd"`
	McpServers []json.RawMessage `json:"mcpServers,omitempty"`
}

// AgentCapabilities are what the Agent advertises in initialize.
type AgentCapabilities struct {
	Session *SessionCapabilities `json:"session,omitempty"`
}

// InitializeResult is the result of initialize.
type InitializeResult struct {
	ProtocolVersion int               `json:"protocolVersion"`
	Info            Implementation    `json:"info"`
	Capabilities    AgentCapabilities `json:"capabilities"`
	AuthMethods     []AuthMethod      `json:"authMethods,omitempty"`
}

// NewSessionParams are the params of session/new.
type NewSessionParams struct {
	Cwd                   string            `json:"cwd"`
	AdditionalDirectories []string          `json:"additionalDirectories,omitempty"`
	McpServers            []json.RawMessage `json:"mcpServers,omitempty"`
	// IdempotencyKey is not in the RFD: its alternative "key session/new
	// and session/fork" (the keyed-create policy, the create-keys knob).
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
}

// NewSessionResult is the result of session/new.
type NewSessionResult struct {
	SessionID string `json:"sessionId"`
}

// ReplayFrom is session/resume's replay cursor; {"type":"start"} replays all.
type ReplayFrom struct {
	Type string `json:"type"`
}

// ReplayStart is the cursor that replays the whole conversation.
const ReplayStart = "start"

// ResumeSessionParams are the params of session/resume.
type ResumeSessionParams struct {
	SessionID  string            `json:"sessionId"`
	Cwd        string            `json:"cwd"`
	McpServers []json.RawMessage `json:"mcpServers,omitempty"`
	ReplayFrom *ReplayFrom       `json:"replayFrom,omitempty"`
}

// ListSessionsParams are the params of session/list.
type ListSessionsParams struct {
	Cwd    *string `json:"cwd,omitempty"`
	Cursor *string `json:"cursor,omitempty"`
}

// SessionInfo is one entry of session/list.
type SessionInfo struct {
	SessionID string          `json:"sessionId"`
	Cwd       string          `json:"cwd"`
	Title     *string         `json:"title,omitempty"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// ListSessionsResult is the result of session/list.
type ListSessionsResult struct {
	Sessions   []SessionInfo `json:"sessions"`
	NextCursor *string       `json:"nextCursor,omitempty"`
}

// SessionParams are the params of the methods that name only a session
// (session/close, session/cancel).
type SessionParams struct {
	SessionID string `json:"sessionId"`
}

// CancelRequestParams are the params of $/cancel_request.
type CancelRequestParams struct {
	RequestID ID `json:"requestId"`
}

// ContentBlock is a content block. acpsim's model actors read the type and
// the text; a decoded block keeps its exact JSON, so fields acpsim does not
// model (a resource_link's uri, annotations, _meta) survive an echo or a
// replay byte for byte.
type ContentBlock struct {
	Type string
	Text string
	raw  json.RawMessage
}

type plainBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *ContentBlock) UnmarshalJSON(b []byte) error {
	if typ, text, ok := readPlainBlock(b); ok {
		c.Type, c.Text, c.raw = typ, text, append(json.RawMessage(nil), b...)
		return nil
	}
	var p plainBlock
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	c.Type, c.Text, c.raw = p.Type, p.Text, append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON implements json.Marshaler.
func (c ContentBlock) MarshalJSON() ([]byte, error) {
	if c.raw != nil {
		return c.raw, nil
	}
	if plainString(c.Type) && plainString(c.Text) {
		return appendPlainBlock(make([]byte, 0, 22+len(c.Type)+len(c.Text)), c.Type, c.Text), nil
	}
	return json.Marshal(plainBlock{c.Type, c.Text})
}

// A block of plain strings (plainString), as the encoder writes it: every
// prompt's text block. Such blocks are read and written directly.
const (
	plainBlockType = `{"type":"`
	plainBlockText = `","text":"`
	plainBlockEnd  = `"}`
)

func appendPlainBlock(b []byte, typ, text string) []byte {
	b = append(b, plainBlockType...)
	b = append(b, typ...)
	b = append(b, plainBlockText...)
	b = append(b, text...)
	return append(b, plainBlockEnd...)
}

// readPlainBlock reads b if appendPlainBlock could have written it.
func readPlainBlock(b []byte) (typ, text string, ok bool) { return readPlainBlockOf(string(b)) }

// readPlainBlockOf is readPlainBlock of a string: typ and text are parts
// of s.
func readPlainBlockOf(s string) (typ, text string, ok bool) {
	rest, ok := strings.CutPrefix(s, plainBlockType)
	if !ok {
		return "", "", false
	}
	typ, rest, ok = strings.Cut(rest, `"`)
	if !ok || !plainString(typ) {
		return "", "", false
	}
	rest, ok = strings.CutPrefix(rest, plainBlockText[1:]) // past the type's closing quote
	if !ok {
		return "", "", false
	}
	text, ok = strings.CutSuffix(rest, plainBlockEnd)
	if !ok || !plainString(text) {
		return "", "", false
	}
	return typ, text, true
}

// Text returns a single text block.
func Text(s string) ContentBlock { return ContentBlock{Type: "text", Text: s} }

// PromptParams are the params of session/prompt. IdempotencyKey keeps its raw
// JSON so omitted (nil), null and "" stay distinct; use Key to validate it.
type PromptParams struct {
	SessionID      string          `json:"sessionId"`
	Prompt         []ContentBlock  `json:"prompt"`
	IdempotencyKey json.RawMessage `json:"idempotencyKey,omitempty"`
	Meta           json.RawMessage `json:"_meta,omitempty"`
	// KeyText is the key as the Client that writes these params holds it,
	// when IdempotencyKey is that string written plainly (KeyJSON), "" when
	// not known. It is never written or read: RequestDigest hands it on
	// (Digest.Key), so that the checker of a simulation meets the Client's
	// own string, not a copy cut from the frame.
	KeyText string `json:"-"`
}

// PromptText joins the text blocks of a prompt; the model actors compare prompts by it.
func PromptText(blocks []ContentBlock) string {
	if len(blocks) == 1 {
		return blocks[0].Text
	}
	var b strings.Builder
	for _, c := range blocks {
		b.WriteString(c.Text)
	}
	return b.String()
}

// PromptResult is the result of session/prompt: the inserted user message.
type PromptResult struct {
	MessageID string          `json:"messageId"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// Session update kinds acpsim produces and reads. Others are tolerated.
const (
	UpdateUserMessage       = "user_message"
	UpdateUserMessageChunk  = "user_message_chunk"
	UpdateAgentMessage      = "agent_message"
	UpdateAgentMessageChunk = "agent_message_chunk"
	UpdateState             = "state_update"
)

// Session states carried by state_update.
const (
	StateRunning = "running"
	StateIdle    = "idle"
)

// Update is the update of a session/update notification. Content is an array
// for whole messages and a single block for chunks, so it stays raw; unknown
// update kinds decode with only Kind set.
type Update struct {
	Kind       string          `json:"sessionUpdate"`
	MessageID  string          `json:"messageId,omitempty"`
	Content    json.RawMessage `json:"content,omitempty"`
	State      string          `json:"state,omitempty"`
	StopReason string          `json:"stopReason,omitempty"`
	Meta       json.RawMessage `json:"_meta,omitempty"`
	// text is the string Content's one text block was written from, when
	// its maker had it (MessageUpdate, ChunkUpdate, ContentUpdate): the
	// frame's digest names that string, not a copy cut from the bytes, so
	// that a text keeps its register's handle (sim.Names) on the way.
	text string
}

// SessionUpdateParams are the params of session/update.
type SessionUpdateParams struct {
	SessionID string          `json:"sessionId"`
	Update    Update          `json:"update"`
	Meta      json.RawMessage `json:"_meta,omitempty"`
}

// MessageUpdate is a whole-message update carrying text content.
func MessageUpdate(kind, messageID, text string) Update {
	c := append(textBlock([]byte{'['}, text), ']')
	return Update{Kind: kind, MessageID: messageID, Content: c, text: text}
}

// ContentUpdate is a whole-message update carrying content as written
// before (a stored message's), whose text is text when it is one text
// block.
func ContentUpdate(kind, messageID string, content json.RawMessage, text string) Update {
	return Update{Kind: kind, MessageID: messageID, Content: content, text: text}
}

// BlocksUpdate is a whole-message update carrying content blocks as given.
func BlocksUpdate(kind, messageID string, blocks []ContentBlock) Update {
	c, _ := json.Marshal(blocks)
	return Update{Kind: kind, MessageID: messageID, Content: c}
}

// ChunkUpdate is a chunk update carrying one text block.
func ChunkUpdate(kind, messageID, text string) Update {
	return Update{Kind: kind, MessageID: messageID, Content: textBlock(nil, text), text: text}
}

// StateUpdate is a state_update; stopReason is set only for idle.
func StateUpdate(state, stopReason string) Update {
	return Update{Kind: UpdateState, State: state, StopReason: stopReason}
}

// ContentText returns the text of an update's content, whether an array of
// blocks or a single block. ok is false when there is no readable content.
func (u *Update) ContentText() (text string, ok bool) {
	c := u.Content
	if len(c) == 0 || string(c) == "null" {
		return "", false
	}
	if c[0] == '[' {
		var blocks []ContentBlock
		if json.Unmarshal(c, &blocks) != nil {
			return "", false
		}
		return PromptText(blocks), true
	}
	var b ContentBlock
	if json.Unmarshal(c, &b) != nil {
		return "", false
	}
	return b.Text, true
}
