// This file holds the rule for probes: requests the trace notes as malformed
// on purpose (traces.NoteProbe), the observer's malformed-key prompts. Their
// schema problem at the key is what they are for, so it is not reported;
// what is reported is a probe that is not malformed (it tests nothing) and an
// Agent that did not refuse one with -32602 (it took a malformed key for a
// key, or for none). A probe never answered is left to the checker's
// bad-reply, which knows whether its connection lived long enough.

package conform

import (
	"fmt"
	"strconv"

	"github.com/acpsim/acpsim/actors/acp"
)

// probeProblems takes out of ps, the problems of probe request m, the
// schema problem at its key that makes it a probe; without one, the probe
// is a RuleProbe problem.
func probeProblems(dir string, m *jsonrpcMsg, ps []Problem) []Problem {
	keyPtr := m.ptr + "/params/" + keyField
	out := ps[:0]
	malformed := false
	for _, p := range ps {
		if p.Rule == RuleSchema && p.Pointer == keyPtr {
			malformed = true
			continue
		}
		out = append(out, p)
	}
	if !malformed {
		out = append(out, Problem{Dir: dir, Rule: RuleProbe, Pointer: keyPtr,
			Msg: "a request noted as a probe whose idempotencyKey is well-formed: a probe must carry a malformed key (empty, over 255 characters, not a string)"})
	}
	return out
}

// probeAnswerProblems checks m, the answer to the probe sent as event
// probeSeq: only an error -32602 refuses it.
func probeAnswerProblems(dir string, m *jsonrpcMsg, probeSeq int64) []Problem {
	var got string
	switch m.kind {
	case kindResult:
		got = "a result: the Agent accepted it"
	case kindError:
		// The frame was decoded with json.Number: compare the code's text.
		e, _ := m.obj["error"].(map[string]any)
		code := fmt.Sprint(e["code"])
		if code == strconv.Itoa(acp.CodeInvalidParams) {
			return nil
		}
		got = "error " + code
	}
	return []Problem{{Dir: dir, Rule: RuleProbe, Pointer: m.ptr,
		Msg: fmt.Sprintf("answered the malformed-key probe of seq %d with %s: expected error -32602 (invalid params)", probeSeq, got)}}
}
