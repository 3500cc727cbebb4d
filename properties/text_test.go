package properties

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
)

// The submissions table is laid out exactly as text/tabwriter lays it out,
// whatever the cells hold: wide and multi-byte text, and the bytes tabwriter
// reads as structure (a tab, a line break, its escape), which take its path.
func TestTableMatchesTabwriter(t *testing.T) {
	for _, odd := range []string{"", "s\t1", "s\n1", "s\v1", "s\f1", "s\xff1", "sé", "s日本語"} {
		r := &Report{}
		for i := range 30 {
			s := SubmissionResult{Sub: fmt.Sprintf("s%d", i+1), Client: "c1", Text: strings.Repeat("é", i), Sessions: []string{"9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001"},
				Attempts: i % 3, Delivered: i % 2, Outcome: "inserted", MessageID: "M" + fmt.Sprint(i), Transcript: make([]string, i%4)}
			if i == 17 && odd != "" {
				s.Sub = odd
			}
			if i%5 == 0 {
				s.Anomalies = []string{Duplicate, WrongID}
			}
			r.Submissions = append(r.Submissions, s)
		}
		var got, want bytes.Buffer
		r.writeTable(&got)
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(tableHeader[:], "\t"))
		for i := range r.Submissions {
			row := r.Submissions[i].row()
			fmt.Fprintln(tw, strings.Join(row[:], "\t"))
		}
		tw.Flush()
		if got.String() != want.String() {
			t.Errorf("with sub %q:\n%s\nwant (tabwriter):\n%s", odd, got.String(), want.String())
		}
	}
	var got bytes.Buffer
	(&Report{}).writeTable(&got)
	if want := "sub  client  session  text  key  attempts  outcome  transcript  anomalies\n"; got.String() != want {
		t.Errorf("empty report: %q, want %q", got.String(), want)
	}
}
