package clientcheck

import (
	"encoding/json"
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
)

// Setup is how far a Client got towards its first prompt, read from its
// frames: what a seed in which it sent no session/prompt says in one line,
// instead of a pass that judged nothing.
type Setup struct {
	// Prompts counts the session/prompt requests the Client sent.
	Prompts int
	// Peer is what the Client's first initialize request says of the
	// protocol version it speaks.
	Peer acp.PeerVersion
	// SessionReady is set once a session/new was answered with a
	// sessionId, or a session/resume or session/load answered at all.
	SessionReady bool
	// Initialized is set once an initialize of the Client was answered,
	// with a result or an error.
	Initialized bool
	// Stage says, in plain words, the furthest step of the set-up the
	// frames show and what went wrong there; Why() puts it in a sentence.
	Stage string
}

// Why is the one line a seed without a prompt prints.
func (s Setup) Why() string {
	return "the Client sent no session/prompt: " + s.Stage
}

// ReadSetup reads the set-up from the frames (in trace order).
func ReadSetup(frames []Frame) Setup {
	var s Setup
	asked := map[int]map[string]string{} // conn → request id → method
	var initParams json.RawMessage
	initSeen, newSeen := false, false
	var initAnswer, newAnswer string // "" until answered
	for _, f := range frames {
		if asked[f.Conn] == nil {
			asked[f.Conn] = map[string]string{}
		}
		for _, e := range acp.ParseLine(f.Bytes).Entries {
			if e.Err != nil {
				continue
			}
			m := e.Msg
			id := string(m.ID)
			switch {
			case f.Dir == "c2a" && m.Kind() == acp.KindRequest:
				asked[f.Conn][id] = m.Method
				switch m.Method {
				case acp.MethodInitialize:
					if !initSeen {
						initSeen, initParams = true, m.Params
					}
				case acp.MethodSessionNew:
					newSeen = true
				case acp.MethodSessionPrompt:
					s.Prompts++
				}
			case f.Dir == "a2c" && m.Kind() == acp.KindResponse:
				switch asked[f.Conn][id] {
				case acp.MethodInitialize:
					s.Initialized = true
					if initAnswer == "" || m.Error == nil {
						initAnswer = answerOf(m)
					}
				case acp.MethodSessionNew:
					var r struct {
						SessionID string `json:"sessionId"`
					}
					switch {
					case m.Error != nil:
						newAnswer = answerOf(m)
					case json.Unmarshal(m.Result, &r) != nil || r.SessionID == "":
						newAnswer = "answered without a sessionId"
					default:
						newAnswer, s.SessionReady = "ok", true
					}
				case acp.MethodSessionResume, "session/load":
					s.SessionReady = s.SessionReady || m.Error == nil
				}
			}
		}
	}
	s.Peer = acp.ReadPeerVersion(initParams)
	asks := "asking for protocolVersion " + versionOf(s.Peer)
	switch {
	case len(frames) == 0:
		s.Stage = "no frame reached the Agent: the Client never spoke to $ACPSIM_AGENT"
	case s.Peer.V1:
		s.Stage = "it speaks ACP v1 (" + s.Peer.Why + ")"
	case s.SessionReady:
		s.Stage = "its session was set up, but it never prompted"
	case !initSeen:
		s.Stage = "it sent no initialize"
	case initAnswer == "":
		s.Stage = fmt.Sprintf("its initialize (%s) was never answered", asks)
	case initAnswer != "ok":
		s.Stage = fmt.Sprintf("the Agent refused its initialize (%s): %s", asks, initAnswer)
	case !newSeen:
		s.Stage = "initialize answered, but no session/new reached the Agent"
	case newAnswer == "":
		s.Stage = "nothing answered its session/new"
	default:
		s.Stage = "its session/new was " + prefixed(newAnswer)
	}
	return s
}

// answerOf is "ok" for a result, else the error as code and message.
func answerOf(m acp.Message) string {
	if m.Error == nil {
		return "ok"
	}
	return fmt.Sprintf("error %d %s", m.Error.Code, m.Error.Message)
}

func prefixed(answer string) string {
	if len(answer) > 5 && answer[:5] == "error" {
		return "refused: " + answer
	}
	return answer
}

func versionOf(p acp.PeerVersion) string {
	if p.Version == 0 {
		return "(none)"
	}
	return fmt.Sprint(p.Version)
}
