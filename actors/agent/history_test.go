package agent

import (
	"testing"

	"github.com/acpsim/acpsim/actors/agent/store"
)

// A resume keeps the process's history only when the store holds exactly
// its messages: the same length and last message are not enough when
// another process's retention dropped one before it and inserted another
// (seed 8 of the lost-writes mutant on two nodes replayed a message the
// store no longer held).
func TestSameHistoryComparesEveryMessage(t *testing.T) {
	msgs := func(ids ...string) []store.Message {
		var out []store.Message
		for _, id := range ids {
			out = append(out, store.Message{ID: id})
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		stored, held []store.Message
		same         bool
	}{
		{"both empty", nil, nil, true},
		{"unchanged", msgs("u1", "a1"), msgs("u1", "a1"), true},
		{"another process inserted", msgs("u1", "a1", "u2"), msgs("u1", "a1"), false},
		{"retention dropped the first", msgs("a1"), msgs("u1", "a1"), false},
		{"one dropped before the last, one inserted before it", msgs("u2", "a1"), msgs("u1", "a1"), false},
	} {
		if got := sameHistory(tc.stored, tc.held); got != tc.same {
			t.Errorf("%s: sameHistory = %v, want %v", tc.name, got, tc.same)
		}
	}
}
