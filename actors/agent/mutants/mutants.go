// Package mutants holds known-bad model Agents. Each breaks one rule of the
// RFD in a way real Agents plausibly would, and each property checker must
// catch at least one of them: a checker that cannot fail is a defect.
//
// A mutant wraps the reference Agent and rewrites what goes in or comes out,
// so the reference stays free of deliberate bugs.
package mutants

import (
	"encoding/json"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
)

// The mutants, as data: name, what is wrong with it, how to build it, and
// the anomaly a checker must report for it.
var mutants = []struct {
	name, doc string
	build     agent.Factory
	catch     string
}{
	{"ignore-key", "ignores idempotencyKey: every retry inserts again", newIgnoreKey, "duplicate"},
	{"bind-on-arrival", "binds the key when the request arrives, so an error leaves it used", newBindOnArrival, "lost"},
	{"memory-keys", "keeps key bindings only in process memory: a restart forgets them", newMemoryKeys, "duplicate"},
	{"echo-key", "echoes the key in the user_message update's _meta", newEchoKey, "key-leak"},
	{"new-id-on-retry", "answers a retry with a new messageId (inserting nothing)", newNewIDOnRetry, "wrong-id"},
	{"rework-on-retry", "answers a retry from the binding, then runs the work again", newReworkOnRetry, "rework"},
	{"lenient-key", "treats a malformed idempotencyKey (\"\", too long, not a string) as no key", newLenientKey, "bad-reply"},
	{"key-in-list-meta", "shows each session's last key in session/list's _meta", newKeyInListMeta, "key-leak"},
	{"agent-scoped-keys", "scopes keys per Agent instead of per session: the same key in another session is taken for a retry", newAgentScopedKeys, "lost"},
	{"fold-key-case", "folds key case: keys that differ only in case are taken for one", newFoldKeyCase, "wrong-id"},
	{"new-ids-on-replay", "mints new message ids on replay instead of keeping the originals", newNewIDsOnReplay, "lost"},
	{"cancel-only-named", "$/cancel_request answers only the named request -32800; the prompt stays held and is inserted", newCancelOnlyNamed, "bad-reply"},
	{"insert-after-close", "session/close answers held prompts -32800 but inserts them later", newInsertAfterClose, "bad-reply"},
	{"cancel-keeps-held", "session/cancel stops the work but leaves held prompts to be inserted", newCancelKeepsHeld, "bad-reply"},
	{"fork-forgets-parent", "forking a session makes the Agent forget the parent's key bindings", newForkForgetsParent, "duplicate"},
	{"adapter-no-rebuild", "an adapter that never reads the message ids back from the runtime's history: after a restart a retry is submitted again", newAdapterNoRebuild, "duplicate"},
}

// Catches is the anomaly kind the checkers must report for the named
// mutant ("" for a name that is not a mutant).
func Catches(name string) string {
	for _, m := range mutants {
		if m.name == name {
			return m.catch
		}
	}
	return ""
}

func init() {
	for _, m := range mutants {
		agent.Register(m.name, m.doc, m.build)
	}
}

// Names lists the mutants in the order of the table.
func Names() []string {
	out := make([]string, 0, len(mutants))
	for _, m := range mutants {
		out = append(out, m.name)
	}
	return out
}

// wrapper runs the reference Agent with hooks on the frames going in and the
// outputs coming out.
type wrapper struct {
	inner agent.Machine
	env   agent.Env
	// in may rewrite or swallow an incoming single message; it returns the
	// frame to pass on (nil to swallow) and outputs of its own.
	in func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output)
	// out may rewrite one output of the reference into several.
	out func(o agent.Output) []agent.Output
}

func (w *wrapper) Connect(conn string) []agent.Output    { return w.post(w.inner.Connect(conn)) }
func (w *wrapper) Disconnect(conn string) []agent.Output { return w.post(w.inner.Disconnect(conn)) }
func (w *wrapper) Timer(id int) []agent.Output           { return w.post(w.inner.Timer(id)) }

func (w *wrapper) Receive(conn string, frame []byte) []agent.Output {
	var own []agent.Output
	if w.in != nil {
		if line := acp.ParseLine(frame); !line.Batch && line.Entries[0].Err == nil {
			frame, own = w.in(conn, &line.Entries[0].Msg, frame)
		}
	}
	if frame == nil {
		return own
	}
	return append(own, w.post(w.inner.Receive(conn, frame))...)
}

func (w *wrapper) post(outs []agent.Output) []agent.Output {
	if w.out == nil {
		return outs
	}
	var res []agent.Output
	for _, o := range outs {
		res = append(res, w.out(o)...)
	}
	return res
}

func reference(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.New(k, open(), env)
}

// promptOf decodes a session/prompt request's params and key.
func promptOf(m *acp.Message) (p acp.PromptParams, key string, ok bool) {
	if m.Method != acp.MethodSessionPrompt || acp.DecodeParams(m.Params, &p) != nil {
		return p, "", false
	}
	key, present, err := p.Key()
	return p, key, present && err == nil
}

type reqRef struct {
	conn string
	id   acp.ID
}

// responseOf decodes an outgoing response frame.
func responseOf(o agent.Output) (*acp.Message, bool) {
	if o.Kind != agent.OutSend {
		return nil, false
	}
	line := acp.ParseLine(o.Frame)
	if line.Batch || line.Entries[0].Err != nil || line.Entries[0].Msg.Kind() != acp.KindResponse {
		return nil, false
	}
	return &line.Entries[0].Msg, true
}

func newIgnoreKey(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(_ string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		p, _, ok := promptOf(m)
		if !ok {
			return frame, nil
		}
		p.IdempotencyKey = nil
		m.Params, _ = json.Marshal(p)
		return acp.Encode(m), nil
	}
	return w
}

func newBindOnArrival(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	arrived := map[reqRef][2]string{} // request → (session, key)
	bound := map[[2]string]string{}   // (session, key) → messageId bound at arrival
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		p, key, ok := promptOf(m)
		if !ok {
			return frame, nil
		}
		sk := [2]string{p.SessionID, key}
		if id, ok := bound[sk]; ok {
			return nil, []agent.Output{{Kind: agent.OutSend, Step: "respond-from-binding", Conn: conn,
				Frame: acp.Result(m.ID, acp.PromptResult{MessageID: id})}}
		}
		arrived[reqRef{conn, m.ID}] = sk
		return frame, nil
	}
	w.out = func(o agent.Output) []agent.Output {
		if r, ok := responseOf(o); ok {
			ref := reqRef{o.Conn, r.ID}
			if sk, ok := arrived[ref]; ok {
				delete(arrived, ref)
				if r.Error != nil { // the key was bound on arrival: the error leaves it used
					bound[sk] = env.NewID()
				}
			}
		}
		return []agent.Output{o}
	}
	return w
}

func newMemoryKeys(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.New(k, agent.InMemoryBindings(open()), env)
}

// keyTracker remembers which key each answered prompt carried.
type keyTracker struct {
	reqs  map[reqRef][2]string // request → (session, key)
	first map[[2]string]string // (session, key) → first messageId answered
	msgs  map[string]string    // messageId → key
}

func newKeyTracker() *keyTracker {
	return &keyTracker{reqs: map[reqRef][2]string{}, first: map[[2]string]string{}, msgs: map[string]string{}}
}

func (t *keyTracker) in(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
	if p, key, ok := promptOf(m); ok {
		t.reqs[reqRef{conn, m.ID}] = [2]string{p.SessionID, key}
	}
	return frame, nil
}

// answered returns the (session, key) of a success response to a keyed
// prompt and its messageId.
func (t *keyTracker) answered(o agent.Output) (sk [2]string, msgID string, r *acp.Message, ok bool) {
	r, isResp := responseOf(o)
	if !isResp || r.Error != nil {
		return sk, "", r, false
	}
	sk, ok = t.reqs[reqRef{o.Conn, r.ID}]
	if !ok {
		return sk, "", r, false
	}
	delete(t.reqs, reqRef{o.Conn, r.ID})
	var res acp.PromptResult
	if json.Unmarshal(r.Result, &res) != nil {
		return sk, "", r, false
	}
	return sk, res.MessageID, r, true
}

func newEchoKey(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	t := newKeyTracker()
	w := &wrapper{inner: reference(k, open, env), env: env, in: t.in}
	w.out = func(o agent.Output) []agent.Output {
		if sk, msgID, _, ok := t.answered(o); ok {
			t.msgs[msgID] = sk[1]
			return []agent.Output{o}
		}
		if o.Kind != agent.OutSend || o.Step != "update-user-message" {
			return []agent.Output{o}
		}
		var n struct {
			Params acp.SessionUpdateParams `json:"params"`
		}
		if json.Unmarshal(o.Frame, &n) != nil {
			return []agent.Output{o}
		}
		if key, ok := t.msgs[n.Params.Update.MessageID]; ok {
			n.Params.Update.Meta, _ = json.Marshal(map[string]string{"idempotencyKey": key})
			o.Frame = acp.Notification(acp.MethodSessionUpdate, n.Params)
		}
		return []agent.Output{o}
	}
	return w
}

func newNewIDOnRetry(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	t := newKeyTracker()
	w := &wrapper{inner: reference(k, open, env), env: env, in: t.in}
	w.out = func(o agent.Output) []agent.Output {
		sk, msgID, r, ok := t.answered(o)
		if !ok {
			return []agent.Output{o}
		}
		if _, seen := t.first[sk]; !seen {
			t.first[sk] = msgID
			return []agent.Output{o}
		}
		o.Frame = acp.Result(r.ID, acp.PromptResult{MessageID: env.NewID()})
		return []agent.Output{o}
	}
	return w
}

func newReworkOnRetry(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	t := newKeyTracker()
	state := map[string]string{} // session → last state sent
	w := &wrapper{inner: reference(k, open, env), env: env, in: t.in}
	w.out = func(o agent.Output) []agent.Output {
		if o.Kind == agent.OutSend && (o.Step == "update-running" || o.Step == "update-idle" || o.Step == "resume-snapshot") {
			var n struct {
				Params acp.SessionUpdateParams `json:"params"`
			}
			if json.Unmarshal(o.Frame, &n) == nil {
				state[n.Params.SessionID] = n.Params.Update.State
			}
		}
		sk, _, _, ok := t.answered(o)
		if !ok || o.Step != "respond-from-binding" || state[sk[0]] == acp.StateRunning {
			return []agent.Output{o}
		}
		upd := func(u acp.Update) agent.Output {
			return agent.Output{Kind: agent.OutSend, Step: "rework", Conn: o.Conn,
				Frame: acp.Notification(acp.MethodSessionUpdate, acp.SessionUpdateParams{SessionID: sk[0], Update: u})}
		}
		return []agent.Output{o,
			upd(acp.StateUpdate(acp.StateRunning, "")),
			upd(acp.ChunkUpdate(acp.UpdateAgentMessageChunk, env.NewID(), "doing it again. ")),
			upd(acp.StateUpdate(acp.StateIdle, "end_turn")),
		}
	}
	return w
}

func newLenientKey(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(_ string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		var p acp.PromptParams
		if m.Method != acp.MethodSessionPrompt || acp.DecodeParams(m.Params, &p) != nil {
			return frame, nil
		}
		if _, _, err := p.Key(); err == nil {
			return frame, nil
		}
		p.IdempotencyKey = nil
		m.Params, _ = json.Marshal(p)
		return acp.Encode(m), nil
	}
	return w
}

// keyInSession stores each session's last key with the session record, as
// an Agent that saves "the last request's metadata" with a session would.
type keyInSession struct{ store.Store }

func (s keyInSession) Commit(b store.Batch) error {
	if len(b.Bindings) > 0 && len(b.Sessions) > 0 {
		b.Sessions = append([]store.Session(nil), b.Sessions...)
		b.Sessions[0].Title = b.Bindings[0].Key
	}
	return s.Store.Commit(b)
}

func newKeyInListMeta(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	st := keyInSession{open()}
	lists := map[reqRef]bool{}
	w := &wrapper{inner: agent.New(k, st, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		if m.Method == acp.MethodSessionList {
			lists[reqRef{conn, m.ID}] = true
		}
		return frame, nil
	}
	w.out = func(o agent.Output) []agent.Output {
		r, ok := responseOf(o)
		if !ok || !lists[reqRef{o.Conn, r.ID}] || r.Error != nil {
			return []agent.Output{o}
		}
		var res acp.ListSessionsResult
		if json.Unmarshal(r.Result, &res) != nil {
			return []agent.Output{o}
		}
		for i, info := range res.Sessions {
			for _, rec := range st.Sessions() {
				if rec.ID == info.SessionID && rec.Title != "" {
					res.Sessions[i].Meta, _ = json.Marshal(map[string]string{"lastRequest": rec.Title})
				}
			}
		}
		o.Frame = acp.Result(r.ID, res)
		return []agent.Output{o}
	}
	return w
}

// agentScopedKeys looks a key up in every session: one key, one submission
// per Agent, which the RFD scopes per session.
type agentScopedKeys struct{ store.Store }

func (s agentScopedKeys) Binding(_, key string) (store.Binding, bool) {
	for _, sess := range s.Store.Sessions() {
		if b, ok := s.Store.Binding(sess.ID, key); ok {
			return b, true
		}
	}
	return store.Binding{}, false
}

func (s agentScopedKeys) Commit(b store.Batch) error {
	for _, k := range b.Bindings {
		if old, ok := s.Binding(k.Session, k.Key); ok {
			return &store.BoundError{Existing: old}
		}
	}
	return s.Store.Commit(b)
}

func newAgentScopedKeys(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.New(k, agentScopedKeys{open()}, env)
}

// foldKeyCase stores and looks up keys in lower case.
type foldKeyCase struct{ store.Store }

func (s foldKeyCase) Binding(session, key string) (store.Binding, bool) {
	return s.Store.Binding(session, strings.ToLower(key))
}

func (s foldKeyCase) Commit(b store.Batch) error {
	b.Bindings = append([]store.Binding(nil), b.Bindings...)
	for i := range b.Bindings {
		b.Bindings[i].Key = strings.ToLower(b.Bindings[i].Key)
	}
	return s.Store.Commit(b)
}

func newFoldKeyCase(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.New(k, foldKeyCase{open()}, env)
}

func newNewIDsOnReplay(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.out = func(o agent.Output) []agent.Output {
		if o.Kind != agent.OutSend || o.Step != "replay" {
			return []agent.Output{o}
		}
		var n struct {
			Params acp.SessionUpdateParams `json:"params"`
		}
		if json.Unmarshal(o.Frame, &n) == nil && n.Params.Update.MessageID != "" {
			n.Params.Update.MessageID = env.NewID()
			o.Frame = acp.Notification(acp.MethodSessionUpdate, n.Params)
		}
		return []agent.Output{o}
	}
	return w
}

// pendingPrompts tracks the prompt requests the reference Agent has not
// answered yet (held ones), per session, for mutants that meddle with them.
type pendingPrompts struct {
	bySession map[string][]reqRef
	session   map[reqRef]string
}

func newPendingPrompts() *pendingPrompts {
	return &pendingPrompts{bySession: map[string][]reqRef{}, session: map[reqRef]string{}}
}

func (p *pendingPrompts) in(conn string, m *acp.Message) {
	if pp, _, _ := promptOf(m); m.Method == acp.MethodSessionPrompt {
		ref := reqRef{conn, m.ID}
		p.session[ref] = pp.SessionID
		p.bySession[pp.SessionID] = append(p.bySession[pp.SessionID], ref)
	}
}

func (p *pendingPrompts) answered(conn string, id acp.ID) {
	ref := reqRef{conn, id}
	sess, ok := p.session[ref]
	if !ok {
		return
	}
	delete(p.session, ref)
	refs := p.bySession[sess]
	for i, r := range refs {
		if r == ref {
			p.bySession[sess] = append(refs[:i:i], refs[i+1:]...)
			break
		}
	}
}

// hider answers requests itself and drops the reference's later answers to
// them.
type hider map[reqRef]bool

func (h hider) fail(ref reqRef, why string) agent.Output {
	h[ref] = true
	return agent.Output{Kind: agent.OutSend, Step: "respond-cancelled", Conn: ref.conn,
		Frame: acp.ErrorResponse(ref.id, acp.Errorf(acp.CodeRequestCancelled, "request cancelled: %s", why))}
}

// out is the output hook of a mutant that hides requests: it keeps pend up
// to date and drops the reference's answers to hidden requests.
func (h hider) out(pend *pendingPrompts) func(agent.Output) []agent.Output {
	return func(o agent.Output) []agent.Output {
		if r, ok := responseOf(o); ok {
			pend.answered(o.Conn, r.ID)
		}
		if !h.filter(o) {
			return nil
		}
		return []agent.Output{o}
	}
}

// filter drops a reference output that answers a hidden request.
func (h hider) filter(o agent.Output) bool {
	if r, ok := responseOf(o); ok && h[reqRef{o.Conn, r.ID}] {
		delete(h, reqRef{o.Conn, r.ID})
		return false
	}
	return true
}

func newCancelOnlyNamed(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	pend, hidden := newPendingPrompts(), hider{}
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		pend.in(conn, m)
		if m.Method != acp.MethodCancelRequest {
			return frame, nil
		}
		var p acp.CancelRequestParams
		if acp.DecodeParams(m.Params, &p) != nil {
			return frame, nil
		}
		ref := reqRef{conn, p.RequestID}
		if _, held := pend.session[ref]; !held {
			return frame, nil
		}
		pend.answered(conn, p.RequestID)
		return nil, []agent.Output{hidden.fail(ref, "cancelled by $/cancel_request")}
	}
	w.out = hidden.out(pend)
	return w
}

func newInsertAfterClose(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	pend, hidden := newPendingPrompts(), hider{}
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(conn string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		pend.in(conn, m)
		if m.Method != acp.MethodSessionClose {
			return frame, nil
		}
		var p acp.SessionParams
		if acp.DecodeParams(m.Params, &p) != nil {
			return frame, nil
		}
		// The close is answered here; the reference never hears of it and
		// keeps the held prompts, which it inserts in their turn.
		var out []agent.Output
		for _, ref := range append([]reqRef(nil), pend.bySession[p.SessionID]...) {
			pend.answered(ref.conn, ref.id)
			out = append(out, hidden.fail(ref, "session closed"))
		}
		return nil, append(out, agent.Output{Kind: agent.OutSend, Step: "respond-close", Conn: conn, Frame: acp.Result(m.ID, struct{}{})})
	}
	w.out = hidden.out(pend)
	return w
}

func newCancelKeepsHeld(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	w := &wrapper{inner: reference(k, open, env), env: env}
	w.in = func(_ string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		if m.Method == acp.MethodSessionCancel {
			return nil, nil // neither the held prompts nor the work notice
		}
		return frame, nil
	}
	return w
}

// forkForgets keeps a forked parent's bindings in process memory from the
// fork on, and looks only there: the bindings made before the fork are gone.
type forkForgets struct {
	store.Store
	forgot map[string]map[string]store.Binding // parent session → its bindings since the fork
}

func (s *forkForgets) Binding(session, key string) (store.Binding, bool) {
	if m, ok := s.forgot[session]; ok {
		b, ok := m[key]
		return b, ok
	}
	return s.Store.Binding(session, key)
}

func (s *forkForgets) Commit(b store.Batch) error {
	var mine []store.Binding
	kept := b.Bindings[:0:0]
	for _, k := range b.Bindings {
		if m, ok := s.forgot[k.Session]; ok {
			if old, bound := m[k.Key]; bound {
				return &store.BoundError{Existing: old}
			}
			mine = append(mine, k)
			continue
		}
		kept = append(kept, k)
	}
	b.Bindings = kept
	if err := s.Store.Commit(b); err != nil {
		return err
	}
	for _, k := range mine {
		s.forgot[k.Session][k.Key] = k
	}
	return nil
}

func newForkForgetsParent(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	st := &forkForgets{Store: open(), forgot: map[string]map[string]store.Binding{}}
	w := &wrapper{inner: agent.New(k, st, env), env: env}
	w.in = func(_ string, m *acp.Message, frame []byte) ([]byte, []agent.Output) {
		var p acp.ForkSessionParams
		if m.Method == acp.MethodSessionFork && acp.DecodeParams(m.Params, &p) == nil {
			if _, ok := st.forgot[p.SessionID]; !ok {
				st.forgot[p.SessionID] = map[string]store.Binding{}
			}
		}
		return frame, nil
	}
	return w
}

// newAdapterNoRebuild is the adapter whose id set starts empty after a
// restart: it only knows the ids this process submitted. Its real anomaly
// is a duplicate (with runtime-dedupe=append the history holds the derived
// id twice), but the checker's transcript is keyed by messageId and folds
// two user messages with one id into one, so what it reports is the second
// round of work: "rework".
func newAdapterNoRebuild(k agent.Knobs, open agent.StoreOpener, env agent.Env) agent.Machine {
	return agent.NewAdapter(k, open(), env, func(store.Store, string) []string { return nil })
}
