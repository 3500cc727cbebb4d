package properties

import (
	"strconv"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/acpsim/acpsim/actors/acp"
)

// This file reads frames without a general JSON decoder. Almost every frame
// is one object with plainly spelled keys, and the checker needs a handful
// of fields from it, so a validating scanner that slices them out of the
// frame string does the job without copies or reflection. Whenever a frame
// could decode differently from an exact-key lookup (a key escaped,
// repeated, or equal to a wanted key but for case; an id that needs
// normalising; a batch; anything malformed) it says so and the caller falls
// back to acp.ParseLine and the acp codec, so both paths read every frame the
// way the endpoints do. FuzzViewMatchesParseLine holds them to that.

// msgView is one JSON-RPC message of a frame as the checker reads it.
type msgView struct {
	kind    acp.Kind // KindInvalid: the receiver owes an error response with errID
	id      acp.ID
	errID   acp.ID
	method  string
	params  string // raw JSON; "" when absent
	result  string // raw JSON; "" when absent
	hasErr  bool
	errCode int
}

// viewFrame appends the messages of frame to out.
func viewFrame(frame string, out []msgView) []msgView {
	if v, ok := fastMessage(frame); ok {
		return append(out, v)
	}
	return codecView(frame, out)
}

// codecView appends the messages of frame as acp.ParseLine reads them: the
// path for batches and anything fastMessage hands over, and the reference
// the fast path is tested against.
func codecView(frame string, out []msgView) []msgView {
	for _, p := range parseLine(frame).Entries {
		if p.Err != nil {
			out = append(out, msgView{kind: acp.KindInvalid, errID: p.ErrID})
			continue
		}
		m := &p.Msg
		v := msgView{kind: m.Kind(), id: m.ID, method: m.Method, params: string(m.Params), result: string(m.Result)}
		if m.Error != nil {
			v.hasErr, v.errCode = true, m.Error.Code
		}
		out = append(out, v)
	}
	return out
}

// parseLine is acp.ParseLine, except that a line the codec panics on (goccy
// go-json v0.10.5's Valid indexes out of range on some invalid input) reads
// as the parse error it is: one bad frame must not take the checker down.
func parseLine(frame string) (line acp.Line) {
	defer func() {
		if recover() != nil {
			line = acp.Line{Entries: []acp.Parsed{{Err: acp.Errorf(acp.CodeParseError, "parse error"), ErrID: "null"}}}
		}
	}()
	return acp.ParseLine([]byte(frame))
}

var envelopeKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}

const (
	fJSONRPC = iota
	fID
	fMethod
	fParams
	fResult
	fError
)

func fastMessage(s string) (v msgView, ok bool) {
	var vals [6]string
	i := skipWS(s, 0)
	end, ok := object(s, i, envelopeKeys, vals[:], 0, !hasControl(s))
	if !ok || skipWS(s, end) != len(s) {
		return v, false
	}
	present := func(f int) bool { return vals[f] != "" }

	version, ok := plainString(vals[fJSONRPC])
	if !ok && present(fJSONRPC) {
		return v, false
	}
	if present(fID) {
		if v.id, ok = fastID(vals[fID]); !ok {
			return v, false
		}
	}
	if present(fMethod) {
		if v.method, ok = plainString(vals[fMethod]); !ok {
			return v, false
		}
	}
	v.params, v.result = vals[fParams], vals[fResult]
	if e := vals[fError]; e != "" && e != "null" {
		// The error object must decode as acp.Error does, or the whole
		// message is invalid: let the codec say so.
		var ev [3]string
		if end, ok := object(e, 0, errorKeys, ev[:], 0, true); !ok || end != len(e) {
			return v, false
		}
		if ev[1] != "" && ev[1] != "null" {
			if _, ok := plainString(ev[1]); !ok {
				return v, false
			}
		}
		code, err := strconv.Atoi(ev[0])
		if ev[0] != "" && (err != nil || !isIntLiteral(ev[0])) {
			return v, false
		}
		v.hasErr, v.errCode = true, code
	}
	// As acp.parseOne and Message.Kind classify.
	m := acp.Message{ID: v.id, Method: v.method}
	if v.result != "" {
		m.Result = []byte(v.result)
	}
	if v.hasErr {
		m.Error = &acp.Error{}
	}
	v.kind = m.Kind()
	if version != acp.Version || v.kind == acp.KindInvalid {
		errID := v.id
		if errID == "" {
			errID = "null"
		}
		return msgView{kind: acp.KindInvalid, errID: errID}, true
	}
	return v, true
}

var errorKeys = []string{"code", "message", "data"}

// fastID reads an id the way acp.ID.UnmarshalJSON does, for the spellings
// that need no normalising: null, a plain integer, a plain ASCII string.
func fastID(raw string) (acp.ID, bool) {
	switch {
	case raw == "null":
		return "null", true
	case raw[0] == '"':
		s, ok := plainString(raw)
		if !ok {
			return "", false
		}
		for i := 0; i < len(s); i++ {
			// json.Marshal would escape these when acp re-encodes the id.
			if c := s[i]; c >= utf8.RuneSelf || c == '<' || c == '>' || c == '&' {
				return "", false
			}
		}
		return acp.ID(raw), true
	case isIntLiteral(raw):
		if _, err := strconv.ParseInt(raw, 10, 64); err == nil {
			return acp.ID(raw), true
		}
	}
	return "", false
}

func isIntLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// plainString returns the value of a raw JSON string that needs no
// unescaping; ok is false for anything else (null included).
func plainString(raw string) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || strings.IndexByte(raw, '\\') >= 0 {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	if !utf8.ValidString(s) {
		return "", false
	}
	return s, true
}

// stringField decodes a raw JSON value into a string the way the acp codec
// does for a string field: a string is unescaped, null and absence give "",
// and ok is false for any other type.
func stringField(raw string) (string, bool) {
	if raw == "" || raw == "null" {
		return "", true
	}
	if s, ok := plainString(raw); ok {
		return s, true
	}
	if raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return "", false
	}
	return s, true
}

// fieldsOf finds the raw values of keys in the JSON object obj. A value that
// is null or not an object leaves every value empty, as decoding it into a
// struct would. ok is false when the caller must decode obj for real. obj
// always comes out of a frame already found valid, whose strings hold no
// control bytes (those were escaped), so strings are skipped quickly.
func fieldsOf(obj string, keys []string, vals []string) bool {
	obj = strings.TrimSpace(obj)
	if obj == "" || obj == "null" {
		return true
	}
	if obj[0] != '{' {
		return false
	}
	end, ok := object(obj, 0, keys, vals, 0, true)
	return ok && end == len(obj)
}

// hasControl reports whether s holds a byte below 0x20. Without one, a string
// token ends at its first unescaped quote and needs no byte-by-byte check.
func hasControl(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		// A byte below 0x20 borrows into its high bit; bytes with the high
		// bit already set are excluded by ^x.
		if (x-0x20*ones)&^x&highs != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] < 0x20 {
			return true
		}
	}
	return false
}

// foldsTo reports whether a decoder matching keys case-insensitively could
// take key for the ASCII name want.
func foldsTo(key, want string) bool {
	for i := 0; i < len(key); i++ {
		if key[i] >= utf8.RuneSelf {
			return strings.EqualFold(key, want)
		}
	}
	return asciiFoldsTo(key, want)
}

// asciiFoldsTo is foldsTo for a key known to be ASCII.
func asciiFoldsTo(key, want string) bool {
	if len(key) != len(want) {
		return false
	}
	for i := 0; i < len(key); i++ {
		a, b := key[i]|0x20, want[i]|0x20
		if a != b || a < 'a' || a > 'z' {
			if key[i] != want[i] {
				return false
			}
		}
	}
	return true
}

func skipWS(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// maxDepth bounds nesting; deeper frames go to the real decoder.
const maxDepth = 64

// object scans the object starting at s[i] and stores the raw value of each
// wanted key in vals. It fails on malformed JSON and on any key that could
// make a decoder pick a different value: escaped, repeated, or a case
// variant of a wanted key.
func object(s string, i int, keys []string, vals []string, depth int, noCtl bool) (int, bool) {
	if i >= len(s) || s[i] != '{' || depth > maxDepth {
		return i, false
	}
	i = skipWS(s, i+1)
	if i < len(s) && s[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return i, false
		}
		kEnd, esc, ok := stringEnd(s, i, noCtl)
		if !ok || esc {
			return i, false
		}
		key := s[i+1 : kEnd-1]
		i = skipWS(s, kEnd)
		if i >= len(s) || s[i] != ':' {
			return i, false
		}
		i = skipWS(s, i+1)
		vEnd, ok := valueEnd(s, i, depth+1, noCtl)
		if !ok {
			return i, false
		}
		ascii := true // then only a key of the wanted length can fold to it
		for j := 0; j < len(key) && ascii && len(keys) > 0; j++ {
			ascii = key[j] < utf8.RuneSelf
		}
		for k, want := range keys {
			if key == want {
				if vals[k] != "" {
					return i, false
				}
				vals[k] = s[i:vEnd]
			} else if ascii && len(key) == len(want) && asciiFoldsTo(key, want) || !ascii && foldsTo(key, want) {
				return i, false
			}
		}
		i = skipWS(s, vEnd)
		if i >= len(s) {
			return i, false
		}
		switch s[i] {
		case ',':
			i = skipWS(s, i+1)
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// stringEnd returns the index after the string token starting at s[i] and
// whether it holds escapes.
func stringEnd(s string, i int, noCtl bool) (end int, esc, ok bool) {
	if noCtl {
		// Most strings are short: a plain loop beats a call to IndexByte.
		j := i + 1
		for lim := min(len(s), j+32); j < lim && s[j] != '"' && s[j] != '\\'; j++ {
		}
		if j < len(s) && s[j] == '"' {
			return j + 1, false, true
		}
		if j < len(s) && s[j] != '\\' {
			if q := strings.IndexByte(s[j:], '"'); q >= 0 && strings.IndexByte(s[j:j+q], '\\') < 0 {
				return j + q + 1, false, true
			}
		}
	}
	for j := i + 1; j < len(s); {
		// Skip plain bytes in a tight loop; stop at a quote, an escape or a
		// control character.
		for j < len(s) && s[j] >= 0x20 && s[j] != '"' && s[j] != '\\' {
			j++
		}
		if j >= len(s) {
			break
		}
		switch c := s[j]; {
		case c == '"':
			return j + 1, esc, true
		case c == '\\':
			esc = true
			if j+1 >= len(s) {
				return j, esc, false
			}
			switch s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(s) || !isHex4(s[j+2:j+6]) {
					return j, esc, false
				}
				j += 6
			default:
				return j, esc, false
			}
		default: // a control character
			return j, esc, false
		}
	}
	return len(s), esc, false
}

func isHex4(h string) bool {
	for i := 0; i < 4; i++ {
		c := h[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// valueEnd returns the index after the JSON value starting at s[i].
func valueEnd(s string, i, depth int, noCtl bool) (int, bool) {
	if i >= len(s) || depth > maxDepth {
		return i, false
	}
	switch c := s[i]; {
	case c == '"':
		end, _, ok := stringEnd(s, i, noCtl)
		return end, ok
	case c == '{':
		return object(s, i, nil, nil, depth, noCtl)
	case c == '[':
		i = skipWS(s, i+1)
		if i < len(s) && s[i] == ']' {
			return i + 1, true
		}
		for {
			end, ok := valueEnd(s, i, depth+1, noCtl)
			if !ok {
				return end, false
			}
			i = skipWS(s, end)
			if i >= len(s) {
				return i, false
			}
			switch s[i] {
			case ',':
				i = skipWS(s, i+1)
			case ']':
				return i + 1, true
			default:
				return i, false
			}
		}
	case c == 't':
		return literal(s, i, "true")
	case c == 'f':
		return literal(s, i, "false")
	case c == 'n':
		return literal(s, i, "null")
	case c == '-' || '0' <= c && c <= '9':
		return numberEnd(s, i)
	}
	return i, false
}

func literal(s string, i int, lit string) (int, bool) {
	if strings.HasPrefix(s[i:], lit) {
		return i + len(lit), true
	}
	return i, false
}

func numberEnd(s string, i int) (int, bool) {
	digits := func() bool {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if s[i] == '-' {
		i++
	}
	if i < len(s) && s[i] == '0' {
		i++
	} else if !digits() {
		return i, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return i, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return i, false
		}
	}
	return i, true
}

// The fields the checker reads from params and results. Each reader takes the
// scanner's path and falls back to the acp codec where the scanner declines.

type promptFields struct {
	session string
	prompt  string // raw JSON
	key     string // raw JSON; "" when absent
}

var promptKeys = []string{"sessionId", "prompt", "idempotencyKey"}

func readPrompt(params string) promptFields {
	var v [3]string
	if fieldsOf(params, promptKeys, v[:]) {
		if s, ok := stringField(v[0]); ok {
			return promptFields{session: s, prompt: v[1], key: v[2]}
		}
	}
	var p struct {
		SessionID      string          `json:"sessionId"`
		Prompt         json.RawMessage `json:"prompt"`
		IdempotencyKey json.RawMessage `json:"idempotencyKey"`
	}
	// A type error in one field still fills the others, so the key is judged
	// even in otherwise bad params.
	_ = json.Unmarshal([]byte(params), &p)
	return promptFields{session: p.SessionID, prompt: string(p.Prompt), key: string(p.IdempotencyKey)}
}

var sessionKeys = []string{"sessionId"}

func readSession(params string) string {
	var v [1]string
	if fieldsOf(params, sessionKeys, v[:]) {
		if s, ok := stringField(v[0]); ok {
			return s
		}
	}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal([]byte(params), &p)
	return p.SessionID
}

var resultKeys = []string{"messageId"}

func readMessageID(result string) string {
	var v [1]string
	if fieldsOf(result, resultKeys, v[:]) {
		if s, ok := stringField(v[0]); ok {
			return s
		}
	}
	var r struct {
		MessageID string `json:"messageId"`
	}
	_ = json.Unmarshal([]byte(result), &r)
	return r.MessageID
}

// updView is the part of a session/update the checker reads.
type updView struct {
	session, kind, msgID, state string
	content                     string // raw JSON
}

var (
	updateParamKeys = []string{"sessionId", "update"}
	updateKeys      = []string{"sessionUpdate", "messageId", "state", "content"}
)

func readUpdate(params string) (u updView, ok bool) {
	var p [2]string
	var v [4]string
	if fieldsOf(params, updateParamKeys, p[:]) && fieldsOf(p[1], updateKeys, v[:]) {
		var ok [4]bool
		u.session, ok[0] = stringField(p[0])
		u.kind, ok[1] = stringField(v[0])
		u.msgID, ok[2] = stringField(v[1])
		u.state, ok[3] = stringField(v[2])
		if ok == [4]bool{true, true, true, true} {
			u.content = v[3]
			return u, true
		}
	}
	var up acp.SessionUpdateParams
	if json.Unmarshal([]byte(params), &up) != nil {
		return updView{}, false
	}
	return updView{up.SessionID, up.Update.Kind, up.Update.MessageID, up.Update.State, string(up.Update.Content)}, true
}

// text is the update's content as acp reads it.
func (u *updView) text() string {
	if t, ok := contentText(u.content); ok {
		return t
	}
	up := acp.Update{Kind: u.kind, Content: json.RawMessage(u.content)}
	t, _ := up.ContentText()
	return t
}

var blockKeys = []string{"type", "text"}

// contentText is acp.Update.ContentText's text for the spellings the scanner
// reads exactly: absent or null, one content block, or an array of one;
// ok is false for anything else, which the codec reads.
func contentText(c string) (string, bool) {
	if c == "" || c == "null" {
		return "", true
	}
	var vals [2]string
	noCtl := !hasControl(c)
	end, ok := 0, false
	switch c[0] {
	case '{':
		end, ok = object(c, 0, blockKeys, vals[:], 0, noCtl)
	case '[':
		end, ok = object(c, skipWS(c, 1), blockKeys, vals[:], 1, noCtl)
		if end = skipWS(c, end); ok && end < len(c) && c[end] == ']' {
			end++
		} else {
			ok = false
		}
	}
	if !ok || end != len(c) {
		return "", false
	}
	if _, ok := stringField(vals[0]); !ok {
		return "", false
	}
	return stringField(vals[1])
}

// promptKey reads a prompt's raw idempotencyKey as acp.PromptParams.Key
// does: present with a string of 1 to 255 code points, absent when omitted
// or null, bad otherwise. A plain string is read in place.
func promptKey(raw string) (key string, present, bad bool) {
	if s, ok := plainString(raw); ok && !hasControl(s) {
		if n := utf8.RuneCountInString(s); n >= 1 && n <= acp.MaxKeyLength {
			return s, true, false
		}
	}
	var pp acp.PromptParams
	if raw != "" {
		pp.IdempotencyKey = json.RawMessage(raw)
	}
	key, present, err := pp.Key()
	return key, present, err != nil
}

var cancelRequestKeys = []string{"requestId"}

// readRequestID reads the requestId of $/cancel_request params as the acp
// codec decodes acp.CancelRequestParams; "" when absent or unreadable (the
// Agent then has nothing to cancel).
func readRequestID(params string) acp.ID {
	var v [1]string
	if fieldsOf(params, cancelRequestKeys, v[:]) {
		if v[0] == "" {
			return ""
		}
		if id, ok := fastID(v[0]); ok {
			return id
		}
	}
	var p acp.CancelRequestParams
	if acp.DecodeParams(json.RawMessage(params), &p) != nil {
		return ""
	}
	return p.RequestID
}
