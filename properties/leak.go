package properties

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/acp/jsonscan"
	"github.com/acpsim/acpsim/traces"
)

// keyField is the parameter name an Agent must never echo.
const keyField = "idempotencyKey"

// keyInfo is one key string some Client sent.
type keyInfo struct {
	key   string
	first *reqRec  // the first prompt request that carried it (set in the main pass)
	next  *keyInfo // the next key of the same length and hash, or of the same gram (gramIndex)
	// anywhere: the key is long enough that finding it inside a longer
	// string is no accident (see leakAnywhere); token: long enough that
	// finding it as a word of one is none either (leakAsToken).
	anywhere, token bool
}

// leakAnywhere is the length, in code points, from which a key found inside
// a string leaks wherever it sits in it: the key of a UUID, a ULID or a
// nanoid does not turn up in an Agent's prose by chance, and an Agent that
// prefixes it ("retry-" + key) still wrote it out. A shorter key leaks only
// as a delimited token (a whole string value is one): a one-character key
// "e" is not leaked by every word with an e in it (issue 18 item 4).
const leakAnywhere = 16

// leakAsToken is the length, in code points, from which a key found as a
// delimited token inside a longer string leaks. A key of one to three
// characters is a word or a letter of prose ("a", "e", "I", "ok", "the"):
// the reference Agent's own "must be a string" would leak a legal key "a".
// Such a key leaks only as a whole string value, where an Agent that echoes
// it puts it.
const leakAsToken = 4

// delimited reports whether s[i:j] stands as a token of s: at each end the
// string ends or a character follows that is no letter, digit, '_' or '-'.
func delimited(s string, i, j int) bool {
	if i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); tokenRune(r) {
			return false
		}
	}
	if j < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[j:]); tokenRune(r) {
			return false
		}
	}
	return true
}

func tokenRune(r rune) bool {
	return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// The key index holds every idempotencyKey string a Client has sent so far:
// the main pass adds the keys of the Client's frames as it reads them
// (newReq), and looks for those known so far in each frame the Agent sends.
// A key leaks when the Agent writes it after a Client first sent it (issue
// 18 item 4); before that it is the Agent's own string, not the Client's.

// addFrameKeys adds the keys of a frame sent with no direction recorded from
// the Agent's side of a link: the main pass reads no Client request from it,
// but a Client may have written it. Only frames that can carry the field are
// decoded: it is spelled out literally or hidden behind an escape.
func (x *keyIndex) addFrameKeys(frame string) {
	if !strings.Contains(frame, keyField) && strings.IndexByte(frame, '\\') < 0 {
		return
	}
	for _, v := range viewFrame(frame, nil) {
		if v.kind != acp.KindRequest || v.method != acp.MethodSessionPrompt {
			continue
		}
		if raw := readPrompt(v.params).key; raw != "" && raw[0] == '"' {
			if key, ok := jsonscan.StringField(raw); ok {
				x.add(key)
			}
		}
	}
}

// leakAcc gathers the frames that leak one needle: a key, or the field name.
type leakAcc struct {
	key     *keyInfo // nil for the field name
	count   int
	seqs    []int64
	at      string // the first frame: what it is, its link and time, for prose
	asKey   bool   // first found in an object key, not a string value
	where   string // the string it was found in (first frame)
	lastSeq int64
}

const maxLeakEvents = 8

func (c *checker) leak(e *traces.Event, ki *keyInfo, asKey bool, where string) {
	name := keyField
	if ki != nil {
		name = "k:" + ki.key
	}
	a := c.leakBy[name]
	if a == nil {
		at := fmt.Sprintf("%s on %s sent at %s", describeFrame(e.Frame), e.Link, ms(e.T))
		a = &leakAcc{key: ki, at: at, asKey: asKey, where: c.own(clip(where, 60))}
		c.leakBy[name] = a
		c.leaks = append(c.leaks, a)
	}
	if a.lastSeq == e.Seq {
		return
	}
	a.lastSeq = e.Seq
	a.count++
	if len(a.seqs) < maxLeakEvents {
		a.seqs = append(a.seqs, e.Seq)
	}
}

// scanLeaks looks through every string of an Agent-to-Client frame, object
// keys included, decoded so that no JSON escape can hide a key, for the
// keys Clients have sent so far.
func (c *checker) scanLeaks(e *traces.Event) {
	fn := func(s string, isKey bool) {
		if isKey && s == keyField {
			c.leak(e, nil, true, s)
		}
		c.keys.find(s, func(ki *keyInfo) { c.leak(e, ki, isKey, s) })
	}
	if d := e.Digest; d.Describes(e.Frame) {
		d.EachString(func(s string, isKey, literal bool) {
			// Most of a frame's strings are its member names, which hold
			// a key only where a Client chose one of them as its key.
			if !literal || c.keys.literalsHold || s == keyField {
				fn(s, isKey)
			}
		})
		return
	}
	eachString(e.Frame, fn)
}

// eachString calls fn with the decoded value of every string token of the
// JSON text b and whether it is an object key. b is expected to be valid JSON
// (the frames a trace records); on anything else it does its best.
func eachString(b string, fn func(s string, isKey bool)) {
	// Substrings between ASCII quotes of valid UTF-8 are valid UTF-8.
	valid := utf8.ValidString(b)
	for i := 0; i < len(b); i++ {
		q := strings.IndexByte(b[i:], '"')
		if q < 0 {
			return
		}
		i += q
		j, esc := i+1, false
		for {
			q := strings.IndexByte(b[j:], '"')
			if q < 0 {
				j = len(b)
				break
			}
			bs := strings.IndexByte(b[j:j+q], '\\')
			if bs < 0 {
				j += q
				break
			}
			esc = true
			j += bs + 2 // past the backslash and the byte it escapes
			if j > len(b) {
				j = len(b)
				break
			}
		}
		end := min(j, len(b))
		s := b[i+1 : end]
		if esc || !valid && !utf8.ValidString(s) {
			// Decode with the codec the keys were read with, so escapes and
			// invalid bytes read the same on both sides.
			var str string
			if j < len(b) && json.Unmarshal([]byte(b[i:j+1]), &str) == nil {
				s = str
			}
		}
		k := j + 1
		for k < len(b) && (b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r') {
			k++
		}
		fn(s, k < len(b) && b[k] == ':')
		i = j
	}
}

func (c *checker) judgeLeaks() {
	for _, a := range c.leaks {
		ev := &evs{}
		ev.add(a.seqs...)
		where := "a string value"
		if a.asKey {
			where = "an object key"
		}
		more := ""
		if a.count > 1 {
			more = fmt.Sprintf(", and %d Agent-to-Client frames in all", a.count)
		}
		at := a.at
		if a.key == nil {
			c.add(KeyLeak, nil, "", ev, "the Agent wrote the field name %q as an object key in %s%s.", keyField, at, more)
			continue
		}
		var s *subState
		origin := "a Client sent it"
		if r := a.key.first; r != nil {
			s = r.sub
			ev.add(r.sendSeq)
			origin = fmt.Sprintf("%s sent it as the idempotencyKey of %s at %s", r.link.client, c.reqOf(r), ms(r.sendT))
		}
		c.add(KeyLeak, s, "", ev, "key %q leaked: %s; the Agent wrote it inside %s %q in %s%s.",
			a.key.key, origin, where, a.where, at, more)
	}
}

// describeFrame names what a frame is, for prose; leaks are rare, so it may
// decode again.
func describeFrame(frame string) string {
	line := parseLine(frame)
	var parts []string
	for _, p := range line.Entries {
		m := &p.Msg
		switch {
		case p.Err != nil:
			parts = append(parts, "an invalid message")
		case m.Kind() == acp.KindResponse && m.Error != nil:
			parts = append(parts, fmt.Sprintf("the error response to request %s", m.ID))
		case m.Kind() == acp.KindResponse:
			parts = append(parts, fmt.Sprintf("the response to request %s", m.ID))
		case m.Method == acp.MethodSessionUpdate:
			var up acp.SessionUpdateParams
			_ = acp.DecodeParams(m.Params, &up)
			parts = append(parts, fmt.Sprintf("a session/update %s", up.Update.Kind))
		default:
			parts = append(parts, "a "+m.Method)
		}
	}
	if line.Batch {
		return "a batch of " + list(parts)
	}
	return list(parts)
}
