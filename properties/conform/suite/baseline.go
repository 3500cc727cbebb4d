// Baselines: the cases every other case stands on (initialize, session/new,
// a turn reported by state_update, session/resume with replay, session/list,
// session/close). They run first; a case whose baseline failed is blocked
// by it, not failed, for what it would fail on is the missing method, not
// the rule it checks.

package suite

import (
	"fmt"
	"sort"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
)

// BaselinePrefix starts the id of every baseline case.
const BaselinePrefix = "baseline-"

// baselineOrder is the order the baselines run in: each one stands on
// the ones before it.
var baselineOrder = []string{"baseline-init", "baseline-new", "baseline-turn", "baseline-resume", "baseline-list", "baseline-close"}

// Requirement is one requires line of a case: the baseline it needs and,
// when only part of the case needs it, that part (For: the labels of the
// requests that use it, or the names of the rules that read it). Without
// For the whole case needs the baseline.
type Requirement struct {
	Baseline string
	For      []string
}

// IsBaseline says whether c is a baseline case.
func (c *Case) IsBaseline() bool { return strings.HasPrefix(c.ID, BaselinePrefix) }

// parseRequirement reads "baseline-resume [for=transcript,forked]".
func parseRequirement(rest string) (Requirement, error) {
	words := strings.Fields(rest)
	if len(words) == 0 || len(words) > 2 || !strings.HasPrefix(words[0], BaselinePrefix) {
		return Requirement{}, fmt.Errorf("requires takes a baseline id and optionally for=LABEL,…: %q", rest)
	}
	r := Requirement{Baseline: words[0]}
	if len(words) == 2 {
		parts, ok := strings.CutPrefix(words[1], "for=")
		if !ok || parts == "" {
			return r, fmt.Errorf("requires %s: expected for=LABEL,…, got %q", r.Baseline, words[1])
		}
		r.For = strings.Split(parts, ",")
	}
	return r, nil
}

// checkRequirements refuses a requires line naming no baseline case.
func checkRequirements(cases []*Case) error {
	ids := map[string]bool{}
	for _, c := range cases {
		ids[c.ID] = true
	}
	for _, c := range cases {
		for _, r := range c.Requires {
			if !ids[r.Baseline] {
				return fmt.Errorf("%s: requires %s, which is no baseline case", c.File, r.Baseline)
			}
		}
	}
	return nil
}

// WithBaselines adds to selected every baseline a selected case needs,
// directly or through another baseline, in the suite's order: a --run
// that picks one case still learns what that case stands on.
func WithBaselines(all, selected []*Case) []*Case {
	byID := map[string]*Case{}
	for _, c := range all {
		byID[c.ID] = c
	}
	want := map[string]bool{}
	var add func(c *Case)
	add = func(c *Case) {
		if want[c.ID] {
			return
		}
		want[c.ID] = true
		for _, r := range c.Requires {
			if b := byID[r.Baseline]; b != nil {
				add(b)
			}
		}
	}
	for _, c := range selected {
		add(c)
	}
	var out []*Case
	for _, c := range all {
		if want[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// Plan says how case c runs given the verdicts of the baselines run so
// far (by id). blocked is non-nil when a baseline c wholly needs did not
// pass: c is not run and blocked is its verdict. Otherwise skip names the
// labels and rules of c that stand on a baseline that did not pass (with
// why), for Exec.Skip; the rest of c runs and is judged.
func Plan(c *Case, baselines map[string]Verdict) (blocked *Verdict, skip map[string]Skip) {
	for _, r := range c.Requires {
		v, ran := baselines[r.Baseline]
		if !ran || v.Status == Pass {
			continue
		}
		why := blockedBy(v)
		if len(r.For) == 0 {
			return &Verdict{Case: c, Status: Blocked, Why: why, BlockedBy: rootBaseline(v)}, nil
		}
		if skip == nil {
			skip = map[string]Skip{}
		}
		for _, l := range r.For {
			skip[l] = Skip{By: rootBaseline(v), Why: why}
		}
	}
	return nil, skip
}

// Skip is why a part of a case is not run: the baseline it stands on (By)
// did not pass.
type Skip struct{ By, Why string }

// rootBaseline is the baseline that failed at the bottom of a chain of
// blocked baselines (baseline-close blocked by baseline-resume: resume).
func rootBaseline(v Verdict) string {
	if v.Status == Blocked && v.BlockedBy != "" {
		return v.BlockedBy
	}
	return v.Case.ID
}

// blockedBy is a blocked case's why: "blocked by baseline-resume: …".
func blockedBy(v Verdict) string {
	if v.Status == Blocked {
		return v.Why
	}
	return fmt.Sprintf("blocked by %s: %s", v.Case.ID, v.Why)
}

// MissingBaselines says in plain words which baselines did not pass and
// how many cases each blocked, for the first lines of a report ("" when
// every baseline passed).
func MissingBaselines(vs []Verdict) []string {
	blocked := map[string]int{}
	for _, v := range vs {
		if v.Status == Blocked && !v.Case.IsBaseline() {
			blocked[v.BlockedBy]++
		}
	}
	var out []string
	for _, v := range vs {
		if !v.Case.IsBaseline() || v.Status == Pass || v.Status == Blocked {
			continue
		}
		line := fmt.Sprintf("missing baseline %s: %s: %s", v.Case.ID, v.Case.Title, v.Why)
		if n := blocked[v.Case.ID]; n > 0 {
			line += fmt.Sprintf(" (%d case(s) blocked by it)", n)
		}
		out = append(out, line)
	}
	return out
}

// KeyDiagnosis is the one line that names the real cause when every keyed
// retry the suite judged was answered as a new prompt: the Agent does not
// act on idempotencyKey (an Agent on an SDK whose parser drops the field
// before the handler runs does exactly this). "" otherwise.
func KeyDiagnosis(vs []Verdict) string {
	judged, fresh := 0, 0
	var ids []string
	for _, v := range vs {
		judged += v.keyRetries
		fresh += v.keyIgnored
		if v.keyIgnored > 0 {
			ids = append(ids, v.Case.ID)
		}
	}
	if judged == 0 || fresh != judged {
		return ""
	}
	sort.SliceStable(ids, func(i, j int) bool { return less(ids[i], ids[j]) })
	return fmt.Sprintf("every keyed retry was answered as a new prompt (a new messageId), in %d case(s) (%s): the Agent does not act on idempotencyKey",
		len(ids), strings.Join(ids, ", "))
}

// Skip leaves out of the run the requests whose label skip names (they
// stand on a baseline that did not pass) and leaves unjudged the rules
// that read them or that skip names. Call it before the first Next.
func (e *Exec) Skip(skip map[string]Skip) { e.skip = skip }

// skips says whether the run leaves out step s: a request (or a
// notification about one) whose label is skipped.
func (e *Exec) skips(s step) bool {
	_, as := e.skip[s.arg("as")]
	_, about := e.skip[s.arg("request")]
	return as || about
}

// skipped says whether rule step s (needs or expect) reads a skipped
// label or is a skipped rule, and why.
func (e *Exec) skipped(s step) (Skip, bool) {
	names := append([]string{}, s.pos...)
	for _, v := range s.args {
		names = append(names, v)
	}
	for _, n := range names {
		if sk, ok := e.skip[n]; ok && n != "" {
			return sk, true
		}
	}
	return Skip{}, false
}

// peer is what the first answered initialize says of the Agent's version.
func (e *Exec) peer() acp.PeerVersion {
	for _, r := range e.order {
		if r.method == acp.MethodInitialize && r.ok() {
			return acp.ReadPeerVersion(r.answer.msg.Result)
		}
	}
	return acp.PeerVersion{}
}

// answerOnly are the needs rules that read nothing but the answers of the
// requests they name: once those are in, whether the case applies is known.
var answerOnly = map[string]bool{"stored-session": true, "resumable": true, "ok": true, "error": true}

// decidedNotToApply: some needs rule that reads only answers already has
// them all and does not hold, so the case is n/a whatever follows; it is
// kept in e.decided, for Verdict to judge first.
func (e *Exec) decidedNotToApply() bool {
	for _, s := range e.c.steps {
		if s.cmd != "needs" || !answerOnly[s.pos[0]] {
			continue
		}
		if _, skipped := e.skipped(s); skipped {
			continue
		}
		all := true
		for _, l := range s.pos[1:] {
			r := e.reqs[l]
			all = all && r != nil && (r.answer != nil || r.lost != "")
		}
		if all && !e.check(s).held {
			e.decided = &s
			return true
		}
	}
	return false
}
