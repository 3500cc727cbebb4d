package world

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// The ids the digests name are the strings the run minted (sim.Names), not
// copies read back from frames, so a checker finds each one's handle from
// its address, without hashing it (docs/design.md, "The checker on
// handles"): every session and message id a model Agent or Client writes,
// on the live runs (every link, policy and mutant) and 40 default seeds,
// and every legal key a Client gives its prompt. The only keys not handed
// on are the probes of the key rules, which are not keys. So is every
// text a user typed, in the prompts and user messages of the reference
// Agent's runs (a mutant that wraps the reference Agent hides its
// ReceiveDigest and reads its prompts from the bytes).
func TestDigestIDsAreTheMintedStrings(t *testing.T) {
	var r Runner
	type count struct{ minted, copied, unknown int }
	var sessions, messages, keys, prompts, echoes count
	tally := func(c *count, s string) {
		switch h := r.names.Handle(s); {
		case s == "":
		case h == 0:
			c.unknown++
		case sameString(r.names.Name(h), s):
			c.minted++
		default:
			c.copied++
		}
	}
	cfgs := liveRuns()
	for seed := uint64(1); seed <= 40; seed++ {
		c := DefaultConfig()
		c.Seed = seed
		cfgs = append(cfgs, c)
	}
	probes := 0
	for _, cfg := range cfgs {
		name := fmt.Sprintf("%s/%s/%s/%d", cfg.Link, cfg.Policy, cfg.Agent, cfg.Seed)
		r.judged = func(e traces.Event) {
			if e.Kind != traces.KindSend || !e.Digest.Describes(e.Frame) {
				return
			}
			tally(&sessions, e.Digest.Session())
			tally(&messages, e.Digest.MessageID())
			// The reference Agent's seeds: every text a user typed is sent
			// and echoed as the string minted where it was typed.
			switch d := e.Digest; {
			case cfg.Agent != "reference":
			case d.Method == acp.MethodSessionPrompt && !strings.HasPrefix(d.Text(), "acpsim probe:"):
				tally(&prompts, d.Text())
			case d.Update() == acp.UpdateUserMessage || d.Update() == acp.UpdateUserMessageChunk:
				tally(&echoes, d.Text())
			}
			if k := e.Digest.Key(); k != "" {
				tally(&keys, k)
			} else if raw := e.Digest.KeyRaw(); raw != "" && raw != "null" {
				p := acp.PromptParams{IdempotencyKey: json.RawMessage(raw)}
				if _, present, err := p.Key(); present && err == nil && e.From != traces.Observer {
					t.Fatalf("%s: event %d: a Client's legal key %s with no Key in its digest", name, e.Seq, raw)
				}
				probes++
			}
		}
		if _, err := r.JudgeOnly(cfg); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		c    count
	}{{"session ids", sessions}, {"message ids", messages}, {"keys", keys}, {"prompts' texts", prompts}, {"user messages' texts", echoes}} {
		if c.c.minted == 0 || c.c.copied+c.c.unknown > 0 {
			t.Errorf("%s: %d the minted string, %d a copy, %d never minted: want every one minted", c.name, c.c.minted, c.c.copied, c.c.unknown)
		}
	}
	t.Logf("minted strings: %d session ids, %d message ids, %d keys; %d key probes", sessions.minted, messages.minted, keys.minted, probes)
	t.Logf("minted texts of the reference Agent's runs: %d in prompts, %d in user messages", prompts.minted, echoes.minted)
}

// sameString says a and b are the same string: the same bytes in memory.
func sameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}
