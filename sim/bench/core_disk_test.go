package bench

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/acp/jsonscan"
	"github.com/acpsim/acpsim/traces"
)

// BenchmarkCheckCoreFromDisk is BenchmarkCheckCore as acpsim judge would
// run a rebuilt checker: from the format-2 trace file, each line scanned
// for the fields the core reads (jsonscan.FieldsOf, no decoder, no
// traces.Event), each id interned by its string, then judged. Beside
// BenchmarkTraceBytes's read floor of the same file it says whether the
// judge line (within twice the floor) leaves room for the other rules.
func BenchmarkCheckCoreFromDisk(b *testing.B) {
	h := traceHistory()
	path := filepath.Join(b.TempDir(), "history.ndjson")
	if err := writeTrace(path, h); err != nil {
		b.Fatal(err)
	}
	for _, reader := range []struct {
		name    string
		onePass bool
	}{{"scanner", false}, {"one-pass", true}} {
		b.Run(reader.name, func(b *testing.B) {
			cpu0 := CPUTime()
			for b.Loop() {
				evs, err := coreEventsFromFile(path, reader.onePass)
				if err != nil {
					b.Fatal(err)
				}
				if f := judgeCore(evs); f != (coreFindings{}) {
					b.Fatalf("the history is not healthy: %v", f)
				}
			}
			cpu := (CPUTime() - cpu0).Seconds() / float64(b.N)
			b.ReportMetric(cpu*1e6/float64(len(h.Texts)), "cpu-us/sub")
		})
	}
}

// TestCheckCoreFromDiskReadsAsInMemory holds the file's reading to the
// events': the same findings on the histories TestCheckCoreJudges uses.
func TestCheckCoreFromDiskReadsAsInMemory(t *testing.T) {
	for _, planted := range []int{0, 1, 3} {
		cfg := Defaults(2000)
		cfg.Duplicates = planted
		h := Generate(cfg)
		path := filepath.Join(t.TempDir(), "history.ndjson")
		if err := writeTrace(path, h); err != nil {
			t.Fatal(err)
		}
		for _, onePass := range []bool{false, true} {
			evs, err := coreEventsFromFile(path, onePass)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := judgeCore(evs), judgeCore(coreEvents(h.Events)); got != want || planted > 0 && got.duplicate != planted {
				t.Errorf("%d planted, one pass %v: from the file %v, from memory %v", planted, onePass, got, want)
			}
		}
	}
}

// coreEventsFromFile is coreEvents of a format-2 trace file, read line by
// line with the scanner the actors use, no decoder.
func coreEventsFromFile(path string, onePass bool) (*coreHistory, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	r := newCoreReader()
	first := true
	for sc.Scan() {
		if first { // the header
			first = false
			continue
		}
		if onePass {
			r.lineOnePass(string(sc.Bytes()))
		} else {
			r.line(string(sc.Bytes()))
		}
	}
	r.h.subs, r.h.reqs, r.h.msgs = len(r.subs), len(r.reqs), len(r.msgs)
	return r.h, sc.Err()
}

type coreReader struct {
	h                 *coreHistory
	subs, texts, msgs map[string]int32
	reqs              map[linkRaw]int32
	observer          map[string]bool
	sentAt            []int32 // by seq: the index in h.ev of a prompt's or answer's send, -1 otherwise
	top, env, par     [7]string
}

type linkRaw struct{ link, id string }

func newCoreReader() *coreReader {
	return &coreReader{h: &coreHistory{}, subs: map[string]int32{}, texts: map[string]int32{}, msgs: map[string]int32{},
		reqs: map[linkRaw]int32{}, observer: map[string]bool{}}
}

var (
	topKeys    = []string{"kind", "link", "sub", "text", "msg", "send", "outcome"}
	envKeys    = []string{"id", "method", "params", "result", "error", "from"}
	paramKeys  = []string{"sessionId", "update", "messageId"}
	updateKeys = []string{"sessionUpdate", "messageId", "content"}
	textKeys   = []string{"text"}
)

func str(raw string) string { s, _ := jsonscan.StringField(raw); return s }

// line reads one event into the core's form, its fields found by the
// scanner, one nested object at a time.
func (r *coreReader) line(l string) {
	var p onePass
	top := r.top[:len(topKeys)]
	clear(top)
	jsonscan.FieldsOf(l, topKeys, top)
	p.kind, p.link, p.sub, p.text, p.send, p.outcome = top[0], top[1], top[2], top[3], top[5], top[6]
	switch str(p.kind) {
	case traces.KindConnect:
		var from [1]string
		jsonscan.FieldsOf(l, []string{"from"}, from[:])
		p.from = from[0]
	case traces.KindOutcome:
		var o [1]string
		jsonscan.FieldsOf(l, []string{"messageId"}, o[:])
		p.messageID = o[0]
	case traces.KindSend:
		env := r.env[:len(envKeys)]
		clear(env)
		if jsonscan.FieldsOf(top[4], envKeys, env) {
			p.id, p.method, p.err = env[0], env[1], env[4]
			var m [1]string
			jsonscan.FieldsOf(env[3], []string{"messageId"}, m[:])
			p.resultMsg = m[0]
			par := r.par[:len(paramKeys)]
			clear(par)
			jsonscan.FieldsOf(env[2], paramKeys, par)
			var u [3]string
			jsonscan.FieldsOf(par[1], updateKeys, u[:])
			p.updateKind, p.updateMsg = u[0], u[1]
			var t [1]string // the first content block's text: the bench's prompts have one
			if content := u[2]; len(content) > 1 && content[0] == '[' {
				jsonscan.Object(content, jsonscan.SkipWS(content, 1), textKeys, t[:], 1, true)
			}
			p.blockText = t[0]
		}
	}
	r.event(&p)
}

// lineOnePass is line, its fields found in one pass (onePass).
func (r *coreReader) lineOnePass(l string) {
	var p onePass
	if !p.read(l) {
		p = onePass{}
	}
	r.event(&p)
}

// event is the core's form of the event whose fields p holds.
func (r *coreReader) event(p *onePass) {
	c := coreEvent{sub: -1, req: -1, msg: -1}
	sent := false
	switch str(p.kind) {
	case traces.KindSubmit:
		r.texts[str(p.text)] = intern(r.subs, str(p.sub))
	case traces.KindConnect:
		r.observer[str(p.link)] = str(p.from) == traces.Observer
	case traces.KindOutcome:
		c.kind, c.sub = coreOutcome, intern(r.subs, str(p.sub))
		if id := str(p.messageID); id != "" {
			c.msg = intern(r.msgs, id)
		}
		switch str(p.outcome) {
		case traces.OutcomeFailed:
			c.outcome = coreOutcome8(Failed)
		case traces.OutcomeUnknown:
			c.outcome = coreOutcome8(Unknown)
		}
	case traces.KindDeliver:
		if n, err := strconv.Atoi(p.send); err == nil && n < len(r.sentAt) && r.sentAt[n] >= 0 {
			s := r.h.ev[r.sentAt[n]]
			c.req, c.kind = s.req, corePromptArrived
			if s.kind == coreAnswer {
				c.kind = coreAnswerArrived
			}
		}
	case traces.KindSend:
		sent = true
		link := str(p.link)
		k := linkRaw{link, p.id}
		switch method := str(p.method); {
		case method == acp.MethodSessionPrompt && p.id != "":
			q := int32(len(r.reqs))
			r.reqs[k] = q
			c.kind, c.sub, c.req = corePrompt, intern(r.subs, str(p.sub)), q
		case method == "" && p.id != "":
			if q, ok := r.reqs[k]; ok {
				c.kind, c.req, c.ok = coreAnswer, q, p.err == ""
				if id := str(p.resultMsg); c.ok && id != "" {
					c.msg = intern(r.msgs, id)
				}
			}
		case method == acp.MethodSessionUpdate && r.observer[link] && str(p.updateKind) == acp.UpdateUserMessage:
			if s, ok := r.texts[str(p.blockText)]; ok {
				c.kind, c.sub = coreTranscript, s
				if id := str(p.updateMsg); id != "" {
					c.msg = intern(r.msgs, id)
				}
			}
		}
	}
	for len(r.sentAt) <= len(r.h.ev)+1 {
		r.sentAt = append(r.sentAt, -1)
	}
	if sent && (c.kind == corePrompt || c.kind == coreAnswer) {
		r.sentAt[len(r.h.ev)+1] = int32(len(r.h.ev))
	}
	r.h.ev = append(r.h.ev, c)
}
