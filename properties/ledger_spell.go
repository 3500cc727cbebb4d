package properties

import (
	"fmt"
	"slices"
	"strings"
)

// The tables themselves, spelled out alike from the present checker's
// records after its pass (before Finish, whose rules change some) and from
// the ledger's rows: every request of every link by id, with its
// responses; the messages the Agent named; the final transcripts.

func (c *checker) spellTables() []string {
	var out []string
	for _, l := range c.linkOrder {
		out = append(out, fmt.Sprintf("link %s: client=%s agent=%s observer=%t ended=%t note=%s end=%d/%d nullErrs=%d",
			l.name, l.client, l.agent, l.observer, l.ended, l.note, l.endSeq, l.endT, l.nullErrs))
		var lists []string
		for list := range l.allReqs() {
			var b strings.Builder
			list.each(func(r *reqRec) bool {
				b.WriteString(spellReq(r.id, r.method, r.session, r.attempt, r.keyState, r.key, r.keyRaw, r.delivered, r.delSeq, r.to, r.lost, r.lostSeq, r.sendSeq, [2]int64{r.sendT, r.delT}, c.spellCancel(r)))
				for _, rp := range r.resps {
					b.WriteString(spellResp(rp.seq, rp.ok, rp.code, rp.msgID, rp.delivered, rp.delSeq, rp.lost, rp.lostSeq, rp.binding, rp.firstSeen, [2]int64{rp.t, rp.firstT}))
				}
				return false
			})
			lists = append(lists, b.String())
		}
		slices.Sort(lists)
		for _, s := range lists {
			out = append(out, "  "+s)
		}
	}
	for _, s := range c.order {
		out = append(out, fmt.Sprintf("sub %s: submitted at %d, told at %d/%d, %d outcomes", s.id, s.submitSeq, s.outcomeSeq, s.outT, s.nOutcomes))
		for _, r := range s.reqs {
			out = append(out, "sub "+s.id+": "+spellReq(r.id, r.method, r.session, r.attempt, r.keyState, r.key, r.keyRaw, r.delivered, r.delSeq, r.to, r.lost, r.lostSeq, r.sendSeq, [2]int64{r.sendT, r.delT}, c.spellCancel(r)))
		}
	}
	for _, m := range c.msgs {
		owner := int64(0)
		if m.owner != nil {
			owner = m.owner.seq
		}
		out = append(out, fmt.Sprintf("msg in %s: first=%d/%d user=%d bound=%t owner=%d", c.in.IDName(m.session), m.first, m.firstT, m.firstUser, m.bound, owner))
	}
	for _, rp := range c.stray {
		out = append(out, fmt.Sprintf("stray %s on %s at %d", rp.id, rp.link.name, rp.seq))
	}
	for _, x := range c.live {
		out = append(out, fmt.Sprintf("live %s in %s %q on %s at %d/%d", x.id, x.session, x.text, x.link.name, x.seq, x.t))
	}
	for _, r := range c.forks {
		out = append(out, fmt.Sprintf("fork sent at %d", r.sendSeq))
	}
	for _, S := range c.sessOrder {
		for _, n := range c.named[S] {
			out = append(out, fmt.Sprintf("named %s in %s at %d live-only=%t", n.id, S, n.seq, n.liveOnly))
		}
	}
	for _, rp := range c.shared {
		out = append(out, fmt.Sprintf("shared answer at %d", rp.seq))
	}
	var forks []string
	for child, parent := range c.forkOf {
		forks = append(forks, fmt.Sprintf("fork %s of %s", child, parent))
	}
	slices.Sort(forks)
	out = append(out, forks...)
	for _, sr := range c.strays {
		mis := int64(0)
		if sr.misdirected != nil {
			mis = sr.misdirected.delSeq
		}
		out = append(out, fmt.Sprintf("stray cancel at %d: misdirected=%d withdrawn=%d", sr.rp.seq, mis, sr.withdrawnAt))
	}
	for _, rp := range c.cancelled {
		out = append(out, fmt.Sprintf("cancelled, answered at %d", rp.seq))
	}
	var keys []string
	for k, seq := range c.withdrawnKeys {
		keys = append(keys, fmt.Sprintf("withdrawn key %s in %s at %d", k.key, k.session, seq))
	}
	for session, seq := range c.sessCancel {
		keys = append(keys, fmt.Sprintf("session %s cancelled at %d", session, seq))
	}
	for _, l := range c.linkOrder {
		for _, x := range l.sess {
			if x.resumes != 0 { // where a row is made differs; what it holds must not
				keys = append(keys, fmt.Sprintf("%s shows %s: resumes=%d", l.name, x.session, x.resumes))
			}
		}
	}
	slices.Sort(keys)
	out = append(out, keys...)
	for _, S := range c.sessOrder {
		t := c.final[S]
		var b strings.Builder
		fmt.Fprintf(&b, "transcript %s on %s at %d/%d:", S, t.link, t.seq, t.t)
		for _, m := range t.msgs {
			fmt.Fprintf(&b, " [%s %q %d %t]", m.id, m.text, m.seq, m.unnamed)
		}
		out = append(out, b.String())
	}
	out = append(out, c.spellLeaks()...)
	out = append(out, c.spellSetups()...)
	return append(out, c.spellSessions()...)
}

func (lg *ledger) spellTables() []string {
	in := lg.in
	var out []string
	for _, h := range lg.linkOrder {
		l := &lg.links[h]
		out = append(out, fmt.Sprintf("link %s: client=%s agent=%s observer=%t ended=%t note=%s end=%d/%d nullErrs=%d",
			in.Link(h), in.wordName(l.client), in.wordName(l.agent), l.observer, l.ended, in.wordName(l.note), l.endSeq, l.endT, l.nullErrs))
		var heads []int32
		for _, list := range l.byNum {
			if list.first != 0 {
				heads = append(heads, list.first-1)
			}
		}
		for _, list := range l.byID {
			heads = append(heads, list.first-1)
		}
		var lists []string
		for _, i := range heads {
			var b strings.Builder
			for ; i != none; i = lg.reqs[i].nextSameID {
				b.WriteString(lg.spellReq(i))
				lg.eachResp(i, func(rp *respRow) {
					b.WriteString(spellResp(rp.seq, rp.ok, int(rp.code), in.IDName(rp.msg), rp.delivered, rp.delSeq, lg.lostText(rp.lost, rp.lostNote), rp.lostSeq, rp.binding, rp.firstSeen, [2]int64{rp.t, rp.firstT}))
				})
			}
			lists = append(lists, b.String())
		}
		slices.Sort(lists)
		for _, s := range lists {
			out = append(out, "  "+s)
		}
	}
	for _, h := range lg.subOrder {
		x := &lg.subs[h]
		out = append(out, fmt.Sprintf("sub %s: submitted at %d, told at %d/%d, %d outcomes", in.Sub(h), x.submitSeq, x.outcomeSeq, x.outT, x.nOutcomes))
		for i := lg.subs[h].firstReq; i != none; i = lg.reqs[i].nextOfSub {
			out = append(out, "sub "+in.Sub(h)+": "+lg.spellReq(i))
		}
	}
	for _, m := range lg.msgs {
		owner := int64(0)
		if m.owned {
			owner = lg.resp(m.owner).seq
		}
		out = append(out, fmt.Sprintf("msg in %s: first=%d/%d user=%d bound=%t owner=%d", in.IDName(m.session), m.first, m.firstT, m.firstUser, m.bound, owner))
	}
	for _, ref := range lg.strays {
		rp := lg.resp(ref)
		out = append(out, fmt.Sprintf("stray %s on %s at %d", in.rpcIDName(rp.id), in.Link(rp.link), rp.seq))
	}
	for _, x := range lg.live {
		out = append(out, fmt.Sprintf("live %s in %s %q on %s at %d/%d", in.IDName(x.id), in.IDName(x.session), in.textName(x.text), in.Link(x.link), x.seq, x.t))
	}
	for _, i := range lg.forks {
		out = append(out, fmt.Sprintf("fork sent at %d", lg.reqs[i].sendSeq))
	}
	for _, S := range lg.sessOrder {
		for _, n := range lg.named {
			if n.session == S {
				out = append(out, fmt.Sprintf("named %s in %s at %d live-only=%t", in.IDName(n.id), in.IDName(S), n.seq, n.liveOnly))
			}
		}
	}
	for _, ref := range lg.shared {
		out = append(out, fmt.Sprintf("shared answer at %d", lg.resp(ref).seq))
	}
	var forks []string
	for child, parent := range lg.forkOf {
		forks = append(forks, fmt.Sprintf("fork %s of %s", in.IDName(child), in.IDName(parent)))
	}
	slices.Sort(forks)
	out = append(out, forks...)
	for _, sr := range lg.strayCancels {
		mis := int64(0)
		if sr.misdirected != 0 {
			mis = lg.cancels[sr.misdirected-1].delSeq
		}
		out = append(out, fmt.Sprintf("stray cancel at %d: misdirected=%d withdrawn=%d", lg.resp(sr.resp).seq, mis, sr.withdrawnAt))
	}
	for _, ref := range lg.cancelled {
		out = append(out, fmt.Sprintf("cancelled, answered at %d", lg.resp(ref).seq))
	}
	var keys []string
	for k, seq := range lg.withdrawnKeys {
		keys = append(keys, fmt.Sprintf("withdrawn key %s in %s at %d", in.IDName(k.id), in.IDName(k.session), seq))
	}
	for session, seq := range lg.sessCancel {
		if seq != 0 {
			keys = append(keys, fmt.Sprintf("session %s cancelled at %d", in.IDName(int32(session)), seq))
		}
	}
	for _, x := range lg.lss {
		if x.resumes != 0 {
			keys = append(keys, fmt.Sprintf("%s shows %s: resumes=%d", in.Link(x.link), in.IDName(x.session), x.resumes))
		}
	}
	slices.Sort(keys)
	out = append(out, keys...)
	for _, S := range lg.sessOrder {
		t := &lg.trans[lg.final[S]-1]
		var b strings.Builder
		fmt.Fprintf(&b, "transcript %s on %s at %d/%d:", in.IDName(S), in.Link(t.link), t.seq, t.t)
		for j := t.first; j != none; j = lg.tmsgs[j].next {
			m := &lg.tmsgs[j]
			fmt.Fprintf(&b, " [%s %q %d %t]", in.IDName(m.id), in.textName(m.text), m.seq, m.unnamed)
		}
		out = append(out, b.String())
	}
	out = append(out, lg.spellLeaks()...)
	out = append(out, lg.spellSetups()...)
	return append(out, lg.spellSessions()...)
}

func (lg *ledger) spellReq(i int32) string {
	in, r := lg.in, &lg.reqs[i]
	return spellReq(in.rpcIDName(r.id), in.wordName(r.method), in.IDName(r.session), r.attempt, r.keyState, in.IDName(r.key), in.textName(r.keyRaw), r.delivered, r.delSeq, in.wordName(r.to), lg.lostText(r.lost, r.lostNote), r.lostSeq, r.sendSeq, [2]int64{r.sendT, r.delT}, lg.spellCancel(r))
}

func spellReq(id any, method, session string, attempt int32, keyState int8, key, keyRaw string, delivered bool, delSeq int64, to string, lost string, lostSeq, sendSeq int64, times [2]int64, cancel string) string {
	return fmt.Sprintf("[%s %s %s #%d key=%d/%q/%s sent=%d delivered=%t@%d to=%s lost=%q@%d times=%v cancel=%s]", id, method, session, attempt, keyState, key, keyRaw, sendSeq, delivered, delSeq, to, lost, lostSeq, times, cancel)
}

// spellCancel spells a cancel that caught a request, and whether a
// $/cancel_request named it.
func spellCancel(how uint8, delSeq, delT int64, named int64, asked bool) string {
	return fmt.Sprintf("%d@%d/%d named=%d asked=%t", how, delSeq, delT, named, asked)
}

func (c *checker) spellCancel(r *reqRec) string {
	cr := r.cancel
	if cr == nil {
		return spellCancel(0, 0, 0, 0, r.cancelAsked)
	}
	named := int64(0)
	if cr.named != nil {
		named = cr.named.delSeq
	}
	return spellCancel(uint8(cr.how), cr.delSeq, cr.delT, named, r.cancelAsked)
}

func (lg *ledger) spellCancel(r *reqRow) string {
	if r.cancel == 0 {
		return spellCancel(0, 0, 0, 0, r.cancelAsked)
	}
	cr := &lg.cancels[r.cancel-1]
	named := int64(0)
	if cr.named != none {
		named = lg.reqs[cr.named].delSeq
	}
	return spellCancel(cr.how, cr.delSeq, cr.delT, named, r.cancelAsked)
}

func spellResp(seq int64, ok bool, code int, msg string, delivered bool, delSeq int64, lost string, lostSeq int64, binding bool, firstSeen int64, times [2]int64) string {
	return fmt.Sprintf("(%d ok=%t code=%d msg=%s delivered=%t@%d lost=%q@%d binding=%t/%d times=%v)", seq, ok, code, msg, delivered, delSeq, lost, lostSeq, binding, firstSeen, times)
}

// diffLines says where two spellings differ: the first few lines that do.
func diffLines(got, want []string) string {
	var out []string
	for i := 0; i < max(len(got), len(want)) && len(out) < 6; i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			out = append(out, fmt.Sprintf("line %d: ledger  %s\n         checker %s", i+1, g, w))
		}
	}
	return strings.Join(out, "\n")
}
