package properties

// A submission is what one user asked to insert once, however many prompt
// requests its Client sent for it: every verdict is about one of these.

type subState struct {
	id, client, text string
	submitSeq        int64
	reqs             []*reqRec
	sessions         []string
	tos              []namedCount // per Agent process reached: its prompt requests still unanswered there
	key              string
	answers          []answer
	// named are the insertions of an unkeyed submission that success
	// responses name (the first one to each request, messages no other
	// submission owns); extra are those not in the final transcript.
	named, extra []answer

	outcome, outcomeMsg string
	outcomeSeq, outT    int64
	nOutcomes           int

	msgs   []attrMsg
	byText int
	kinds  []string

	// The small fields sit together: packed, a record is smaller.
	outcomeMsgH    int32 // outcomeMsg's handle (Interner.ID)
	keyState       int8  // of the first attempt
	keyed, mixed   bool
	textFromSubmit bool
	ambiguous      bool
	// unjudged: the run stopped before s could be judged (Report.Unjudged).
	unjudged bool
	// loss is whether the lost rule applied to s and could be judged
	// (Report.Accounts).
	loss lossJudgement
	// The first request, session, process and answer of reqs, sessions,
	// tos and answers, kept in the record: most submissions have one of
	// each, and such small slices were a fifth of the checker's
	// allocations.
	reqs1     [1]*reqRec
	sessions1 [1]string
	tos1      [1]namedCount
	answers1  [1]answer
}

// namedCount counts per session or per process; a submission touches few of
// either, so a slice beats a map.
type namedCount struct {
	name string
	n    int
}

func bump(list []namedCount, name string, d int) ([]namedCount, int) {
	for i := range list {
		if list[i].name == name {
			list[i].n += d
			return list, list[i].n
		}
	}
	return append(list, namedCount{name, d}), d
}

type answer struct {
	session, id string
	resp        *respRec
}

type attrMsg struct {
	session string
	m       *tmsg
	byText  bool
}

func (s *subState) hasAnswer(session, id string) bool {
	for _, a := range s.answers {
		if a.session == session && a.id == id {
			return true
		}
	}
	return false
}

// sub is the submission of handle h, made at its first sight.
func (c *checker) sub(h int32, client string) *subState {
	if h < 0 {
		h = noName // a submit or outcome naming none
	}
	at := byIndex(&c.subAt, h)
	s := *at
	if s == nil {
		s = c.subSlab.New()
		s.reqs, s.sessions, s.tos, s.answers = s.reqs1[:0], s.sessions1[:0], s.tos1[:0], s.answers1[:0]
		s.id = c.in.Sub(h) // the interner's own copy, or borrowed as the checker is
		*at = s
		c.order = append(c.order, s)
	}
	if s.client == "" {
		s.client = c.name(client)
	}
	return s
}
