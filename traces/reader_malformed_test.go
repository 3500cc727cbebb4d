package traces

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// hdr is a valid header line.
var hdr = func() string {
	b, err := json.Marshal(sampleHeader())
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}()

// withHeader returns the header line with field key set to the raw JSON
// value (or removed, if value is "").
func withHeader(key, value string) string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(hdr), &m); err != nil {
		panic(err)
	}
	if value == "" {
		delete(m, key)
	} else {
		m[key] = json.RawMessage(value)
	}
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

const (
	ev1    = `{"t":0,"seq":1,"kind":"heal"}` + "\n"
	sendOK = `"kind":"send","link":"l","from":"c","to":"a","dir":"c2a","frame":"{}"`
)

// malformed is a table of bad traces: each must fail with an error that
// starts with want and mentions every string in mentions.
var malformed = []struct {
	name     string
	input    string
	want     string
	mentions []string
}{
	{"empty file", "", "a.ndjson: empty file: expected a header line", nil},
	{"empty header line", "\n", "a.ndjson:1: empty line, expected the header", nil},
	{"blank event line", hdr + ev1 + "  \n", "a.ndjson:3: empty line, expected an event", nil},
	{"truncated header", hdr[:40], "a.ndjson:1: truncated line (no newline at end of file): the trace was cut off while being written", nil},
	{"truncated event", hdr + ev1 + `{"t":1,"seq":2,"ki`, "a.ndjson:3: truncated line (no newline at end of file): the trace was cut off while being written", nil},
	{"truncated but complete JSON", hdr + strings.TrimSuffix(ev1, "\n"), "a.ndjson:2: truncated line", nil},

	{"header format 3", withHeader("format", "3"), "a.ndjson:1: header: unsupported format 3, expected 1 or 2", nil},
	{"header format 3 with new fields", `{"format":3,"colour":"red"}` + "\n", "a.ndjson:1: header: unsupported format 3, expected 1 or 2", nil},
	{"header format 0", withHeader("format", "0"), "a.ndjson:1: header: unsupported format 0, expected 1 or 2", nil},
	{"header format string", withHeader("format", `"1"`), `a.ndjson:1: header: field "format": expected a number, got "1"`, nil},
	{"header format float", withHeader("format", `1.5`), `a.ndjson:1: header: field "format": got 1.5, expected an integer`, nil},
	{"event as header", ev1, `a.ndjson:1: header: missing field "format"`, nil},
	{"header not JSON", "format=1\n", "a.ndjson:1: header: invalid JSON", nil},
	{"header array", "[1]\n", "a.ndjson:1: header: got [1], expected a JSON object", nil},
	{"header unknown field", withHeader("colour", `"red"`), `a.ndjson:1: header: unknown field "colour"`, []string{"command"}},
	{"header missing field", withHeader("command", ""), `a.ndjson:1: header: missing field "command"`, nil},
	{"header null string", withHeader("tool", "null"), `a.ndjson:1: header: field "tool": expected a string, got null`, nil},
	{"header rate not a number", withHeader("rates", `{"drop":"x"}`), `a.ndjson:1: header: field "rates": key "drop": expected a number, got "x"`, nil},
	{"header rates array", withHeader("rates", `[0.1]`), `a.ndjson:1: header: field "rates": expected an object, got [0.1]`, nil},
	{"header rates duplicate key", withHeader("rates", `{"drop":0.1,"drop":0.2}`), `a.ndjson:1: header: field "rates": key "drop" appears twice`, nil},
	{"header seed negative", withHeader("seed", `-1`), `a.ndjson:1: header: field "seed": got -1, expected a non-negative integer`, nil},
	{"header seed too big", withHeader("seed", `18446744073709551616`), `a.ndjson:1: header: field "seed": got 18446744073709551616, expected a non-negative integer that fits in 64 bits`, nil},
	{"header source", withHeader("source", `"dice"`), `a.ndjson:1: header: field "source": got "dice", expected "seed" or "schedule"`, nil},
	{"header contract unknown field", withHeader("contract", `{"retention":"all","liveOnly":null,"extra":1}`), `a.ndjson:1: header: field "contract": unknown field "extra"`, []string{"retention", "liveOnly"}},
	{"header contract missing field", withHeader("contract", `{"retention":"all"}`), `a.ndjson:1: header: field "contract": missing field "liveOnly"`, nil},
	{"header retention unknown", withHeader("contract", `{"retention":"forever","liveOnly":[]}`), `a.ndjson:1: header: field "contract": contract retention "forever"`, []string{"last N"}},
	{"header liveOnly element", withHeader("contract", `{"retention":"all","liveOnly":["a",2]}`), `a.ndjson:1: header: field "contract": field "liveOnly": element 1: expected a string, got 2`, nil},
	{"header duplicate field", strings.Replace(hdr, `{`, `{"tool":"x",`, 1), `a.ndjson:1: header: field "tool" appears twice`, nil},
	{"header trailing data", strings.TrimSuffix(hdr, "\n") + " {}\n", "a.ndjson:1: header: unexpected data after the JSON object", nil},

	{"t not a number", hdr + `{"t":"x","seq":1,"kind":"heal"}` + "\n", `a.ndjson:2: event: field "t": expected a number, got "x"`, nil},
	{"t float", hdr + `{"t":1.5,"seq":1,"kind":"heal"}` + "\n", `a.ndjson:2: event: field "t": got 1.5, expected an integer`, nil},
	{"t overflow", hdr + `{"t":9223372036854775808,"seq":1,"kind":"heal"}` + "\n", `a.ndjson:2: event: field "t": got 9223372036854775808, expected an integer that fits in 64 bits`, nil},
	{"t negative", hdr + `{"t":-1,"seq":1,"kind":"heal"}` + "\n", `a.ndjson:2: event: field "t": got -1, expected a time of at least 0`, nil},
	{"t decreasing", hdr + `{"t":100,"seq":1,"kind":"heal"}` + "\n" + `{"t":90,"seq":2,"kind":"heal"}` + "\n", `a.ndjson:3: event: field "t": got 90, expected at least 100`, nil},
	{"t missing", hdr + `{"seq":1,"kind":"heal"}` + "\n", `a.ndjson:2: event: missing field "t", expected fields t, seq, kind`, nil},
	{"seq missing in format 1", withHeader("format", "1") + `{"t":0,"kind":"heal"}` + "\n", `a.ndjson:2: event: missing field "seq"`, nil},
	{"seq given in format 2 but not the line's", hdr + `{"t":0,"kind":"heal"}` + "\n" + `{"t":0,"seq":3,"kind":"heal"}` + "\n", `a.ndjson:3: event: field "seq": got 3, expected 2`, nil},
	{"seq from 0", hdr + `{"t":0,"seq":0,"kind":"heal"}` + "\n", `a.ndjson:2: event: field "seq": got 0, expected 1`, nil},
	{"seq gap", hdr + ev1 + `{"t":0,"seq":3,"kind":"heal"}` + "\n", `a.ndjson:3: event: field "seq": got 3, expected 2`, nil},
	{"seq repeated", hdr + ev1 + ev1, `a.ndjson:3: event: field "seq": got 1, expected 2`, nil},
	{"kind missing", hdr + `{"t":0,"seq":1}` + "\n", `a.ndjson:2: event: missing field "kind"`, nil},
	{"kind unknown", hdr + `{"t":0,"seq":1,"kind":"dup"}` + "\n", `a.ndjson:2: event: unknown kind "dup", expected one of submit, send, deliver, drop,`, []string{"timer"}},
	{"kind number", hdr + `{"t":0,"seq":1,"kind":3}` + "\n", `a.ndjson:2: event: field "kind": expected a string, got 3`, nil},
	{"unknown field", hdr + `{"t":0,"seq":1,"kind":"heal","frmae":"x"}` + "\n", `a.ndjson:2: event: unknown field "frmae", expected one of t, seq, kind,`, []string{"frame", "lostUnsynced"}},
	{"duplicate field", hdr + `{"t":0,"seq":1,"t":0,"kind":"heal"}` + "\n", `a.ndjson:2: event: field "t" appears twice`, nil},
	{"null field", hdr + `{"t":0,"seq":1,"kind":"heal","note":null}` + "\n", `a.ndjson:2: event: field "note": expected a string, got null`, nil},
	{"bool field", hdr + `{"t":0,"seq":1,"kind":"kill","from":"a","note":"x","lostUnsynced":"yes"}` + "\n", `a.ndjson:2: event: field "lostUnsynced": expected true or false, got "yes"`, nil},
	{"invalid JSON", hdr + `{"t":0,"seq":1,` + "\n", `a.ndjson:2: event: invalid JSON`, nil},
	{"invalid JSON char", hdr + `{"t":0,"seq":1,"kind":heal}` + "\n", `a.ndjson:2: event: invalid JSON`, nil},
	{"not an object", hdr + `"heal"` + "\n", `a.ndjson:2: event: got "heal", expected a JSON object`, nil},
	{"two objects", hdr + strings.TrimSuffix(ev1, "\n") + ev1, `a.ndjson:2: event: unexpected data after the JSON object`, nil},
	{"raw newline in string", hdr + `{"t":0,"seq":1,"kind":"he` + "\n" + `al"}` + "\n", `a.ndjson:2: event: invalid JSON`, nil},

	{"dir", hdr + `{"t":0,"seq":1,` + strings.Replace(sendOK, `"c2a"`, `"x2y"`, 1) + "}\n", `a.ndjson:2: event: field "dir": got "x2y", expected "c2a" or "a2c"`, nil},
	{"send missing frame", hdr + `{"t":0,"seq":1,` + strings.Replace(sendOK, `,"frame":"{}"`, ``, 1) + "}\n", `a.ndjson:2: event: send event: missing field "frame", expected fields link, from, to, dir, frame`, nil},
	{"send empty frame", hdr + `{"t":0,"seq":1,` + strings.Replace(sendOK, `"frame":"{}"`, `"frame":""`, 1) + "}\n", `a.ndjson:2: event: send event: missing field "frame"`, nil},
	{"deliver missing link", hdr + `{"t":0,"seq":1,` + strings.Replace(strings.Replace(sendOK, `"link":"l",`, ``, 1), "send", "deliver", 1) + "}\n", `a.ndjson:2: event: deliver event: missing field "link"`, nil},
	{"drop missing dir", hdr + `{"t":0,"seq":1,` + strings.Replace(strings.Replace(sendOK, `"dir":"c2a",`, ``, 1), "send", "drop", 1) + "}\n", `a.ndjson:2: event: drop event: missing field "dir"`, nil},
	{"drop missing note", hdr + `{"t":0,"seq":1,` + strings.Replace(sendOK, "send", "drop", 1) + "}\n", `a.ndjson:2: event: drop event: missing field "note"`, nil},
	{"submit missing text", hdr + `{"t":0,"seq":1,"kind":"submit","client":"c1","sub":"s1"}` + "\n", `a.ndjson:2: event: submit event: missing field "text", expected fields client, sub, text`, nil},
	{"connect missing to", hdr + `{"t":0,"seq":1,"kind":"connect","link":"l","from":"c"}` + "\n", `a.ndjson:2: event: connect event: missing field "to"`, nil},
	{"disconnect missing link", hdr + `{"t":0,"seq":1,"kind":"disconnect"}` + "\n", `a.ndjson:2: event: disconnect event: missing field "link"`, nil},
	{"kill missing from", hdr + `{"t":0,"seq":1,"kind":"kill","note":"x"}` + "\n", `a.ndjson:2: event: kill event: missing field "from"`, nil},
	{"restart missing from", hdr + `{"t":0,"seq":1,"kind":"restart"}` + "\n", `a.ndjson:2: event: restart event: missing field "from"`, nil},
	{"end missing note", hdr + `{"t":0,"seq":1,"kind":"end"}` + "\n", `a.ndjson:2: event: end event: missing field "note"`, nil},
	{"insert missing session", hdr + `{"t":0,"seq":1,"kind":"insert","messageId":"m","text":"x"}` + "\n", `a.ndjson:2: event: insert event: missing field "session"`, nil},
	{"timer missing to", hdr + `{"t":0,"seq":1,"kind":"timer","note":"x"}` + "\n", `a.ndjson:2: event: timer event: missing field "to"`, nil},
	{"choose missing option", hdr + `{"t":0,"seq":1,"kind":"choose","decision":"drop","site":"l1"}` + "\n", `a.ndjson:2: event: choose event: field "option": got 0, expected a number greater than 0`, nil},
	{"choose negative option", hdr + `{"t":0,"seq":1,"kind":"choose","decision":"drop","site":"l1","option":-2}` + "\n", `a.ndjson:2: event: choose event: field "option": got -2, expected a number greater than 0`, nil},
	{"choose missing site", hdr + `{"t":0,"seq":1,"kind":"choose","decision":"drop","option":1}` + "\n", `a.ndjson:2: event: choose event: missing field "site"`, nil},
	{"outcome value", hdr + `{"t":0,"seq":1,"kind":"outcome","client":"c","sub":"s","outcome":"maybe"}` + "\n", `a.ndjson:2: event: field "outcome": got "maybe", expected one of "inserted", "failed", "unknown", "abandoned"`, nil},
	{"outcome missing sub", hdr + `{"t":0,"seq":1,"kind":"outcome","client":"c","outcome":"failed"}` + "\n", `a.ndjson:2: event: outcome event: missing field "sub"`, nil},
	{"error after good events", hdr + ev1 + `{"t":0,"seq":2,"kind":"heal"}` + "\n" + `{"t":0,"seq":3,"kind":"heal","x":1}` + "\n", `a.ndjson:4: event: unknown field "x"`, nil},
	{"long garbage key", hdr + `{"t":0,"seq":1,"kind":"heal","` + strings.Repeat("k", 500) + `\n":1}` + "\n", `a.ndjson:2: event: unknown field "kkkk`, nil},
}

func TestReadMalformed(t *testing.T) {
	for _, tc := range malformed {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Read(strings.NewReader(tc.input), "a.ndjson")
			if err == nil {
				t.Fatalf("no error, want %q (read %d events)", tc.want, len(l.Events))
			}
			if l != nil {
				t.Errorf("got a Log along with the error")
			}
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") {
				t.Errorf("error is not one line: %q", msg)
			}
			if !strings.HasPrefix(msg, tc.want) {
				t.Errorf("error\n got: %s\nwant: %s...", msg, tc.want)
			}
			for _, m := range tc.mentions {
				if !strings.Contains(msg, m) {
					t.Errorf("error %q does not mention %q", msg, m)
				}
			}
			var re *ReadError
			if !errors.As(err, &re) || re.Name != "a.ndjson" {
				t.Errorf("error is %T, want *ReadError named a.ndjson", err)
			}
		})
	}
}
