// This file holds the mutants that show a retry or a replay something other
// than the original message: a new messageId for a retry, a second round of
// work after a retry, new message ids on replay.

package mutants

import (
	"encoding/json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
)

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
