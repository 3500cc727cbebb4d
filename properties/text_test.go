package properties

import (
	"bytes"
	"fmt"
	"slices"
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
			row := r.Submissions[i].row(r.abbrev())
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

// Two ids of one report never look the same in its table: a prefix they
// share, even in another case, grows until they differ; the others keep
// eight characters.
func TestTableIDsDiffer(t *testing.T) {
	r := &Report{Submissions: []SubmissionResult{
		{Sub: "s1", Client: "c1", Sessions: []string{"9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001"}, Key: "f6f9e88e-1111-4e11-8c2a-7f00aa000001", Attempts: 1},
		{Sub: "s2", Client: "c1", Sessions: []string{"9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001"}, Key: "F6F9E88E-2222-4e11-8c2a-7f00aa000001", Attempts: 1},
		{Sub: "s3", Client: "c1", Sessions: []string{"9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001"}, Key: "f6f9e88e-11f2-4e11-8c2a-7f00aa000001", Attempts: 1},
	}}
	var b bytes.Buffer
	r.writeTable(&b)
	for _, want := range []string{"f6f9e88e-111…", "F6F9E88E-2…", "f6f9e88e-11f…", "9a3f0c1e… "} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the table does not show %q:\n%s", want, b.String())
		}
	}
	folded := newAbbrev(slices.Values([]string{"ÉTÉ-0123456789-a", "été-0123456789-b", "été-9999999999-c"}))
	if got := folded.short("ÉTÉ-0123456789-a"); got != "ÉTÉ-0123456789-a" {
		t.Errorf("ids equal but for case up to their last rune: %q, want it whole", got)
	}
	if got := folded.short("été-9999999999-c"); got != "été-9999…" {
		t.Errorf("%q, want the first 8 runes", got)
	}
	if ab := newAbbrev(slices.Values([]string{"abcdefgh-1", "abcdefgh-2"})); ab.short("abcdefgh-1") != "abcdefgh-1" {
		t.Errorf("an id of 12 runes or fewer is shown whole, got %q", ab.short("abcdefgh-1"))
	}
}

// A key is cut in the table to 12 characters at most, like the ids the
// table shows whole: keys that only a long prefix tells apart (a UUID
// repeated to 255 characters, the same in capitals, one a character
// shorter) no longer make the key column as wide as the longest of them.
func TestTableCutsLongKeysToTheIDWidth(t *testing.T) {
	uuid := "b99fb33b-0e8b-4d18-87f1-fe29bfd7cf96"
	long := strings.Repeat(uuid, 8)[:255]
	r := &Report{}
	for i, key := range []string{long, strings.ToUpper(long), long[:254], "0123456789ab", uuid} {
		r.Submissions = append(r.Submissions, SubmissionResult{Sub: fmt.Sprintf("s%d", i+1), Client: "c1", Sessions: []string{"9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001"}, Key: key, Attempts: 1})
	}
	var b bytes.Buffer
	r.writeTable(&b)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	at := strings.Index(lines[0], "key")
	width := strings.Index(lines[0], "attempts") - at - 2
	if width > tableKeyRunes+1 {
		t.Errorf("the key column is %d wide, want at most %d:\n%s", width, tableKeyRunes+1, b.String())
	}
	for i, want := range []string{"b99fb33b-0e8…", "B99FB33B-0E8…", "b99fb33b-0e8…", "0123456789ab", "b99fb33b-0e8…"} {
		if got := strings.TrimSpace(string([]rune(lines[i+1])[at : at+width])); got != want {
			t.Errorf("row %d: key %q, want %q", i+1, got, want)
		}
	}
}

func TestTableHasALegend(t *testing.T) {
	r := &Report{Submissions: []SubmissionResult{{Sub: "s1", Client: "c1", Attempts: 2, Delivered: 1}}}
	var b bytes.Buffer
	r.WriteText(&b)
	var legend strings.Builder
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "  ") {
			legend.WriteString(" " + l)
		}
	}
	for _, col := range tableHeader {
		if !strings.Contains(legend.String(), " "+col+":") && !strings.Contains(legend.String(), " "+col+",") {
			t.Errorf("the legend does not explain column %q:\n%s", col, b.String())
		}
	}
}

// The prose cuts ids as the table does, over every id the report shows: two
// sessions sharing their first 8 characters are told apart in both.
func TestProseAndTableCutIDsAlike(t *testing.T) {
	r := &Report{
		Submissions: []SubmissionResult{{Sub: "s1", Client: "c1", Sessions: []string{"9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001"}, Attempts: 1}},
		Anomalies:   []Anomaly{{Kind: Lost, Explanation: "session " + short("9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001") + " is not " + short("9A3F0C1E-5d7b-4e11-8c2a-7f00aa000002") + "; key " + short("0123456789abcdef")}},
	}
	r.cutIDs()
	if want := "session 9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001 is not 9A3F0C1E-5d7b-4e11-8c2a-7f00aa000002; key 01234567…"; r.Anomalies[0].Explanation != want {
		t.Errorf("explanation %q, want %q", r.Anomalies[0].Explanation, want)
	}
	var b bytes.Buffer
	r.writeTable(&b)
	if !strings.Contains(b.String(), "9a3f0c1e-5d7b-4e11-8c2a-7f00aa000001") {
		t.Errorf("the table cuts the session as if the prose did not name its twin:\n%s", b.String())
	}
	if got := short("a\x1eb-0123456789abcdef"); got != "a\x1eb-0123…" {
		t.Errorf("an id holding a mark's byte: %q, want it cut at once", got)
	}
}
