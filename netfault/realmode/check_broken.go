// The verdict on a broken Agent: one that cannot be talked to at all (not
// JSON on stdout, unknown ids, initialize failing or unanswered), which
// stops the run.

package realmode

import (
	"bytes"
	"fmt"
	"strconv"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
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
)

// brokenFrame checks what no Agent may write on stdout: not JSON, not
// JSON-RPC, an answer to a request never sent, an error for initialize.
func (d *driver) brokenFrame(l *rlink, frame []byte, line acp.Line) *BrokenAgent {
	b := &BrokenAgent{Process: l.agent}
	for _, e := range line.Entries {
		if e.Err != nil {
			b.Kind, b.Detail = BrokenNotJSONRPC, fmt.Sprintf("the Agent wrote %s on stdout, which is not a JSON-RPC 2.0 message (%v); stdout must carry only ACP messages", quote(frame), e.Err.Message)
			if e.Err.Code == acp.CodeParseError {
				b.Kind, b.Detail = BrokenNotJSON, fmt.Sprintf("the Agent wrote %s on stdout, which is not JSON; stdout must carry only ACP messages (logs go to stderr)", quote(frame))
			}
			return b
		}
		if e.Msg.Kind() != acp.KindResponse {
			continue
		}
		m, ok := l.methods[e.Msg.ID]
		if !ok {
			b.Kind, b.Detail = BrokenUnknownID, fmt.Sprintf("the Agent answered request id %s, which this connection never sent: %s", e.Msg.ID, quote(frame))
			return b
		}
		if m == acp.MethodInitialize {
			l.initAnswered = true
			if l.cn != nil {
				l.cn.unreachableSince = time.Time{}
			}
			if e.Msg.Error != nil {
				b.Kind, b.Detail = BrokenInitError, fmt.Sprintf("the Agent answered initialize with error %d %q", e.Msg.Error.Code, e.Msg.Error.Message)
				return b
			}
		}
	}
	return nil
}

func quote(frame []byte) string {
	const max = 200
	if len(frame) > max {
		return strconv.Quote(string(frame[:max])) + "…"
	}
	return strconv.Quote(string(frame))
}

func (d *driver) initTimeout(l *rlink) {
	if l.initAnswered || !l.alive || l.gone != "" || l.cutBy != "" || d.broken != nil {
		return
	}
	if d.restarting {
		// The remote Agent is being restarted: its silence is the restart's.
		d.after(d.cfg.StartTimeout, func() { d.initTimeout(l) })
		return
	}
	wrote := "it wrote nothing on stdout"
	if l.linesA2C > 0 {
		wrote = fmt.Sprintf("it wrote %d line(s) on stdout, the last %s", l.linesA2C, quote(l.lastA2C))
		if bytes.Equal(l.lastA2C, l.sentInit) {
			wrote += ": the initialize request it was sent, echoed back"
		}
	}
	d.broken = &BrokenAgent{Kind: BrokenNoAnswer, Process: l.agent,
		Detail: fmt.Sprintf("the Agent did not answer initialize within %v; %s", d.cfg.StartTimeout, wrote)}
}
