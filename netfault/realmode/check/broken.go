// The verdict on a broken Agent: one that cannot be talked to at all (not
// JSON on stdout, unknown ids, initialize failing or unanswered), which
// stops the run.

package check

import (
	"bytes"
	"fmt"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
)

// BrokenAgent is an Agent failing below the properties: it cannot be talked
// to at all, so the run was stopped.
type BrokenAgent struct {
	Kind    string // one of the Broken* kinds
	Process string // the Agent process ("a1#3")
	Detail  string // in plain words, with what it wrote or said (one line)
	// Stderr is the end of what the process wrote on stderr
	// (StderrExcerpt), for a process that died; the trace's kill event of
	// it holds the whole.
	Stderr []string
	// StderrLines counts the non-empty lines it wrote on stderr.
	StderrLines int
	// Path is set under --via: the Agent acpsim started is a proxy, and
	// what broke is the proxy or the Agent behind it.
	Path bool
}

func (b *BrokenAgent) Error() string { return b.Detail }

// Kinds of BrokenAgent.
const (
	BrokenExitedAtStart = "exited-at-start"
	BrokenNotJSON       = "not-json"
	BrokenNotJSONRPC    = "not-jsonrpc"
	BrokenInitError     = "initialize-error"
	BrokenNoAnswer      = "no-answer"
	BrokenUnknownID     = "unknown-id"
	BrokenStdin         = "not-reading"
	BrokenUnreachable   = "unreachable"
	// Set-up that never completes (setup.go): session/new answered
	// without a sessionId, or not answered at all.
	BrokenNoSessionID    = "session-new-without-id"
	BrokenSessionNoReply = "session-new-no-answer"
	// BrokenSpeaksV1 is no fault of the Agent: it answered initialize in
	// ACP v1, which these checks do not cover. The run stops as for a
	// broken Agent (later seeds would say the same), and its verdict is
	// inconclusive, its Detail the one line acp.PeerVersion.V1Line.
	BrokenSpeaksV1 = "speaks-v1"
	// BrokenNoV1 is no fault of the Agent either: pinned to ACP v1
	// (Config.Protocol 1), the Clients met an Agent that refused v1
	// (-32022) or answered in v2. Inconclusive, as BrokenSpeaksV1.
	BrokenNoV1 = "no-v1"
)

// Inconclusive reports whether b is a version the run was not set to
// speak, rather than a broken Agent: nothing is judged, nothing is failed.
func (b *BrokenAgent) Inconclusive() bool { return b.Kind == BrokenSpeaksV1 || b.Kind == BrokenNoV1 }

// brokenFrame checks what no Agent may write on stdout: not JSON, not
// JSON-RPC, an answer to a request never sent, an error for initialize.
func (d *driver) brokenFrame(l *rlink, frame []byte, line acp.Line) *BrokenAgent {
	b := &BrokenAgent{Process: l.agent}
	for _, e := range line.Entries {
		if e.Err != nil {
			b.Kind, b.Detail = BrokenNotJSONRPC, fmt.Sprintf("%s wrote %s on stdout, which is not a JSON-RPC 2.0 message (%v); stdout must carry only ACP messages", d.peer(), proc.Quote(frame), e.Err.Message)
			if e.Err.Code == acp.CodeParseError {
				b.Kind, b.Detail = BrokenNotJSON, fmt.Sprintf("%s wrote %s on stdout, which is not JSON; stdout must carry only ACP messages (logs go to stderr)", d.peer(), proc.Quote(frame))
			}
			return b
		}
		if e.Msg.Kind() != acp.KindResponse {
			continue
		}
		m, ok := l.methods[e.Msg.ID]
		if !ok {
			b.Kind, b.Detail = BrokenUnknownID, fmt.Sprintf("%s answered request id %s, which this connection never sent: %s", d.peer(), e.Msg.ID, proc.Quote(frame))
			return b
		}
		if m == acp.MethodInitialize {
			l.initAnswered = true
			if l.cn != nil {
				l.cn.unreachableSince = time.Time{}
			}
			if e.Msg.Error != nil && d.cfg.Protocol == acp.ProtocolV1 && e.Msg.Error.Code == acp.CodeUnsupportedVersion {
				b.Kind, b.Detail = BrokenNoV1, fmt.Sprintf("%s does not speak ACP v1 (it answered initialize with error %d %q): --protocol 1 pins v1; --protocol auto checks it in the version it speaks; nothing judged", d.peer(), e.Msg.Error.Code, e.Msg.Error.Message)
				return b
			}
			if e.Msg.Error != nil {
				b.Kind, b.Detail = BrokenInitError, fmt.Sprintf("%s answered initialize with error %d %q", d.peer(), e.Msg.Error.Code, e.Msg.Error.Message)
				return b
			}
			if v := acp.ReadPeerVersion(e.Msg.Result); d.cfg.Protocol == acp.ProtocolV1 && !v.V1 {
				b.Kind, b.Detail = BrokenNoV1, fmt.Sprintf("%s answered initialize in ACP v2 (protocolVersion %d) to a Client pinned to v1 (--protocol 1; --protocol auto checks it in v2); nothing judged", d.peer(), v.Version)
				return b
			}
			if v := acp.ReadPeerVersion(e.Msg.Result); v.V1 && d.cfg.Protocol != acp.ProtocolV1 {
				b.Kind, b.Detail = BrokenSpeaksV1, v.V1Line(d.peer())
				return b
			}
		}
		if m == acp.MethodSessionNew {
			if why := d.sessionNewAnswered(l, &e.Msg); why != "" {
				b.Kind, b.Detail = BrokenNoSessionID, why+": "+proc.Quote(frame)
				return b
			}
		}
	}
	return nil
}

func (d *driver) initTimeout(l *rlink) {
	if l.initAnswered || !l.alive || l.gone != "" || l.cutBy != "" || d.broken != nil {
		return
	}
	if d.restarting {
		// The remote Agent is being restarted: its silence is the restart's.
		d.afterReal(d.cfg.StartTimeout, func() { d.initTimeout(l) })
		return
	}
	wrote := "it wrote nothing on stdout"
	if l.linesA2C > 0 {
		wrote = fmt.Sprintf("it wrote %d line(s) on stdout, the last %s", l.linesA2C, proc.Quote(l.lastA2C))
		if bytes.Equal(l.lastA2C, l.sentInit) {
			wrote += ": the initialize request it was sent, echoed back"
		}
	}
	d.broken = &BrokenAgent{Kind: BrokenNoAnswer, Process: l.agent,
		Detail: fmt.Sprintf("%s did not answer initialize within %v; %s", d.peer(), d.cfg.StartTimeout, wrote)}
}
