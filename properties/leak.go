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
	key  string
	next *keyInfo // the next key of the same length and hash, or of the same gram (gramIndex)
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

const maxLeakEvents = 8

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

// Key leaks: every string of every Agent-to-Client frame sent, looked
// through for the keys Clients had sent by then (key_index.go finds them
// in it). The leak scan runs in the pass, as each frame is sent, since
// which keys were sent by then is a matter of order; what the ledger keeps
// beside the index is pointer-free: a key's first prompt as a request's
// index, and a row per needle found.

// leakRow gathers the frames that leak one needle: a key, or the field name.
type leakRow struct {
	key   int32 // the key's id handle; noID for the field name
	count int32
	nSeqs int32
	seqs  [maxLeakEvents]int64
	// The first frame, for prose: what it is (a text handle), its link
	// and time; asKey: the needle was an object key there, not a string
	// value; where the string it was in (a text handle, clipped).
	what, link int32
	t          int64
	asKey      bool
	where      int32
	lastSeq    int64
}

// keyIndex is the index of the keys Clients sent, made at its first use.
func (lg *ledger) keyIndex() *keyIndex {
	if lg.keys == nil {
		own := strings.Clone
		if lg.in.borrow {
			own = func(s string) string { return s }
		}
		// About a key per submission.
		lg.keys = newKeyIndex(cap(lg.subs), own, lg.in.lookup)
	}
	return lg.keys
}

// promptKeySent reads the key of prompt request i (fact x): every JSON
// string sent as a key, legal or not, is looked for in what Agents send
// from then on, and a legal key's first request, sent or (not sent) only
// delivered, is the one its leak names: a key first read from a frame
// never sent (delivered or dropped without a send) still names that
// request once a send adds the key to the index.
func (lg *ledger) promptKeySent(x *fact, i int32, sent bool) {
	if sent && x.key != noID {
		lg.keyIndex().addByHandle(x.key, lg.in.IDName(x.key))
	}
	if x.keyState == keyValid {
		if first := byIndex(&lg.keyFirst, x.key); *first == 0 {
			*first = i + 1
		}
	}
}

// firstSender is the first prompt request that carried the key of handle
// h; none for none.
func (lg *ledger) firstSender(h int32) int32 {
	if h < 0 || int(h) >= len(lg.keyFirst) {
		return none
	}
	return lg.keyFirst[h] - 1
}

// sendLeaks reads the frame of a send (st, whose facts are facts) for
// leaks when the Agent's side wrote it; a frame with no direction
// recorded may still carry a Client's keys.
func (lg *ledger) sendLeaks(st *Step, facts []fact) {
	if len(facts) == 0 || facts[0].ev != wSend || facts[0].dir != dirA2C {
		return
	}
	lg.scanLeaks(st)
	if st.Event.Dir != traces.AgentToClient {
		// Scanned first: the keys this frame sends are not sent yet.
		lg.keyIndex().addFrameKeys(st.Event.Frame)
	}
}

// scanLeaks looks through every string of an Agent-to-Client frame, object
// keys included, for the keys Clients have sent so far: from its digest
// when it describes the frame, else from the bytes, decoded so that no
// JSON escape can hide a key.
func (lg *ledger) scanLeaks(st *Step) {
	e, keys := st.Event, lg.keyIndex()
	fn := func(s string, isKey bool) {
		if isKey && s == keyField {
			lg.leak(st, nil, true, s)
		}
		keys.find(s, func(ki *keyInfo) { lg.leak(st, ki, isKey, s) })
	}
	if d := e.Digest; d.Describes(e.Frame) {
		if !keys.literalsHold {
			// Most of a frame's strings are its member names, which hold
			// a key only where a Client chose one of them as its key: the
			// strings that vary are read alone, unless the frame names
			// the key field, which is a leak of its own.
			values, namesKey := d.AppendValues(lg.values[:0])
			// The scratch keeps no string past the call: no frame
			// outlives its event in the checker.
			defer func() { clear(values); lg.values = values[:0] }()
			if !namesKey {
				for _, s := range values {
					keys.find(s, func(ki *keyInfo) { lg.leak(st, ki, false, s) })
				}
				return
			}
		}
		d.EachString(func(s string, isKey, literal bool) {
			// Most of a frame's strings are its member names, which hold
			// a key only where a Client chose one of them as its key.
			if !literal || keys.literalsHold || s == keyField {
				fn(s, isKey)
			}
		})
		return
	}
	eachString(e.Frame, fn)
}

// leak notes that the frame of st leaks ki (nil: the field name), found
// in where; a frame counts once per needle.
func (lg *ledger) leak(st *Step, ki *keyInfo, asKey bool, where string) {
	e := st.Event
	key, at := int32(noID), &lg.fieldLeak
	var i int32
	if ki != nil {
		key = lg.in.ID(ki.key)
		i = lg.leakOf[key]
		at = &i
	}
	if *at == 0 {
		lg.leaks = append(lg.leaks, leakRow{key: key, what: lg.in.text(describeFrame(e.Frame)), link: max(st.Link, noName), t: e.T,
			asKey: asKey, where: lg.in.text(clip(where, 60))})
		*at = int32(len(lg.leaks))
		if ki != nil {
			if lg.leakOf == nil {
				lg.leakOf = map[int32]int32{}
			}
			lg.leakOf[key] = i
		}
	}
	a := &lg.leaks[*at-1]
	if a.lastSeq == e.Seq {
		return
	}
	a.lastSeq = e.Seq
	a.count++
	if a.nSeqs < maxLeakEvents {
		a.seqs[a.nSeqs] = e.Seq
		a.nSeqs++
	}
}

// judgeLeaks reports each needle the Agent wrote, in the order first found.
func (lg *ledger) judgeLeaks() {
	in := lg.in
	for i := range lg.leaks {
		a := &lg.leaks[i]
		ev := &evs{}
		ev.add(a.seqs[:a.nSeqs]...)
		where := "a string value"
		if a.asKey {
			where = "an object key"
		}
		more := ""
		if a.count > 1 {
			more = fmt.Sprintf(", and %d Agent-to-Client frames in all", a.count)
		}
		at := lg.leakAt(a)
		if a.key == noID {
			lg.report(KeyLeak, none, noID, ev, "the Agent wrote the field name %q as an object key in %s%s.", keyField, at, more)
			continue
		}
		s := none
		origin := "a Client sent it"
		if ri := lg.firstSender(a.key); ri != none {
			r := &lg.reqs[ri]
			s = r.sub
			ev.add(r.sendSeq)
			// A first request only ever delivered (no send event) is told
			// "sent ... at 0ms": its send time is unknown.
			origin = fmt.Sprintf("%s sent it as the idempotencyKey of %s at %s", in.wordName(lg.links[max(r.link, noName)].client), lg.reqOf(ri), ms(r.sendT))
		}
		lg.report(KeyLeak, s, noID, ev, "key %q leaked: %s; the Agent wrote it inside %s %q in %s%s.",
			in.IDName(a.key), origin, where, in.textName(a.where), at, more)
	}
}

// leakAt tells the first frame of a leak: what it is, its link and time.
func (lg *ledger) leakAt(a *leakRow) string {
	return fmt.Sprintf("%s on %s sent at %s", lg.in.textName(a.what), lg.in.Link(a.link), ms(a.t))
}
