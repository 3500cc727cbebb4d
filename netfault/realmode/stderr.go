// What a real process wrote on stderr, kept for the trace and cut down
// for a verdict: the lines that say why it died.

package realmode

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// stderrKeep bounds the stderr kept of one process. A crash at start writes
// a few kilobytes; a process that logs for a whole run keeps its last
// megabyte, the end where a crash is.
const stderrKeep = 1 << 20

// ExcerptLines is how many lines of stderr a verdict shows: enough for a
// Node or Python stack with its error line, where the last line alone
// ("Node.js v20.20.2") says nothing.
const ExcerptLines = 20

// stderrBuf keeps what a process writes on stderr, up to stderrKeep bytes
// from the end.
type stderrBuf struct {
	mu      sync.Mutex
	buf     []byte
	dropped int // bytes cut from the start
}

func (t *stderrBuf) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*stderrKeep { // cut now and then, not on every write
		over := len(t.buf) - stderrKeep
		t.dropped += over
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

// String is the stderr kept, trimmed, saying first how much was cut.
func (t *stderrBuf) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b, dropped := t.buf, t.dropped
	if over := len(b) - stderrKeep; over > 0 {
		b, dropped = b[over:], dropped+over
	}
	s := strings.TrimSpace(string(b))
	if dropped > 0 && s != "" {
		s = fmt.Sprintf("[… the first %d bytes of stderr were not kept …]\n%s", dropped, s)
	}
	return s
}

// errorLine matches a line that starts an error report: Node's and
// Python's "SomethingError: …", Go's "panic: …", "fatal error: …".
var errorLine = regexp.MustCompile(`^\s*(?:[\w.]*(?:Error|Exception)\b|(?i:panic|fatal(?: error)?|error)\b\s*[:!])`)

// StderrExcerpt cuts stderr down for a verdict: headline is the last line
// that starts an error report (else the last line); lines are the last
// ExcerptLines non-empty lines, or, when the headline came before those,
// the headline, a "…" line and the last ExcerptLines-2 (a Go panic's line
// heads a long stack); total counts the non-empty lines.
func StderrExcerpt(stderr string) (headline string, lines []string, total int) {
	var all []string
	for _, l := range strings.Split(stderr, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			all = append(all, l)
		}
	}
	if len(all) == 0 {
		return "", nil, 0
	}
	at := len(all) - 1
	for i := len(all) - 1; i >= 0; i-- {
		if errorLine.MatchString(all[i]) {
			at = i
			break
		}
	}
	headline = printable(strings.TrimSpace(all[at]))
	from := max(len(all)-ExcerptLines, 0)
	if at < from {
		lines = append(lines, printable(all[at]), "…")
		from += 2
	}
	for _, l := range all[from:] {
		lines = append(lines, printable(l)) // a terminal shows them: no escape sequence of the process's gets through
	}
	return headline, lines, len(all)
}
