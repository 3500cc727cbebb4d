package tap

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsim/acpsim/traces"
)

// A separator is found wherever it lies, across the border of two chunks
// too, and nothing is found outside the range asked.
func TestLastIndexAtFindsASeparatorAcrossChunks(t *testing.T) {
	sep := []byte(`"kind":"restart"`)
	for _, at := range []int{0, 5, scanChunk - 3, scanChunk, 2*scanChunk - len(sep) + 1, 3*scanChunk + 7} {
		b := bytes.Repeat([]byte("x"), 4*scanChunk)
		copy(b[at:], sep)
		r := bytes.NewReader(b)
		if got, err := lastIndexAt(r, 0, int64(len(b)), sep); err != nil || got != int64(at) {
			t.Errorf("sep at %d: found at %d (%v)", at, got, err)
		}
		if got, _ := lastIndexAt(r, 0, int64(at+len(sep)-1), sep); got != -1 {
			t.Errorf("sep at %d, range ending before its end: found at %d", at, got)
		}
		if got, _ := lastIndexAt(r, int64(at+1), int64(len(b)), sep); got != -1 {
			t.Errorf("sep at %d, range starting after it: found at %d", at, got)
		}
	}
}

// aTapHeader is a tap trace's header line.
func aTapHeader(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	w := traces.NewWriter(&b)
	if err := w.WriteHeader(tapHeader("x")); err != nil || w.Flush() != nil {
		t.Fatal(err)
	}
	return b.String()
}

func tailOfTrace(t *testing.T, content string) (tapTail, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.ndjson")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readTapTail(f, p, int64(len(content)))
}

func TestReadTapTail(t *testing.T) {
	tapHeader := aTapHeader(t)
	v1Header := strings.Replace(tapHeader, `{"format":2,`, `{"format":1,`, 1)
	inFrame := `{"t":40,"seq":4,"kind":"send","link":"c1:a1#2","dir":"a2c","msg":{"x":{"t":1,"seq":9,"kind":"restart","from":"a1#7"}}}` + "\n"
	ev := `{"t":10,"seq":1,"kind":"restart","from":"a1#1"}` + "\n" + `{"t":20,"seq":2,"kind":"restart","from":"a1#2"}` + "\n" +
		`{"t":30,"seq":3,"kind":"connect","link":"c1:a1#1","from":"c1","to":"a1#1"}` + "\n"
	noSeqs := strings.NewReplacer(`"seq":1,`, "", `"seq":2,`, "", `"seq":3,`, "", `"seq":4,`, "").Replace(ev + inFrame)
	for _, c := range []struct {
		name, content string
		want          tapTail
		err           string
	}{
		{"header only", tapHeader, tapTail{end: int64(len(tapHeader)), format: 2}, ""},
		{"events", tapHeader + ev, tapTail{end: int64(len(tapHeader + ev)), seq: 3, lastT: 30, procs: 2, format: 2}, ""},
		{"cut off", tapHeader + ev + `{"t":40,"se`, tapTail{end: int64(len(tapHeader + ev)), cut: 11, seq: 3, lastT: 30, procs: 2, format: 2}, ""},
		{"header then a cut-off line", tapHeader + `{"t":4`, tapTail{end: int64(len(tapHeader)), cut: 6, format: 2}, ""},
		{"not JSON", tapHeader + ev + "garbage\n", tapTail{end: int64(len(tapHeader + ev)), cut: 8, seq: 3, lastT: 30, procs: 2, format: 2}, ""},
		{"two lines not JSON", tapHeader + ev + "garbage\nmore\n", tapTail{}, "its last two lines are not events"},
		{"cut-off header", tapHeader[:20], tapTail{cut: 20}, ""},
		{"cut-off header, longer", tapHeader[:100], tapTail{cut: 100}, ""},
		{"cut-off header of format 1", v1Header[:100], tapTail{cut: 100}, ""},
		{"format 1", v1Header + ev, tapTail{end: int64(len(v1Header + ev)), seq: 3, lastT: 30, procs: 2, format: 1}, ""},
		// In format 2 a frame that is JSON is written as it is: a restart
		// event inside one is not the trace's.
		{"a restart inside a frame", tapHeader + ev + inFrame, tapTail{end: int64(len(tapHeader + ev + inFrame)), seq: 4, lastT: 40, procs: 2, format: 2}, ""},
		// Format 2 may leave each seq out (a writer of a new trace does):
		// the events are numbered by their lines.
		{"seqs left out", tapHeader + noSeqs, tapTail{end: int64(len(tapHeader + noSeqs)), seq: 4, lastT: 40, procs: 2, format: 2}, ""},
		{"something else without a newline", `{"format":1,"tool":"acpsim run"`, tapTail{}, "not appending to a trace it cannot read"},
		{"not a tap's", strings.Replace(tapHeader, `,"observed":"tap"`, "", 1), tapTail{}, "not of acpsim tap"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := tailOfTrace(t, c.content)
			switch {
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("error %v, want %q", err, c.err)
			case c.err == "" && err != nil:
				t.Fatal(err)
			case c.err == "" && got != c.want:
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

// A tap catching up with lines another writer appended numbers them by
// line where they leave their seq out (format 2), by their seq where they
// have one.
func TestCatchUpNumbersLinesWithoutSeq(t *testing.T) {
	// Three events this tap wrote, then what the other appended.
	header := aTapHeader(t) + `{"t":10,"seq":1,"kind":"heal"}` + "\n" + `{"t":20,"seq":2,"kind":"heal"}` + "\n" + `{"t":40,"seq":3,"kind":"heal"}` + "\n"
	for _, c := range []struct {
		name, lines string
		seq, lastT  int64
	}{
		{"without seq", `{"t":50,"kind":"heal"}` + "\n" + `{"t":60,"kind":"heal"}` + "\n", 5, 60},
		{"with seq", `{"t":50,"seq":4,"kind":"heal"}` + "\n" + `{"t":70,"seq":5,"kind":"heal"}` + "\n", 5, 70},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "t.ndjson")
			if err := os.WriteFile(p, []byte(header+c.lines), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := &tapRecorder{f: f, seq: 3, lastT: 40, size: int64(len(header))}
			r.catchUp()
			if r.seq != c.seq || r.lastT != c.lastT {
				t.Fatalf("caught up to seq %d, time %d; want %d, %d", r.seq, r.lastT, c.seq, c.lastT)
			}
		})
	}
}
