package bench

import (
	"strings"
	"testing"
)

// A one-pass reader of the fields the core reads from a format-2 line:
// each byte of the line visited once, strings skipped with IndexByte as the
// read floor skips them, the wanted values kept as substrings of the line.
// BenchmarkCheckCoreFromDisk's "one-pass" run measures it against the
// scanner's, to say how near the judge line a reader can bring the core.

// onePass holds the raw JSON values one line names.
type onePass struct {
	kind, link, sub, text, outcome, messageID, send, from string
	id, method, err, resultMsg                            string
	updateKind, updateMsg, blockText                      string
}

// Where a value sits, as far as the core cares.
type lineSpot uint8

const (
	spotNone lineSpot = iota
	spotTop
	spotMsg
	spotResult
	spotParams
	spotUpdate
	spotContent
	spotBlock
)

// read fills p from line, which is one JSON object; false if it is not
// plainly spelled JSON (the caller then reads it otherwise).
func (p *onePass) read(line string) bool {
	*p = onePass{}
	end, ok := p.value(line, skipSpace(line, 0), spotTop)
	return ok && skipSpace(line, end) == len(line)
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// stringEndAt ends the string token that opens at s[i]; ok false if it
// runs off.
func stringEndAt(s string, i int) (int, bool) {
	j := i + 1
	for {
		q := strings.IndexByte(s[j:], '"')
		if q < 0 {
			return 0, false
		}
		j += q
		// An escaped quote has an odd run of backslashes before it.
		n := 0
		for k := j - 1; k > i && s[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1, true
		}
		j++
	}
}

// value reads the JSON value at s[i], at spot, and returns where it ends.
func (p *onePass) value(s string, i int, spot lineSpot) (int, bool) {
	if i >= len(s) {
		return 0, false
	}
	switch c := s[i]; {
	case c == '"':
		return stringEndAt(s, i)
	case c == '{':
		return p.object(s, i, spot)
	case c == '[':
		j := skipSpace(s, i+1)
		first := true
		if j < len(s) && s[j] == ']' {
			return j + 1, true
		}
		for {
			inner := spotNone
			if spot == spotContent && first {
				inner = spotBlock
			}
			end, ok := p.value(s, j, inner)
			if !ok {
				return 0, false
			}
			first = false
			next, done, ok := after(s, end, ']')
			if !ok || done {
				return next, ok
			}
			j = next
		}
	default: // a number, true, false or null
		j := i
		for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' {
			j++
		}
		return j, j > i
	}
}

func (p *onePass) object(s string, i int, spot lineSpot) (int, bool) {
	j := skipSpace(s, i+1)
	if j < len(s) && s[j] == '}' {
		return j + 1, true
	}
	for {
		if j >= len(s) || s[j] != '"' {
			return 0, false
		}
		kend, ok := stringEndAt(s, j)
		if !ok {
			return 0, false
		}
		key := s[j+1 : kend-1]
		j = skipSpace(s, kend)
		if j >= len(s) || s[j] != ':' {
			return 0, false
		}
		j = skipSpace(s, j+1)
		slot, inner := p.slot(spot, key)
		end, ok := p.value(s, j, inner)
		if !ok {
			return 0, false
		}
		if slot != nil {
			*slot = s[j:end]
		}
		next, done, ok := after(s, end, '}')
		if !ok || done {
			return next, ok
		}
		j = next
	}
}

// after reads what follows a member or an element ending at s[j]: close
// ends its container (done), a comma leads to the next.
func after(s string, j int, close byte) (next int, done, ok bool) {
	j = skipSpace(s, j)
	switch {
	case j >= len(s):
		return 0, false, false
	case s[j] == close:
		return j + 1, true, true
	case s[j] == ',':
		return skipSpace(s, j+1), false, true
	}
	return 0, false, false
}

// fieldAt is a key the core reads at a spot: where its value is kept (nil:
// not kept) and the spot of what is inside it.
type fieldAt struct {
	key   string
	keep  func(*onePass) *string
	inner lineSpot
}

// fieldsAt are the keys the core reads, by spot.
var fieldsAt = [...][]fieldAt{
	spotTop: {
		{"kind", func(p *onePass) *string { return &p.kind }, spotNone},
		{"link", func(p *onePass) *string { return &p.link }, spotNone},
		{"sub", func(p *onePass) *string { return &p.sub }, spotNone},
		{"text", func(p *onePass) *string { return &p.text }, spotNone},
		{"outcome", func(p *onePass) *string { return &p.outcome }, spotNone},
		{"messageId", func(p *onePass) *string { return &p.messageID }, spotNone},
		{"send", func(p *onePass) *string { return &p.send }, spotNone},
		{"from", func(p *onePass) *string { return &p.from }, spotNone},
		{"msg", nil, spotMsg},
	},
	spotMsg: {
		{"id", func(p *onePass) *string { return &p.id }, spotNone},
		{"method", func(p *onePass) *string { return &p.method }, spotNone},
		{"error", func(p *onePass) *string { return &p.err }, spotNone},
		{"result", nil, spotResult},
		{"params", nil, spotParams},
	},
	spotResult: {{"messageId", func(p *onePass) *string { return &p.resultMsg }, spotNone}},
	spotParams: {{"update", nil, spotUpdate}},
	spotUpdate: {
		{"sessionUpdate", func(p *onePass) *string { return &p.updateKind }, spotNone},
		{"messageId", func(p *onePass) *string { return &p.updateMsg }, spotNone},
		{"content", nil, spotContent},
	},
	spotBlock: {{"text", func(p *onePass) *string { return &p.blockText }, spotNone}},
}

// slot is where key's value at spot is kept (nil: nowhere) and the spot of
// what is inside it.
func (p *onePass) slot(spot lineSpot, key string) (*string, lineSpot) {
	if int(spot) >= len(fieldsAt) {
		return nil, spotNone
	}
	for _, f := range fieldsAt[spot] {
		if f.key == key {
			if f.keep == nil {
				return nil, f.inner
			}
			return f.keep(p), f.inner
		}
	}
	return nil, spotNone
}

func TestOnePassReadsWhatTheScannerReads(t *testing.T) {
	var p onePass
	line := `{"t":1,"seq":2,"kind":"send","link":"c1:a1#1","dir":"a2c","msg":{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"S","update":{"sessionUpdate":"user_message","messageId":"M\"1","content":[{"type":"text","text":"hi \\ there"},{"type":"text","text":"no"}]}}}}`
	if !p.read(line) || p.kind != `"send"` || p.method != `"session/update"` || p.updateKind != `"user_message"` || p.updateMsg != `"M\"1"` || p.blockText != `"hi \\ there"` {
		t.Fatalf("%+v", p)
	}
}
