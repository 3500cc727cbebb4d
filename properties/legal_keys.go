package properties

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
)

// A legal key refused (RFD "The idempotencyKey parameter"): a key is "an
// opaque, case-sensitive string of 1 to 255 characters", counted in code
// points as JSON Schema's maxLength counts (the trace header's
// keyLengthUnit). An Agent that counts UTF-8 bytes or UTF-16 units refuses
// legal keys of non-ASCII code points with -32602, and its Client, told the
// prompt failed, drops the user's input. The one -32602 the RFD allows a
// legal key is for "a recorded key with a different prompt", so a refusal
// stands when an earlier request in the session carried the key with
// another prompt.

// refusedKey notes a prompt with a legal key, or an explicit null ("Omitted
// and null are equivalent and mean no key"), whose first answer is -32602.
func (c *checker) refusedKey(r *reqRec, rp *respRec) {
	legal := r.keyState == keyValid || r.keyState == keyNone
	if legal && !rp.ok && rp.code == acp.CodeInvalidParams && len(r.resps) == 1 && r.sub != nil {
		c.refused = append(c.refused, r)
	}
}

// judgeRefusedKeys reports each legal key refused without a different
// prompt sent earlier with it in its session.
func (c *checker) judgeRefusedKeys() {
	c.judging = byRefusedKeys
	defer func() { c.judging = "" }()
	for _, r := range c.refused {
		rp := r.resps[0]
		ev := &evs{}
		ev.add(r.sendSeq, r.delSeq, rp.seq)
		if r.keyState == keyNone && r.keyRaw == "" {
			c.add(BadReply, r.sub, r.session, ev, "%s carried no idempotencyKey (delivered at %s) and was answered with error %d at %s: the field is optional (the RFD: \"The field is optional\"), so a prompt without it is never a malformed one; a hop that turned the omitted key into \"\" would get exactly this answer.",
				c.reqOf(r), ms(r.delT), acp.CodeInvalidParams, ms(rp.t))
			continue
		}
		if r.keyState == keyNone {
			c.add(BadReply, r.sub, r.session, ev, "%s carried \"idempotencyKey\": null (delivered at %s) and was answered with error %d at %s: the RFD makes null the same as an omitted key, no key at all, never a malformed one.",
				c.reqOf(r), ms(r.delT), acp.CodeInvalidParams, ms(rp.t))
			continue
		}
		if c.keyUsedForOtherPrompt(r) {
			continue
		}
		c.add(BadReply, r.sub, r.session, ev, "%s carried the legal idempotencyKey %q (delivered at %s) and was answered with error %d at %s: a key of 1 to %d code points is legal (the key is %s), and no earlier request in session %s carried it with another prompt, the one case where the RFD lets an Agent refuse a legal key.",
			c.reqOf(r), clip(r.key, 40), ms(r.delT), acp.CodeInvalidParams, ms(rp.t), acp.MaxKeyLength, keyMeasures(r.key), short(r.session))
	}
}

// keyUsedForOtherPrompt reports whether a request delivered before r, in
// r's session, carried r's key with a prompt other than r's.
func (c *checker) keyUsedForOtherPrompt(r *reqRec) bool {
	for _, o := range c.deliveredKeyed()[sessKey{r.session, r.key}] {
		if o.sub.text != r.sub.text && o.delSeq < r.delSeq {
			return true
		}
	}
	return false
}

// deliveredKeyed indexes, once, the delivered requests with a legal key by
// session and key, so that judging many refused keys stays linear.
func (c *checker) deliveredKeyed() map[sessKey][]*reqRec {
	if c.keyedReqs == nil {
		c.keyedReqs = map[sessKey][]*reqRec{}
		for _, s := range c.order {
			for _, o := range s.reqs {
				if o.delivered && o.keyState == keyValid {
					k := sessKey{o.session, o.key}
					c.keyedReqs[k] = append(c.keyedReqs[k], o)
				}
			}
		}
	}
	return c.keyedReqs
}

// keyMeasures tells a key's length in each unit an Agent might count in.
func keyMeasures(key string) string {
	return fmt.Sprintf("%d code points, %d bytes of UTF-8, %d UTF-16 units",
		utf8.RuneCountInString(key), len(key), len(utf16.Encode([]rune(key))))
}
