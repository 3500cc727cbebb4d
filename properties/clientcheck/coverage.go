package clientcheck

// Coverage is what a seed could judge, per group of properties, counted in
// submissions: a verdict accounts for what it judged, and a PASS names
// only that.
type Coverage struct {
	// Subs counts the submissions the user made.
	Subs int
	// Outcomes counts the submissions whose outcome properties
	// (duplicate, lost, phantom, unresolved, wrong-id) were judged: those
	// the Client sent as session/prompt at least once. A submission never
	// sent cannot be inserted, so what it was told proves nothing.
	Outcomes int
	// Resent counts the submissions sent more than once: the only ones on
	// which the key discipline of a resend (key-changed, unkeyed-resend,
	// resend-before-resume) is judged.
	Resent int
}

// Cover counts what a history lets the judge judge. Submissions are told
// apart by text, as the judge does: a text submitted n times and sent a
// times was sent for min(n, a) of them, and resent for min(n, a-n).
func Cover(h History) Coverage {
	attempts, _ := readFrames(h.Frames)
	sent := map[string]int{}
	for _, a := range attempts {
		sent[a.text]++
	}
	perText := map[string]int{}
	for _, s := range h.Subs {
		perText[s.Text]++
	}
	c := Coverage{Subs: len(h.Subs)}
	for text, n := range perText {
		a := sent[text]
		c.Outcomes += min(n, a)
		c.Resent += max(0, min(n, a-n))
	}
	return c
}

// Add sums two seeds' coverage: a run's.
func (c Coverage) Add(d Coverage) Coverage {
	return Coverage{Subs: c.Subs + d.Subs, Outcomes: c.Outcomes + d.Outcomes, Resent: c.Resent + d.Resent}
}
