// This file holds the mutant whose session set-up keeps failing: every
// session/resume is answered -32603, as an Agent whose storage backend is
// down (or an SDK Agent whose handler throws) answers it.

package mutants

import (
	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
)

// ResumeError is the message of the -32603 the resume-always-errors mutant
// answers every session/resume with.
const ResumeError = "storage unavailable"

func newResumeAlwaysErrors(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		if m.Method != acp.MethodSessionResume || m.Kind() != acp.KindRequest {
			return frame, nil
		}
		return nil, []agent.Output{{Kind: agent.OutSend, Step: "respond-resume-error", Conn: conn,
			Frame: acp.ErrorResponse(m.ID, acp.Errorf(acp.CodeInternalError, ResumeError))}}
	}
	return w
}
