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

// str ends the string token that opens at s[i]; ok false if it runs off.
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
			j = skipSpace(s, end)
			if j >= len(s) {
				return 0, false
			}
			if s[j] == ']' {
				return j + 1, true
			}
			if s[j] != ',' {
				return 0, false
			}
			j = skipSpace(s, j+1)
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
		j = skipSpace(s, end)
		if j >= len(s) {
			return 0, false
		}
		if s[j] == '}' {
			return j + 1, true
		}
		if s[j] != ',' {
			return 0, false
		}
		j = skipSpace(s, j+1)
	}
}

// slot is where key's value at spot is kept (nil: nowhere) and the spot of
// what is inside it.
func (p *onePass) slot(spot lineSpot, key string) (*string, lineSpot) {
	switch spot {
	case spotTop:
		switch key {
		case "kind":
			return &p.kind, spotNone
		case "link":
			return &p.link, spotNone
		case "sub":
			return &p.sub, spotNone
		case "text":
			return &p.text, spotNone
		case "outcome":
			return &p.outcome, spotNone
		case "messageId":
			return &p.messageID, spotNone
		case "send":
			return &p.send, spotNone
		case "from":
			return &p.from, spotNone
		case "msg":
			return nil, spotMsg
		}
	case spotMsg:
		switch key {
		case "id":
			return &p.id, spotNone
		case "method":
			return &p.method, spotNone
		case "error":
			return &p.err, spotNone
		case "result":
			return nil, spotResult
		case "params":
			return nil, spotParams
		}
	case spotResult:
		if key == "messageId" {
			return &p.resultMsg, spotNone
		}
	case spotParams:
		if key == "update" {
			return nil, spotUpdate
		}
	case spotUpdate:
		switch key {
		case "sessionUpdate":
			return &p.updateKind, spotNone
		case "messageId":
			return &p.updateMsg, spotNone
		case "content":
			return nil, spotContent
		}
	case spotBlock:
		if key == "text" {
			return &p.blockText, spotNone
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
