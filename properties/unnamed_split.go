package properties

import (
	"sort"
	"strconv"
	"strings"
)

// ACP v1 replays user messages as chunks that may carry no messageId, and
// two user messages replayed back to back (a turn that ended before any
// reply, a cancel) are then one run of chunks: the frames cannot show where
// one ends. Read as one message, it matches no submission and every
// submission in it would be reported lost. So a run of unnamed chunks whose
// text is no text submitted in its session, but is a concatenation of such
// texts, is taken as those messages, in order.

// splitUnnamed splits the unnamed messages of every final transcript that
// are concatenations of the texts submitted in their session.
func (c *checker) splitUnnamed() {
	texts := map[string]map[string]bool{} // session → texts submitted there
	for _, s := range c.order {
		for _, r := range s.reqs {
			if r.session == "" {
				continue
			}
			if texts[r.session] == nil {
				texts[r.session] = map[string]bool{}
			}
			texts[r.session][s.text] = true
		}
	}
	for _, S := range c.sessOrder {
		if t := c.final[S]; t != nil && len(texts[S]) > 0 {
			t.splitUnnamed(texts[S])
		}
	}
}

func (t *transcript) splitUnnamed(texts map[string]bool) {
	var out []tmsg
	split := false
	for _, m := range t.msgs {
		parts := []string{m.text}
		if m.unnamed && !texts[m.text] {
			if p := concatOf(m.text, texts); p != nil {
				parts, split = p, true
			}
		}
		for j, p := range parts {
			n := m
			n.text = p
			if len(parts) > 1 {
				n.id = m.id + "." + strconv.Itoa(j+1)
				n.idH = t.in.ID(n.id)
			}
			out = append(out, n)
		}
	}
	if !split {
		return
	}
	t.msgs = out
	t.index = make(map[int32]int32, len(out))
	for i, m := range out {
		t.index[m.idH] = int32(i)
	}
}

// concatOf returns texts (from the set) whose concatenation is s, or nil.
// The texts are tried longest first, then in order, so the split is the
// same on every run.
func concatOf(s string, texts map[string]bool) []string {
	cands := make([]string, 0, len(texts))
	for t := range texts {
		if t != "" && strings.Contains(s, t) {
			cands = append(cands, t)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if len(cands[i]) != len(cands[j]) {
			return len(cands[i]) > len(cands[j])
		}
		return cands[i] < cands[j]
	})
	failed := map[int]bool{} // positions from which no split exists
	var from func(i int) []string
	from = func(i int) []string {
		if i == len(s) {
			return []string{}
		}
		if failed[i] {
			return nil
		}
		for _, t := range cands {
			if strings.HasPrefix(s[i:], t) {
				if rest := from(i + len(t)); rest != nil {
					return append([]string{t}, rest...)
				}
			}
		}
		failed[i] = true
		return nil
	}
	if p := from(0); len(p) > 1 {
		return p
	}
	return nil
}
