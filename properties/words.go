package properties

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Wording helpers shared by explanations and the table, so the same counts,
// lists, ids and times read the same everywhere.

func pronounObj(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func pronoun(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}

func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

func list(xs []string) string {
	switch len(xs) {
	case 0:
		return "nothing"
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// short marks a long opaque id (a UUID) for prose: how many characters tell
// it from the report's other ids is known only once the whole report is
// written, when Report.cutIDs replaces the mark by that prefix. An id that
// holds a mark's byte itself (an Agent may send any id) is cut at once.
func short(id string) string {
	if utf8.RuneCountInString(id) <= 12 {
		return id
	}
	if strings.ContainsAny(id, idOpen+idClose) {
		return abbrev{}.short(id)
	}
	return idOpen + id + idClose
}

func shortAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = short(id)
	}
	return out
}

// clip shortens text to n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// ms formats virtual microseconds as milliseconds, exactly.
func ms(us int64) string {
	return strconv.FormatFloat(float64(us)/1000, 'f', -1, 64) + "ms"
}
