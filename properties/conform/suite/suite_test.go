package suite_test

import (
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/acpsim/acpsim/properties/conform/suite"
)

// squeeze drops all white space: the stored RFD text lost the spaces
// around its inline code, so quotes are compared without any.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

func TestEveryQuoteIsVerbatimFromTheRFDOrTheSchema(t *testing.T) {
	var sources string
	for _, p := range []string{"rfd-prompt-idempotency.txt", "schema.unstable.json"} {
		b, err := os.ReadFile("../../../actors/acp/testdata/spec/" + p)
		if err != nil {
			t.Fatal(err)
		}
		sources += squeeze(strings.ReplaceAll(string(b), `\n`, " "))
	}
	for _, c := range cases(t) {
		for _, sentence := range strings.SplitAfter(c.Quote, ". ") {
			if !strings.Contains(sources, squeeze(sentence)) {
				t.Errorf("%s (%s): %q is not in the RFD or the schema", c.ID, c.File, sentence)
			}
		}
	}
}

func TestTheSuiteHasTheRFDTracesAndTwentyCases(t *testing.T) {
	cs := cases(t)
	if len(cs) < 20 {
		t.Fatalf("%d cases, want at least 20", len(cs))
	}
	for len(cs) > 0 && cs[0].IsBaseline() {
		cs = cs[1:]
	}
	for i := 1; i <= 7; i++ {
		id := "rfd-" + string(rune('0'+i))
		if cs[i-1].ID != id {
			t.Errorf("case %d is %s, want %s (the RFD's traces come first, in its order)", i, cs[i-1].ID, id)
		}
	}
}

func TestABrokenCaseFileIsRefusedWithItsLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"id x-1\ntitle t\nsource s\nquote q\nconnect c1\nprompt c1 sesion=S as=p\n", "x.txt:6: prompt takes no argument \"sesion\""},
		{"id x-1\ntitle t\nsource s\nquote q\nfly c1\n", "x.txt:5: unknown directive \"fly\""},
		{"id x-1\ntitle t\nsource s\nquote q\nexpect same-ids a b\n", "x.txt:5: unknown rule \"same-ids\""},
		{"id x-1\ntitle t\nconnect c1\n", "a case needs id, title, source and quote"},
		{"id x-1\ntitle t\nsource s\nquote q\nprompt c1 text=\"open\n", "unterminated quoted value"},
	} {
		_, err := suite.Parse("x.txt", tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.text, err, tc.want)
		}
	}
}

func TestSelectMatchesIDsAndTitlesAndRefusesABadPattern(t *testing.T) {
	cs := cases(t)
	got, err := suite.Select(cs, "^rfd-")
	if err != nil || len(got) != 7 {
		t.Fatalf("Select(^rfd-) = %d cases, %v; want the 7 traces", len(got), err)
	}
	got, _ = suite.Select(cs, "held prompt")
	if len(got) == 0 {
		t.Fatal("Select(held prompt) matched no title")
	}
	for _, c := range got {
		if !strings.Contains(c.Title, "held prompt") {
			t.Errorf("Select(held prompt) kept %s: %s", c.ID, c.Title)
		}
	}
	if _, err := suite.Select(cs, "(["); err == nil || strings.Contains(err.Error(), "\n") {
		t.Fatalf("a bad pattern: %v, want a one-line error", err)
	}
}
