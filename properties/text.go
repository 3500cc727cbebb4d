package properties

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// WriteText writes the report for people: one table row per submission, each
// anomaly with its explanation, and a line of stats. The output depends only
// on the report, in its order, so equal reports print equal text.
func (r *Report) WriteText(w io.Writer) {
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	w = bw
	if r.V1 != "" {
		fmt.Fprintln(w, r.V1)
		fmt.Fprintln(w)
	}
	r.writeTable(w)
	if len(r.Submissions) > 0 {
		for _, l := range tableLegend {
			fmt.Fprintln(w, "  "+l)
		}
	}
	fmt.Fprintln(w)
	if len(r.Anomalies) == 0 {
		fmt.Fprintln(w, "no anomalies")
	} else {
		fmt.Fprintf(w, "%d anomalies:\n", len(r.Anomalies))
		for _, a := range r.Anomalies {
			fmt.Fprintf(w, "- %s: %s\n  events %s\n", a.Kind, a.Explanation, seqList(a.Events))
		}
	}
	if r.NothingJudged != "" {
		fmt.Fprintf(w, "nothing judged, inconclusive: %s\n", r.NothingJudged)
	}
	if len(r.Unjudged) > 0 {
		fmt.Fprintf(w, "%s not judged, inconclusive (no verdict without its outcome and transcript):\n", plural(len(r.Unjudged), "submission"))
		for _, u := range r.Unjudged {
			fmt.Fprintf(w, "- inconclusive: %s\n  events %s\n", u.Why, seqList(u.Events))
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
	r.writeAccounts(w)
	if len(r.NotJudged) > 0 {
		fmt.Fprintf(w, "not judged on a tap's trace (they need the user's outcomes and the final transcript, which a tap does not see): %s\n", strings.Join(r.NotJudged, ", "))
	}
}

// writeAccounts prints, when some property could not be judged for every
// submission it applies to, the account of each: a report that judged
// everything says nothing more (its PASS line names what it judged).
func (r *Report) writeAccounts(w io.Writer) {
	if r.NothingJudged != "" || len(r.NotJudged) > 0 {
		return // said already, in one line
	}
	complete := true
	for _, a := range r.Accounts {
		complete = complete && a.Complete()
	}
	if complete {
		return
	}
	fmt.Fprintln(w, "judged:")
	for _, a := range r.Accounts {
		fmt.Fprintf(w, "  %s\n", a.Line())
	}
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

// tableHeader is the first row of the submissions table.
var tableHeader = [tableColumns]string{"sub", "client", "session", "text", "key", "attempts", "outcome", "transcript", "anomalies"}

const tableColumns = 9

// row is the table's row for a submission, one cell per column.
func (s *SubmissionResult) row(ab abbrev) [tableColumns]string {
	session := "-"
	if len(s.Sessions) > 0 {
		session = ab.short(s.Sessions[0])
		if len(s.Sessions) > 1 {
			session += fmt.Sprintf("+%d", len(s.Sessions)-1)
		}
	}
	key := "-"
	switch {
	case s.Mixed:
		key = "mixed"
	case s.Key != "":
		key = tableKey(ab, s.Key)
	}
	outcome := s.Outcome
	switch {
	case outcome == "":
		outcome = "-"
	case s.MessageID != "":
		outcome += " " + ab.short(s.MessageID)
	}
	attempts := strconv.Itoa(s.Attempts)
	if s.Delivered != s.Attempts {
		attempts += fmt.Sprintf(" (%d delivered)", s.Delivered)
	}
	count := strconv.Itoa(len(s.Transcript))
	if s.ByText > 0 {
		count += fmt.Sprintf(" (%d by text)", s.ByText)
	}
	kinds := s.Anomalies
	if s.Inconclusive {
		kinds = append(slices.Clip(kinds), "inconclusive")
	}
	anomalies := "-"
	if len(kinds) > 0 {
		anomalies = strings.Join(kinds, ",")
	}
	return [tableColumns]string{s.Sub, s.Client, session, strconv.Quote(clip(s.Text, 24)), key, attempts, outcome, count, anomalies}
}

// tableKeyRunes is the most of a key the table shows, the length up to
// which an id is shown whole: a key may be 255 characters, and keys that
// differ only in case or only near their end (a UUID repeated to 255, in
// either case) need all of them to be told apart, which made the column as
// wide as the longest key.
const tableKeyRunes = 12

// tableKey is a key as the table shows it: cut as the report cuts ids, and
// never to more than tableKeyRunes characters. Two keys may then look alike
// in the table; the anomalies below name them at the length that tells them
// apart.
func tableKey(ab abbrev, key string) string {
	s := ab.short(key)
	if r := []rune(s); len(r) > tableKeyRunes+1 || len(r) > tableKeyRunes && r[len(r)-1] != '…' {
		return string(r[:tableKeyRunes]) + "…"
	}
	return s
}

// abbrev shortens the ids the table shows so that no two of the report's
// look the same: as the report's prose cut them, or over the table alone
// when the prose names no id (cutIDs leaves that cut to here) and for a
// report the checker did not finish (built by hand, read from JSON).
func (r *Report) abbrev() abbrev {
	if r.ab != nil {
		return *r.ab
	}
	return newAbbrev(r.tableIDs)
}

// tableLegend explains the submissions table's columns, under it.
var tableLegend = []string{
	"sub, client, text: a user's submission, the Client it was typed into and its text; session: where it went (+N: and N more)",
	"key: its idempotencyKey (-: none; mixed: its attempts differ); attempts: prompt requests sent (delivered: those that reached an Agent)",
	"outcome: what the Client told the user, with the messageId; transcript: its copies in the final transcripts (by text: no response named it)",
	"anomalies: explained below; ids are cut to the shortest prefix, 8 characters or more, that tells this report's ids apart (keys in this table to 12 at most)",
}

// writeTable writes the submissions table as text/tabwriter aligns it
// (padding 2, spaces), in two passes over the rows instead of buffering
// them all: a million rows would hold the table in memory. A row with a
// byte tabwriter gives a meaning (a tab, a line or page break, its escape
// 0xff) goes through tabwriter itself, which is the reference.
func (r *Report) writeTable(w io.Writer) {
	ab := r.abbrev()
	var width [tableColumns]int
	measure := func(cells *[tableColumns]string) bool {
		for j, c := range cells {
			if strings.ContainsAny(c, "\t\n\v\f") || strings.IndexByte(c, 0xff) >= 0 {
				return false
			}
			width[j] = max(width[j], utf8.RuneCountInString(c))
		}
		return true
	}
	plain := measure(&tableHeader)
	for i := range r.Submissions {
		if !plain {
			break
		}
		row := r.Submissions[i].row(ab)
		plain = measure(&row)
	}
	if !plain {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(tableHeader[:], "\t"))
		for i := range r.Submissions {
			row := r.Submissions[i].row(ab)
			fmt.Fprintln(tw, strings.Join(row[:], "\t"))
		}
		_ = tw.Flush()
		return
	}
	spaces := strings.Repeat(" ", slices.Max(width[:tableColumns-1])+2)
	line := func(cells *[tableColumns]string) {
		for j, c := range cells[:tableColumns-1] {
			io.WriteString(w, c)
			io.WriteString(w, spaces[:width[j]+2-utf8.RuneCountInString(c)])
		}
		io.WriteString(w, cells[tableColumns-1])
		io.WriteString(w, "\n")
	}
	line(&tableHeader)
	for i := range r.Submissions {
		row := r.Submissions[i].row(ab)
		line(&row)
	}
}
