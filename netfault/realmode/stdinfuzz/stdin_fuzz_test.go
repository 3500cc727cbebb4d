// Package stdinfuzz holds the fuzz target of acpsim agent's stdin. It is a
// package of its own so that its instrumented build links only what serving
// stdio needs: package serve's own tests open SQLite stores, and instrumenting
// SQLite for a fuzz run took minutes of a clean CI machine.
package stdinfuzz

import (
	"bufio"
	"bytes"
	stdjson "encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/netfault/realmode/serve"
	"github.com/acpsim/acpsim/sim"
)

// answerWait bounds how long the fuzz target waits for the answers it
// expects: the Agent's timers are a microsecond, so only a request the
// Agent never answers takes this long.
const answerWait = 10 * time.Second

// FuzzServeStdio feeds arbitrary bytes to the reference Agent's stdin, as
// acpsim agent serves it, in-process. Whatever comes in, the Agent must not
// panic (nor the codec recover from one), every line it writes must be JSON,
// each request it can read is answered once, and a batch with anything to
// answer gets one array holding exactly those answers (JSON-RPC 2.0 §6).
// The seed corpus is testdata/fuzz/FuzzServeStdio: session ids are id1,
// id2, … in the order the Agent makes ids.
func FuzzServeStdio(f *testing.F) {
	f.Add([]byte(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":2}},{"foo":1}]` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 0 && in[len(in)-1] != '\n' {
			// A Client ends its last line too: an unterminated one is read
			// at the end of input, when the Agent stops, and a prompt it
			// holds then is dropped unanswered, as the Client has gone.
			in = append(in, '\n')
		}
		before, _ := acp.RecoveredPanics()
		want := expectAnswers(stdinLines(in))
		out := serveInProcess(t, in, want.count())
		for _, l := range out {
			if !stdjson.Valid([]byte(l)) || !utf8.ValidString(l) {
				t.Fatalf("the Agent wrote a line that is no JSON: %q", l)
			}
		}
		if got := readAnswers(t, out); !got.equal(want) {
			t.Fatalf("input %q\nanswered %s\nwant      %s\nAgent wrote:\n%s", in, got, want, strings.Join(out, "\n"))
		}
		if n, last := acp.RecoveredPanics(); n != before {
			t.Fatalf("the codec recovered from a panic on %q: %s", in, last)
		}
	})
}

// stdinLines splits in as serve.Stdio reads it: at each newline, empty
// lines skipped.
func stdinLines(in []byte) [][]byte {
	var out [][]byte
	for _, l := range bytes.Split(in, []byte{'\n'}) {
		if len(l) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// answers are the ids a Client is answered with: standalone responses,
// and one sorted id list per array.
type answers struct {
	single  []string
	batches []string // each: the ids of one array, sorted, joined by spaces
}

func (a *answers) count() int { return len(a.single) + len(a.batches) }

func (a *answers) equal(b answers) bool {
	return sortedEqual(a.single, b.single) && sortedEqual(a.batches, b.batches)
}

func (a answers) String() string {
	return "single " + strings.Join(a.single, " ") + " | batches [" + strings.Join(a.batches, "] [") + "]"
}

func sortedEqual(a, b []string) bool {
	a, b = append([]string(nil), a...), append([]string(nil), b...)
	sort.Strings(a)
	sort.Strings(b)
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

func batchKey(ids []string) string {
	sort.Strings(ids)
	return strconv.Itoa(len(ids)) + ": " + strings.Join(ids, " ")
}

// expectAnswers is what JSON-RPC 2.0 promises for lines, read with the
// codec's reference decoder: a response per request and per invalid entry
// (a line that is no JSON, an empty batch: one error object), none for a
// notification or a response, and a batch's answers in one array.
func expectAnswers(lines [][]byte) answers {
	var want answers
	for _, line := range lines {
		l := acp.DecodeLine(line)
		var ids []string
		for _, e := range l.Entries {
			switch {
			case e.Err != nil:
				ids = append(ids, string(e.ErrID))
			case e.Msg.Kind() == acp.KindRequest:
				ids = append(ids, string(e.Msg.ID))
			}
		}
		switch {
		case !l.Batch:
			want.single = append(want.single, ids...)
		case len(ids) > 0:
			want.batches = append(want.batches, batchKey(ids))
		}
	}
	return want
}

// readAnswers reads the answers among the Agent's lines; its notifications
// (updates) answer nothing.
func readAnswers(t *testing.T, out []string) answers {
	var got answers
	for _, l := range out {
		if strings.HasPrefix(l, "[") {
			var entries []acp.Message
			if err := stdjson.Unmarshal([]byte(l), &entries); err != nil || len(entries) == 0 {
				t.Fatalf("the Agent wrote an array that is no batch answer: %q (%v)", l, err)
			}
			var ids []string
			for _, e := range entries {
				if e.Kind() != acp.KindResponse {
					t.Fatalf("a batch answer holds a non-response: %q", l)
				}
				ids = append(ids, string(e.ID))
			}
			got.batches = append(got.batches, batchKey(ids))
			continue
		}
		var m acp.Message
		if err := stdjson.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("the Agent wrote %q: %v", l, err)
		}
		switch m.Kind() {
		case acp.KindResponse:
			got.single = append(got.single, string(m.ID))
		case acp.KindNotification:
		default:
			t.Fatalf("the Agent wrote %q, neither an answer nor a notification", l)
		}
	}
	return got
}

// isAnswer: a line of the Agent's that answers a Client's line, not one of
// its own notifications.
func isAnswer(l string) bool {
	var m acp.Message
	return strings.HasPrefix(l, "[") || stdjson.Unmarshal([]byte(l), &m) == nil && m.Kind() == acp.KindResponse
}

// serveInProcess runs serve.Stdio on in, keeps stdin open until the Agent
// has written n answers (or answerWait passed), then closes it and returns
// every line the Agent wrote.
func serveInProcess(t *testing.T, in []byte, n int) []string {
	disk := store.NewDisk()
	k := agent.DefaultKnobs()
	k.ChunkEvery = time.Microsecond
	ids := 0
	m := agent.New(k, disk, agent.Env{Name: "a", Choose: sim.Healthy{}.Choose, NewID: func() string { ids++; return "id" + strconv.Itoa(ids) }})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- serve.Stdio(m, disk, inR, outW); outW.Close() }()
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			lines <- sc.Text()
		}
		_, _ = io.Copy(io.Discard, outR) // a line past the buffer: fails below as too few answers
	}()
	written := make(chan struct{})
	go func() { _, _ = inW.Write(in); close(written) }() // the Agent has read every byte, or stopped reading
	var out []string
	answered := 0
	deadline := time.After(answerWait)
	for answered < n || written != nil {
		select {
		case <-written:
			written = nil
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the Agent's output ended after %d of %d answers: %v", answered, n, <-served)
			}
			out = append(out, l)
			if isAnswer(l) {
				answered++
			}
		case <-deadline:
			t.Fatalf("%d of %d answers after %v; the Agent wrote:\n%s", answered, n, answerWait, strings.Join(out, "\n"))
		}
	}
	_ = inW.Close()
	for l := range lines {
		out = append(out, l)
	}
	if err := <-served; err != nil {
		t.Fatalf("serve.Stdio: %v", err)
	}
	return out
}
