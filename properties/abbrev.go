package properties

import (
	"sort"
	"strings"
)

// idPrefix is how many runes of a long id a report shows at least.
const idPrefix = 8

// abbrev shows the long ids of one report each by the shortest prefix of at
// least idPrefix runes that no other id of the report starts with, letters
// compared without case (f6f9e88e… and F6F9E88E… read as one id), so that
// two ids the report names never look the same.
type abbrev struct {
	// longer holds the prefix length of the ids that need more than idPrefix.
	longer map[string]int
}

func newAbbrev(ids []string) abbrev {
	folded := make([]string, 0, len(ids))
	for _, id := range ids {
		if len([]rune(id)) > 12 {
			folded = append(folded, strings.ToLower(id))
		}
	}
	sort.Strings(folded)
	a := abbrev{}
	need := func(id string, n int) {
		if n > idPrefix {
			if a.longer == nil {
				a.longer = map[string]int{}
			}
			a.longer[id] = max(a.longer[id], n)
		}
	}
	for i := 1; i < len(folded); i++ {
		x, y := folded[i-1], folded[i]
		if x == y {
			continue
		}
		n := commonRunes(x, y) + 1
		need(x, n)
		need(y, n)
	}
	return a
}

// commonRunes is the length in runes of the longest common prefix of x and y.
func commonRunes(x, y string) int {
	rx, ry := []rune(x), []rune(y)
	n := 0
	for n < len(rx) && n < len(ry) && rx[n] == ry[n] {
		n++
	}
	return n
}

// short is id as the report shows it: whole when short or when its prefix
// would be (nearly) all of it, else a prefix and "…".
func (a abbrev) short(id string) string {
	r := []rune(id)
	if len(r) <= 12 {
		return id
	}
	n := idPrefix
	if m, ok := a.longer[strings.ToLower(id)]; ok {
		n = m
	}
	if n >= len(r) {
		return id
	}
	return string(r[:n]) + "…"
}
