// Set-up that never completes: a session/new answered without a sessionId,
// or never answered while its connection lives. Either leaves the Clients
// with no session to prompt in, so without a verdict here the run would
// judge no prompt at all and pass, or wait out its cap.

package check

import (
	"encoding/json"
	"fmt"

	"github.com/acpsim/acpsim/actors/acp"
)

// peer is who the verdicts on the path blame: the Agent, or under --via the
// proxy in front of it, which acpsim cannot tell apart from the Agent.
func (d *driver) peer() string {
	if d.cfg.Via != "" {
		return "the proxy or the Agent behind it"
	}
	return "the Agent"
}

// sessionNewSent arms the wait for a session/new just sent on l. The model
// Client asks again on the same connection after its own timeout, so what
// is waited for is any session/new answer on l: a single request lost on
// the way (HTTP) is then no verdict, an Agent that answers none is.
func (d *driver) sessionNewSent(l *rlink) {
	answered := l.newAnswered
	d.afterReal(d.cfg.StartTimeout, func() { d.sessionNewTimeout(l, answered) })
}

func (d *driver) sessionNewTimeout(l *rlink, answered int) {
	if l.newAnswered != answered || !l.alive || l.gone != "" || l.cutBy != "" || d.broken != nil || d.stopping {
		return
	}
	if d.restarting {
		// The remote Agent is being restarted: its silence is the restart's.
		d.afterReal(d.cfg.StartTimeout, func() { d.sessionNewTimeout(l, answered) })
		return
	}
	d.broken = &BrokenAgent{Kind: BrokenSessionNoReply, Process: l.agent,
		Detail: fmt.Sprintf("%s answered initialize but no session/new on that connection within %v: no session could be made, so no prompt was sent",
			d.peer(), d.cfg.StartTimeout)}
}

// sessionNewAnswered notes an answer to a session/new on l and says what is
// wrong with it, "" when nothing is: an error is an answer a Client can act
// on, a result must name the session with a non-empty string.
func (d *driver) sessionNewAnswered(l *rlink, m *acp.Message) string {
	l.newAnswered++
	if m.Error != nil {
		return ""
	}
	var res struct {
		SessionID json.RawMessage `json:"sessionId"`
	}
	if json.Unmarshal(m.Result, &res) != nil {
		return fmt.Sprintf("%s answered session/new with a result that is not an object, so no session could be made and no prompt was sent", d.peer())
	}
	var id string
	switch {
	case res.SessionID == nil:
		return fmt.Sprintf("%s answered session/new without a sessionId, so no session could be made and no prompt was sent", d.peer())
	case json.Unmarshal(res.SessionID, &id) != nil || id == "":
		return fmt.Sprintf("%s answered session/new with sessionId %s, not a non-empty string, so no session could be made and no prompt was sent", d.peer(), res.SessionID)
	}
	return ""
}
