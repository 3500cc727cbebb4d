// What a real process wrote on stderr, kept for the trace and cut down
// for a verdict: the lines that say why it died; and what a peer wrote,
// made safe to print in one.

package proc

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// stderrKeep bounds the stderr kept of one process. A crash at start writes
// a few kilobytes; a process that logs for a whole run keeps its last
// megabyte, the end where a crash is.
const stderrKeep = 1 << 20

// ExcerptLines is how many lines of stderr a verdict shows: enough for a
// Node or Python stack with its error line, where the last line alone
// ("Node.js v20.20.2") says nothing.
const ExcerptLines = 20

// StderrTail keeps what a process writes on stderr, up to its last
// megabyte. Its zero value is ready; it is safe for concurrent use.
type StderrTail struct {
	mu      sync.Mutex
	buf     []byte
	dropped int // bytes cut from the start
}

// Write keeps b.
func (t *StderrTail) Write(b []byte) (int, error) {
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
func (t *StderrTail) String() string {
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
	headline = Printable(strings.TrimSpace(all[at]))
	from := max(len(all)-ExcerptLines, 0)
	if at < from {
		lines = append(lines, Printable(all[at]), "…")
		from += 2
	}
	for _, l := range all[from:] {
		lines = append(lines, Printable(l)) // a terminal shows them: no escape sequence of the process's gets through
	}
	return headline, lines, len(all)
}

// Printable escapes, as strconv.Quote would, what a terminal would act on
// rather than show: control characters (an escape sequence), invalid UTF-8
// and invisible runes (bidi overrides) a peer wrote, so a message that holds
// them prints as text. Tabs stay.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || (!unicode.IsPrint(r) && r != '\t') {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || (!unicode.IsPrint(r) && r != '\t') {
			q := strconv.Quote(s[i : i+n])
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Quote is a peer's frame for a message: its first 200 bytes, quoted.
func Quote(frame []byte) string {
	const max = 200
	if len(frame) > max {
		return strconv.Quote(string(frame[:max])) + "…"
	}
	return strconv.Quote(string(frame))
}
