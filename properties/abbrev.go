package properties

import (
	"cmp"
	"iter"
	"slices"
	"strings"
	"unicode/utf8"
)

// idPrefix is how many runes of a long id a report shows at least.
const idPrefix = 8

// abbrev shows the long ids of one report each by the shortest prefix of at
// least idPrefix runes that no other id of the report starts with, letters
// compared without case (f6f9e88e… and F6F9E88E… read as one id), so that
// two ids the report names never look the same.
type abbrev struct {
	// longer holds the prefix length (in runes) of the ids that need more
	// than idPrefix.
	longer map[string]int
}

func newAbbrev(ids iter.Seq[string]) abbrev {
	// Only ids sharing their first idPrefix runes, folded, need more; they
	// share their first 8 bytes too. Sorting those bytes as numbers finds
	// the shared prefixes without sorting (or keeping) millions of strings.
	var keys []uint64
	for id := range ids {
		if long(id) {
			keys = append(keys, prefixKey(id))
		}
	}
	slices.Sort(keys)
	shared := map[uint64][]string{}
	for i := 1; i < len(keys); i++ {
		if keys[i] == keys[i-1] {
			shared[keys[i]] = nil
		}
	}
	var a abbrev
	if len(shared) == 0 {
		return a
	}
	for id := range ids {
		if !long(id) {
			continue
		}
		k := prefixKey(id)
		if g, ok := shared[k]; ok && (len(g) == 0 || g[len(g)-1] != id) {
			shared[k] = append(g, id)
		}
	}
	for _, g := range shared { // in any order: an id's length is the most any group asks
		a.tellApart(g)
	}
	return a
}

// long says whether an id is cut at all.
func long(id string) bool { return len(id) > 12 && utf8.RuneCountInString(id) > 12 }

// prefixKey is id's first 8 bytes, folded, as a number.
func prefixKey(id string) uint64 {
	for i := 0; i < 8 && i < len(id); i++ {
		if id[i] >= utf8.RuneSelf {
			return bytesKey(strings.ToLower(id)) // rare: fold it whole
		}
	}
	return bytesKey(id)
}

// bytesKey is s's first 8 bytes, ASCII letters folded, as a number.
func bytesKey(s string) uint64 {
	var k uint64
	for i := range 8 {
		c := byte(0)
		if i < len(s) {
			c = s[i]
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		k = k<<8 | uint64(c)
	}
	return k
}

// tellApart gives each of ids, which share a prefix, the prefix length that
// tells it from its neighbours in folded order: their common prefix and one
// more rune. Ids that differ only in case are shown whole.
func (a *abbrev) tellApart(ids []string) {
	if len(ids) < 2 {
		return
	}
	slices.SortFunc(ids, func(x, y string) int {
		return cmp.Or(strings.Compare(strings.ToLower(x), strings.ToLower(y)), strings.Compare(x, y))
	})
	for i := 1; i < len(ids); i++ {
		x, y := ids[i-1], ids[i]
		if x == y {
			continue
		}
		n := commonRunes(strings.ToLower(x), strings.ToLower(y)) + 1
		a.need(x, n)
		a.need(y, n)
	}
}

func (a *abbrev) need(id string, n int) {
	if n <= idPrefix {
		return
	}
	if a.longer == nil {
		a.longer = map[string]int{}
	}
	a.longer[id] = max(a.longer[id], n)
}

// commonRunes is the length in runes of the longest common prefix of x and
// y (a rune cut in the middle counts: one more rune shown does no harm).
func commonRunes(x, y string) int {
	i := 0
	for i < len(x) && i < len(y) && x[i] == y[i] {
		i++
	}
	return utf8.RuneCountInString(x[:i])
}

// short is id as the report shows it: whole when short or when its prefix
// would be (nearly) all of it, else a prefix and "…".
func (a abbrev) short(id string) string {
	r := []rune(id)
	if len(r) <= 12 {
		return id
	}
	n := idPrefix
	if m, ok := a.longer[id]; ok {
		n = m
	}
	if n >= len(r) {
		return id
	}
	return string(r[:n]) + "…"
}

// The marks around an id in prose until the report cuts it (record and
// unit separators: no id the checker makes holds them).
const idOpen, idClose = "\x1e", "\x1f"

// cutIDs cuts the ids marked in the report's prose and fixes the cut of its
// table, over the ids the whole report shows, so no two of them look alike.
// When the prose marks none, the table's cut is over the table alone, and
// abbrev makes it when the table is printed.
func (r *Report) cutIDs() {
	texts := []*string{&r.Sessions.Why}
	for i := range r.Anomalies {
		texts = append(texts, &r.Anomalies[i].Explanation)
	}
	for i := range r.Unjudged {
		texts = append(texts, &r.Unjudged[i].Why)
	}
	if !slices.ContainsFunc(texts, func(t *string) bool { return strings.Contains(*t, idOpen) }) {
		// Nothing to cut in the prose (a passing run, usually): the table's
		// cut is made over the table alone, when it is printed (abbrev),
		// which is the cut made here. A swarm prints few of its reports.
		return
	}
	ab := newAbbrev(func(yield func(string) bool) {
		for id := range r.tableIDs {
			if !yield(id) {
				return
			}
		}
		for _, t := range texts {
			for id := range marked(*t) {
				if !yield(id) {
					return
				}
			}
		}
	})
	r.ab = &ab
	for _, t := range texts {
		*t = ab.unmark(*t)
	}
}

// marked yields the ids marked in s.
func marked(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for {
			i := strings.Index(s, idOpen)
			if i < 0 {
				return
			}
			s = s[i+len(idOpen):]
			j := strings.Index(s, idClose)
			if j < 0 || !yield(s[:j]) {
				return
			}
			s = s[j+len(idClose):]
		}
	}
}

// unmark replaces every marked id of s by its cut.
func (a abbrev) unmark(s string) string {
	if !strings.Contains(s, idOpen) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, idOpen)
		j := strings.Index(s[max(i, 0):], idClose)
		if i < 0 || j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(a.short(s[i+len(idOpen) : i+j]))
		s = s[i+j+len(idClose):]
	}
}

// tableIDs yields the ids the submissions table shows (a session once for
// the rows in a row that name it).
func (r *Report) tableIDs(yield func(string) bool) {
	last := ""
	for i := range r.Submissions {
		s := &r.Submissions[i]
		if len(s.Sessions) > 0 && s.Sessions[0] != last {
			last = s.Sessions[0]
			if !yield(last) {
				return
			}
		}
		if !yield(s.Key) || !yield(s.MessageID) {
			return
		}
	}
}
