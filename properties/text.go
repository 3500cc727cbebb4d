package properties

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report for people: one table row per submission, each
// anomaly with its explanation, and a line of stats. The output depends only
// on the report, in its order, so equal reports print equal text.
func (r *Report) WriteText(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "sub\tclient\tsession\ttext\tkey\tattempts\toutcome\ttranscript\tanomalies")
	for i := range r.Submissions {
		s := &r.Submissions[i]
		session := "-"
		if len(s.Sessions) > 0 {
			session = short(s.Sessions[0])
			if len(s.Sessions) > 1 {
				session += fmt.Sprintf("+%d", len(s.Sessions)-1)
			}
		}
		key := "-"
		switch {
		case s.Mixed:
			key = "mixed"
		case s.Key != "":
			key = short(s.Key)
		}
		outcome := s.Outcome
		switch {
		case outcome == "":
			outcome = "-"
		case s.MessageID != "":
			outcome += " " + short(s.MessageID)
		}
		attempts := strconv.Itoa(s.Attempts)
		if s.Delivered != s.Attempts {
			attempts += fmt.Sprintf(" (%d delivered)", s.Delivered)
		}
		count := strconv.Itoa(len(s.Transcript))
		if s.ByText > 0 {
			count += fmt.Sprintf(" (%d by text)", s.ByText)
		}
		anomalies := "-"
		if len(s.Anomalies) > 0 {
			anomalies = strings.Join(s.Anomalies, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Sub, s.Client, session,
			strconv.Quote(clip(s.Text, 24)), key, attempts, outcome, count, anomalies)
	}
	_ = tw.Flush()

	fmt.Fprintln(w)
	if len(r.Anomalies) == 0 {
		fmt.Fprintln(w, "no anomalies")
	} else {
		fmt.Fprintf(w, "%d anomalies:\n", len(r.Anomalies))
		for _, a := range r.Anomalies {
			fmt.Fprintf(w, "- %s: %s\n  events %s\n", a.Kind, a.Explanation, seqList(a.Events))
		}
	}
	st := r.Stats
	end := r.End
	if end == "" {
		end = "none"
	}
	if r.Inconclusive {
		end += ", INCONCLUSIVE"
	}
	fmt.Fprintf(w, "stats: %d submissions, %d prompt requests, %d frames; responses lost after insertion %d, retries from binding %d, retries while pending %d, retries after restart %d, keys forgotten by contract %d; end %s\n",
		st.Submissions, st.Prompts, st.Frames, st.RespLostAfterInsert, st.RetriesFromBinding, st.RetriesWhilePending, st.RetriesAfterRestart, st.ExpectedForgotten, end)
	fmt.Fprintf(w, "session contract: %s\n", r.Sessions.Line())
}

// Line is the report's contract line: the contract chosen and why, e.g.
// "auto → process: 0 of 9 sessions survived 4 restarts: sessions live with
// their process".
func (sc SessionContract) Line() string {
	if sc.Requested == sc.Chosen {
		return sc.Chosen + ": " + sc.Why
	}
	return sc.Requested + " → " + sc.Chosen + ": " + sc.Why
}

func seqList(seqs []int64) string {
	parts := make([]string, len(seqs))
	for i, q := range seqs {
		parts[i] = strconv.FormatInt(q, 10)
	}
	return strings.Join(parts, ", ")
}
