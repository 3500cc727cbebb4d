// This file holds the keys a keyed Client makes, drawn from the whole legal
// space the RFD allows ("an opaque, case-sensitive string of 1 to 255
// characters", counted in code points), and the explicit null an unkeyed
// Client sometimes sends.

package client

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// keyForm is one shape a key may take. make turns the submission's random
// UUID into a key of that shape: the UUID stays readable in every long
// shape, so two submissions never share a key by accident.
type keyForm struct {
	name   string
	weight int
	make   func(c *Client, sess int, uuid, sub string) string
}

// keyForms are the shapes a keyed Client's keys take, as data. The edges
// of the length rule are where Agents go wrong: an Agent that counts UTF-8
// bytes refuses a key of 255 two-byte code points (510 bytes), one that
// counts UTF-16 units refuses a key of 255 four-byte code points (510
// units, 1,020 bytes). The plain UUID, which most Clients send, is the
// ordinary option, last (see draw).
var keyForms = []keyForm{
	{"one code point", 1, oneCodePointKey},
	{"255 ASCII code points", 1, func(_ *Client, _ int, uuid, _ string) string {
		return longKey(uuid, func(b byte) rune { return rune(b) })
	}},
	{"255 two-byte code points", 1, func(_ *Client, _ int, uuid, _ string) string {
		return longKey(uuid, shifted(0xE0)) // à…ð: 510 bytes of UTF-8, 255 UTF-16 units
	}},
	{"255 four-byte code points", 1, func(_ *Client, _ int, uuid, _ string) string {
		return longKey(uuid, shifted(0x1F600)) // 😀…: 1,020 bytes of UTF-8, 510 UTF-16 units
	}},
	{"UUID", 4, func(_ *Client, _ int, uuid, _ string) string { return uuid }},
}

// uuidAlphabet is every byte a UUID string holds.
const uuidAlphabet = "0123456789abcdef-"

// shifted maps a UUID's bytes one to one onto code points from base on.
func shifted(base rune) func(byte) rune {
	return func(b byte) rune { return base + rune(strings.IndexByte(uuidAlphabet, b)) }
}

// longKey is a key of exactly MaxKeyLength code points: the UUID, then the
// UUID again and again, each byte mapped to a code point by to.
func longKey(uuid string, to func(byte) rune) string {
	// The key is the UUID's code points over and over: encoded once, then
	// copied (a 255-code-point key was a thousand WriteRune calls, 2% of
	// a seed).
	unit := make([]byte, 0, utf8.UTFMax*len(uuid))
	ends := make([]int, len(uuid)) // where each code point of unit ends
	for i := 0; i < len(uuid); i++ {
		unit = utf8.AppendRune(unit, to(uuid[i]))
		ends[i] = len(unit)
	}
	full, rest := maxKeyLength/len(uuid), maxKeyLength%len(uuid)
	tail := 0
	if rest > 0 {
		tail = ends[rest-1]
	}
	var b strings.Builder
	b.Grow(full*len(unit) + tail)
	for range full {
		b.Write(unit)
	}
	b.Write(unit[:tail])
	return b.String()
}

// maxKeyLength is acp.MaxKeyLength, the RFD's bound in code points.
const maxKeyLength = 255

// oneCodePoint are the ranges a one-code-point key is drawn from: one of
// each UTF-8 width above one byte (ASCII letters would stand as words in the
// prompts' text, where a key checker rightly looks for leaks).
var oneCodePoint = []struct{ from, n rune }{
	{0x100, 128},   // Latin Extended-A: two bytes, with case pairs
	{0x4E00, 128},  // CJK: three bytes
	{0x1F600, 80},  // emoticons: four bytes, two UTF-16 units
	{0x1F680, 112}, // transport and map symbols
}

// oneCodePointKey is a key of one code point not used in session sess yet,
// or the UUID when the draw lands on used ones only.
func oneCodePointKey(c *Client, sess int, uuid, sub string) string {
	total := 0
	for _, r := range oneCodePoint {
		total += int(r.n)
	}
	at := c.draw(sub+"/key-char", total)
	for probe := 0; probe < 16; probe++ {
		i := (at + probe) % total
		for _, r := range oneCodePoint {
			if i < int(r.n) {
				if k := string(r.from + rune(i)); !c.keyUsed(sess, k) {
					return k
				}
				break
			}
			i -= int(r.n)
		}
	}
	return uuid
}

// newKey makes the key of submission sub in session sess: a fresh key of a
// drawn shape, except that now and then it deliberately repeats a key of
// another session, exactly or in another case: both are legal, and they
// catch Agents that scope keys per Agent or fold their case.
func (c *Client) newKey(sess int, sub string, newID func() string, intN func(int) int) string {
	if intN(4) == 0 {
		for i := len(c.subs) - 1; i >= 0; i-- {
			o := c.subs[i]
			if o.sess != sess && o.key != "" && !c.keyUsed(sess, o.key) {
				if intN(2) == 0 {
					return o.key
				}
				if up := strings.ToUpper(o.key); !c.keyUsed(sess, up) {
					return up
				}
			}
		}
	}
	uuid := newID()
	// The shape is drawn from a stream of its own: the UUID above is the
	// one the submission drew before keys had shapes.
	f := keyForms[drawWeighted(c, sub+"/key-form", keyForms, func(f keyForm) int { return f.weight })]
	if k := f.make(c, sess, uuid, sub); utf8.RuneCountInString(k) <= maxKeyLength && !c.keyUsed(sess, k) {
		return k
	}
	return uuid
}

// drawWeighted draws the index of one of items, each as likely as its
// weight, by the named decision (Client.draw; without a host's draws, the
// last item: the ordinary one).
func drawWeighted[T any](c *Client, name string, items []T, weight func(T) int) int {
	total := 0
	for _, it := range items {
		total += weight(it)
	}
	at := c.draw(name, total)
	for i, it := range items {
		if at < weight(it) {
			return i
		}
		at -= weight(it)
	}
	return len(items) - 1
}

// lastKey is the newest key made for a submission of session sess.
func (c *Client) lastKey(sess int) (string, bool) {
	for i := len(c.keys) - 1; i >= 0; i-- {
		if c.keys[i].Session == sess {
			return c.keys[i].Key, true
		}
	}
	return "", false
}

// keyUsed reports whether key was made for a submission of session sess.
// It reads every key ever made, not only the pending submissions': after a
// restart the resolved ones are gone from memory, but their keys stay bound.
func (c *Client) keyUsed(sess int, key string) bool {
	_, ok := c.keySet[SavedKey{Session: sess, Key: key}]
	return ok
}

// madeKey notes a key made for a submission of session sess. The set beside
// the list makes keyUsed one lookup: it is asked at every submission, and a
// scan of every key made turned a long run quadratic.
func (c *Client) madeKey(sess int, key string) {
	k := SavedKey{Session: sess, Key: key}
	c.keys = append(c.keys, k)
	c.keySet[k] = struct{}{}
}

// nullKeyOneIn: an unkeyed Client writes "idempotencyKey": null on one
// submission in this many (its attempts all do). The RFD: "Omitted and null
// are equivalent and mean no key", so an Agent must not refuse it.
const nullKeyOneIn = 3

// How often the users play the rarer moves the RFD allows: a cancelled
// prompt sent again with its key (sendsAgain), a cancel that waits for a
// stalled prompt (Cancel). Each also hides other Agent bugs for a while (a
// resend gives an Agent that inserts a cancelled prompt anyway a request to
// pin the insertion on), so they stay rarer than the plain moves.
var (
	sendAgainOneIn         = 8
	cancelWhenStalledOneIn = 3
)

// forkKeyOneIn: a submission to a fork reuses a key its parent bound before
// the fork in one of this many, while the fork has such keys left. Half:
// the case is rare to begin with (a fork, then a prompt in it, while the
// parent had answered keyed prompts), and to a correct Agent the reused key
// is an ordinary fresh one, so it hides no other bug.
const forkKeyOneIn = 2

// nullKey is the field value of an explicit "no key".
var nullKey = json.RawMessage("null")

// draw is a value in [0, n) for the decision named name, from the named
// stream the host gives it (Env.Draw), so a new kind of decision never
// shifts the draws of an old one. Each decision's last option is the
// ordinary one, what the Client did before it drew that decision; a host
// without Env.Draw (a test driving the Client by hand) always gets it.
func (c *Client) draw(name string, n int) int {
	if c.env.Draw == nil {
		return n - 1
	}
	return c.env.Draw(name, n)
}

// cancelWaitTimeouts is how many prompt timeouts a user waits for a stall
// before cancelling the oldest pending prompt as the others do.
const cancelWaitTimeouts = 4
