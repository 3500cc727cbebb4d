package properties

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The final transcripts as the core judges them: after the pass, each
// session's final transcript is laid out once as a run of rows in fmsgs,
// where attribution keeps what it decides of each message (the seq before
// which it was inserted, the response that owns it).
//
// ACP v1 replays user messages as chunks that may carry no messageId, and
// two user messages replayed back to back (a turn that ended before any
// reply, a cancel) are then one run of chunks: the frames cannot show where
// one ends. Read as one message, it matches no submission and every
// submission in it would be reported lost. So under v1 a run of unnamed
// chunks whose text is no text submitted in its session, but is a
// concatenation of such texts, is taken as those messages, in order,
// before attribution.

// fmsg is a message of a final transcript.
type fmsg struct {
	id, text int32
	seq      int64 // first delivery of an update carrying it
	// bound: it was inserted before this seq (layBounds).
	bound int64
	// owner is the response that names it as its submission's insertion
	// (owned: there is one).
	owner   respRef
	owned   bool
	unnamed bool
}

// finalRow is a session's final transcript: its messages are
// fmsgs[from:from+n]; trans is its transcript row. A message is found by
// its id through the transcript's own index (tmsgAt), or through split
// when unnamed runs were split (the ids changed).
type finalRow struct {
	trans, from, n int32
	split          map[int32]int32
}

// layFinals lays out every final transcript in fmsgs, in the order they
// were made final (sessOrder); finAt finds one by session handle (1 + its
// index in fins).
func (lg *ledger) layFinals() {
	if lg.fins != nil {
		return
	}
	lg.fins = make([]finalRow, 0, len(lg.sessOrder))
	var texts map[int32][]int32 // by session: the texts submitted there, under v1
	if lg.v1 {
		texts = lg.submittedTexts()
	}
	for _, S := range lg.sessOrder {
		ti := lg.final[S] - 1
		t := &lg.trans[ti]
		f := finalRow{trans: ti, from: int32(len(lg.fmsgs))}
		split := false
		var set map[string]bool // texts[S] as concatOf takes them, made at its first use
		for j := t.first; j != none; j = lg.tmsgs[j].next {
			m := &lg.tmsgs[j]
			row := fmsg{id: m.id, text: m.text, seq: m.seq, unnamed: m.unnamed}
			if m.unnamed && len(texts[S]) > 0 && !slices.Contains(texts[S], m.text) {
				if set == nil {
					set = lg.textSet(texts[S])
				}
				if parts := concatOf(lg.in.textName(m.text), set); parts != nil {
					split = true
					for k, p := range parts {
						n := row
						n.text = lg.in.text(p)
						n.id = lg.in.ID(lg.in.IDName(m.id) + "." + strconv.Itoa(k+1))
						lg.fmsgs = append(lg.fmsgs, n)
					}
					continue
				}
			}
			lg.fmsgs = append(lg.fmsgs, row)
		}
		f.n = int32(len(lg.fmsgs)) - f.from
		if split {
			f.split = make(map[int32]int32, f.n)
			for i := range f.n {
				f.split[lg.fmsgs[f.from+i].id] = i
			}
		}
		lg.fins = append(lg.fins, f)
		*byIndex(&lg.finAt, S) = int32(len(lg.fins))
	}
}

// submittedTexts are the texts of the submissions whose requests named
// each session, in order of first sight.
func (lg *ledger) submittedTexts() map[int32][]int32 {
	out := map[int32][]int32{}
	for _, h := range lg.subOrder {
		s := &lg.subs[h]
		for ri := s.firstReq; ri != none; ri = lg.reqs[ri].nextOfSub {
			S := lg.reqs[ri].session
			if S != noID && !slices.Contains(out[S], s.text) {
				out[S] = append(out[S], s.text)
			}
		}
	}
	return out
}

// textSet is texts as the set concatOf takes.
func (lg *ledger) textSet(texts []int32) map[string]bool {
	set := make(map[string]bool, len(texts))
	for _, t := range texts {
		set[lg.in.textName(t)] = true
	}
	return set
}

// fin is session S's final transcript, nil when none was read.
func (lg *ledger) fin(S int32) *finalRow {
	if i := valueAt(lg.finAt, S); i != 0 {
		return &lg.fins[i-1]
	}
	return nil
}

// msgsOf are the messages of f (none for nil).
func (lg *ledger) msgsOf(f *finalRow) []fmsg {
	if f == nil {
		return nil
	}
	return lg.fmsgs[f.from : f.from+f.n]
}

// at is the place in f of the message whose id has handle id.
func (lg *ledger) at(f *finalRow, id int32) (int32, bool) {
	if f == nil {
		return 0, false
	}
	if f.split != nil {
		i, ok := f.split[id]
		return i, ok
	}
	j, ok := lg.tmsgAt[transKey{f.trans, id}]
	if !ok {
		return 0, false
	}
	return lg.tmsgs[j].pos, true
}

// holds says whether session S's final transcript holds message id.
func (lg *ledger) holds(S, id int32) bool {
	_, ok := lg.at(lg.fin(S), id)
	return ok
}

// finLink and finSeq, finT: the link a final transcript was read on and
// its resume answer's delivery.
func (lg *ledger) finLink(f *finalRow) string { return lg.in.Link(lg.trans[f.trans].link) }
func (lg *ledger) finSeq(f *finalRow) int64   { return lg.trans[f.trans].seq }
func (lg *ledger) finT(f *finalRow) int64     { return lg.trans[f.trans].t }

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
