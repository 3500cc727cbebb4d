package shell_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/acpsim/acpsim/traces/shell"
)

func TestSplitReadsWhatJoinWrites(t *testing.T) {
	for _, argv := range [][]string{
		{"acpsim", "run", "--seed", "3"},
		{"acpsim", "check", "--", "sh", "-c", "echo hello; sleep 5"},
		{"it's", "", "a b", `back\slash`},
	} {
		got, err := shell.Split(shell.Join(argv))
		if err != nil || !slices.Equal(got, argv) {
			t.Errorf("Split(Join(%q)) = %q, %v", argv, got, err)
		}
	}
	if _, err := shell.Split("acpsim run --skip='s1"); err == nil {
		t.Error("an unterminated quote must be an error")
	}
}

func ExampleQuote() {
	fmt.Println(shell.Quote("--skip=s1,s2"), shell.Quote("echo hello; sleep 5"))
	// Output: --skip=s1,s2 'echo hello; sleep 5'
}
