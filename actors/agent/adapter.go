package agent

import (
	"encoding/json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/google/uuid"

	"github.com/acpsim/acpsim/actors/agent/store"
)

// Adapter is the name of the adapter-style model Agent.
const Adapter = "adapter"

func init() {
	Register(Adapter, "an adapter over a runtime that owns the stored session (the RFD's Adapter validation): the messageId is derived from the key, no binding is stored", func(k Knobs, open StoreOpener, env Env) Machine {
		return NewAdapter(k, open(), env, StoredUserIDs)
	})
}

// messageIDSpace is the UUIDv5 namespace of derived message ids.
var messageIDSpace = uuid.NameSpaceURL

// DerivedMessageID is the messageId an adapter gives the user message of a
// keyed prompt: a UUIDv5 of the session id and the key, so the runtime
// stores the key and the message in one step.
func DerivedMessageID(sessionID, key string) string {
	return uuid.NewSHA1(messageIDSpace, []byte(sessionID+"\x00"+key)).String()
}

// Rebuild returns the user message ids of a session's stored history. An
// adapter calls it once per session, on the first keyed prompt after it
// started.
type Rebuild func(st store.Store, session string) []string

// StoredUserIDs is the correct Rebuild: every user message id the runtime
// has stored.
func StoredUserIDs(st store.Store, session string) []string {
	var ids []string
	for _, m := range st.Messages(session) {
		if m.Role == store.RoleUser {
			ids = append(ids, m.ID)
		}
	}
	return ids
}

// NewAdapter starts an adapter process over the runtime's store st. It
// serves the protocol as the reference Agent does, but it does not own the
// stored session: it submits each user message to the runtime with an id
// it chooses (derived from the key for a keyed prompt, fresh otherwise)
// and the runtime appends it to the history Knobs.RuntimeDelay later (an
// OutDeferred), refusing a repeated id or not per Knobs.RuntimeDedupe. It
// answers the prompt when it submits. Before submitting a keyed prompt it
// looks the derived id up among its pending submissions and in the
// session's user message ids, read from the stored history with rebuild
// once per session after the start. Replay reads the runtime's history.
//
// History retention (Knobs.Retain) is the runtime's business and is not
// modelled: the adapter keeps everything.
func NewAdapter(k Knobs, st store.Store, env Env, rebuild Rebuild) *Agent {
	a := New(k, st, env)
	a.strat = &adapter{a: a, rebuild: rebuild, pending: map[string]bool{}, known: map[string]map[string]bool{}}
	return a
}

type adapter struct {
	a       *Agent
	rebuild Rebuild
	// settle is the timer that ends the start-up wait: until the runtime's
	// writes from before this process could have landed (Knobs.RuntimeDelay
	// after the start) the adapter has not finished starting, and holds
	// back its answer to initialize (queued): history read now may lack a
	// message the runtime is still storing, and no Client sends a prompt
	// before its initialize is answered.
	settle  int
	settled bool
	queued  []queuedPrompt
	// pending are the ids submitted by this process (the runtime may not
	// have stored them yet).
	pending map[string]bool
	// known are each session's user message ids, filled from the stored
	// history on the first keyed prompt of this process; nil until then.
	known map[string]map[string]bool
}

func (ad *adapter) recognized(s *session, key string) (string, string, bool) {
	id := DerivedMessageID(s.rec.ID, key)
	if ad.pending[id] {
		return id, "respond-pending", true
	}
	known := ad.known[s.rec.ID]
	if known == nil {
		known = map[string]bool{}
		for _, m := range ad.rebuild(ad.a.st, s.rec.ID) {
			known[m] = true
		}
		ad.known[s.rec.ID] = known
	}
	if known[id] {
		return id, "respond-from-history", true
	}
	return "", "", false
}

func (ad *adapter) submit(s *session, h *heldPrompt) store.Message {
	a := ad.a
	content, _ := json.Marshal(h.prompt)
	id := a.env.NewID()
	if h.hasKey {
		id = DerivedMessageID(s.rec.ID, h.key)
	}
	msg := store.Message{Session: s.rec.ID, ID: id, Role: store.RoleUser, Text: h.text, Content: content}
	ad.pending[id] = true
	if known := ad.known[s.rec.ID]; known != nil {
		known[id] = true
	}
	a.out = append(a.out,
		Output{Kind: OutDeferred, Step: "runtime-append", After: a.knobs.RuntimeDelay,
			Batch: &store.Batch{Messages: []store.Message{msg}, UniqueIDs: a.knobs.RuntimeDedupe == DedupeRefuse}},
		Output{Kind: OutInsert, Step: "submitted", Session: s.rec.ID, MessageID: msg.ID, Text: msg.Text})
	return msg
}

func (ad *adapter) history(s *session) []store.Message { return ad.a.st.Messages(s.rec.ID) }

func (ad *adapter) started(timerID int) []Output {
	ad.settle = timerID
	return []Output{{Kind: OutTimer, Step: "runtime-settle", After: ad.a.knobs.RuntimeDelay, ID: timerID}}
}

func (ad *adapter) defer_(conn string, m *acp.Message) bool {
	if ad.settled || ad.settle == 0 || m.Method != acp.MethodInitialize {
		return false
	}
	ad.queued = append(ad.queued, queuedPrompt{conn: conn, m: *m})
	return true
}

func (ad *adapter) ready(id int) ([]queuedPrompt, bool) {
	if id != ad.settle || ad.settled {
		return nil, false
	}
	ad.settled = true
	q := ad.queued
	ad.queued = nil
	return q, true
}
