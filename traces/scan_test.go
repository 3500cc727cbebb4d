package traces

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// scanEvent decodes one event line with the fast scanner, without the
// per-kind checks. Every line goes through one scanner, as a trace's do,
// so that names read before come from its table of recurring names.
func scanEvent(line []byte) (Event, error) {
	var e Event
	sharedScanner.data, sharedScanner.pos = line, 0
	err := sharedScanner.decodeFlat(reflect.ValueOf(&e).Elem(), infoFor(eventType))
	return e, err
}

var sharedScanner = lineScanner{repeat: eventRepeat}

// checkScanMatchesJSON compares the scanner with encoding/json on line:
// what the scanner accepts, json.Unmarshal accepts with the same result;
// what is not valid JSON, the scanner rejects; and the scanner calls
// nothing invalid JSON that is valid.
func checkScanMatchesJSON(t interface{ Fatalf(string, ...any) }, line []byte) {
	got, err := scanEvent(line)
	if err != nil && strings.ContainsAny(err.Error(), "\n\r") {
		t.Fatalf("error is not one line: %q", err)
	}
	valid := json.Valid(line)
	var se *jsonSyntaxError
	if errors.As(err, &se) && valid {
		t.Fatalf("scanner calls valid JSON invalid: %v\nline: %q", err, line)
	}
	if err != nil {
		return
	}
	if !valid {
		t.Fatalf("scanner accepts invalid JSON: %q", line)
	}
	var want Event
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("scanner accepts what json.Unmarshal rejects (%v): %q", err, line)
	}
	if got != want {
		t.Fatalf("scanner and json.Unmarshal differ on %q\n got: %#v\nwant: %#v", line, got, want)
	}
}

var scanSeeds = []string{
	`{"t":0,"seq":1,"kind":"heal"}`,
	` { "t" : 1 , "seq" : 2 , "kind" : "send" , "lostUnsynced" : true } `,
	`{"t":0,"seq":1,"kind":"a\u0000b\"c\\d\/e\bf\fg\nh\ri\tj"}`,
	`{"t":0,"seq":1,"kind":"\ud83d\ude00 \ud800 \udc00 \ud800\u0041 \uDFFF\uD800 \ud800\ud800\udc00 \u00e9\u2028"}`,
	"{\"t\":0,\"seq\":1,\"kind\":\"\xff\xc3\xed\xa0\x80 \xe2\x82\"}",
	`{"\u0074":5,"seq":1,"kind":"heal"}`,
	`{"T":5,"seq":1,"kind":"heal"}`,
	`{"t":-0,"seq":1e0,"kind":"heal"}`,
	`{"t":01,"seq":1,"kind":"heal"}`,
	`{"t":1.,"seq":1,"kind":"heal"}`,
	`{"t":-,"seq":1,"kind":"heal"}`,
	`{"t":0,"seq":1,"kind":"heal",}`,
	`{"t":0,"seq":1,"kind":"heal","option":{"a":[1,{"b":[]},"x",true,null]}}`,
	`{"t":0,"seq":1,"kind":"heal","zz":{"a":[1,{"b":[]},"x",true,null]}}`,
	`{"t":0,"seq":1,"kind":"heal","zz":[1,]}`,
	`{"t":0,"seq":1,"kind":"heal","zz":{"a":1,}}`,
	`{"t":0,"seq":1,"kind":"heal","zz":[[[[[[]]]]]]}`,
	`{"t":0,"seq":1,"kind":"heal","zz":[[[[[[]]]]]}`,
	`{"t":0,"seq":1,"kind":"heal","note":nul}`,
	`{"t":0,"seq":1,"kind":"heal","note":"\x"}`,
	`{"t":0,"seq":1,"kind":"heal","note":"\u12"}`,
	"{\"t\":0,\"seq\":1,\"kind\":\"he\tal\"}",
	`{"t":0,"seq":1,"kind":"heal"}}`,
	`{}`,
	`{`,
	``,
	`[]`,
	`"x"`,
	`{"t":true,"seq":1,"kind":"heal"}`,
	`{"t":0,"seq":1,"kind":"heal","lostUnsynced":1}`,
}

func TestScanMatchesJSON(t *testing.T) {
	for _, s := range scanSeeds {
		checkScanMatchesJSON(t, []byte(s))
	}
	rapid.Check(t, func(t *rapid.T) {
		e := genAnyEvent(t)
		line := AppendEvent(nil, &e)
		checkScanMatchesJSON(t, line)
		// And with a few bytes changed.
		edits := rapid.IntRange(0, 3).Draw(t, "edits")
		for range edits {
			if len(line) == 0 {
				break
			}
			i := rapid.IntRange(0, len(line)-1).Draw(t, "at")
			b := rapid.SampledFrom([]byte(`{}[]",:\ 0-1.eEtfnu"x`+"\xff\x00")).Draw(t, "byte")
			switch rapid.IntRange(0, 2).Draw(t, "op") {
			case 0:
				line[i] = b
			case 1:
				line = append(line[:i:i], append([]byte{b}, line[i:]...)...)
			case 2:
				line = append(line[:i:i], line[i+1:]...)
			}
		}
		checkScanMatchesJSON(t, line)
	})
}

func FuzzScanMatchesJSON(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, s := range trickyStrings {
		f.Add(AppendEvent(nil, &Event{Kind: s, Frame: s}))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkScanMatchesJSON(t, line)
	})
}
