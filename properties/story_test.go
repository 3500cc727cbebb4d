package properties

import (
	"strings"
	"testing"

	"github.com/acpsim/acpsim/actors/acp"
)

// A submission's story tells each prompt's key only when its keys differ
// and its first prompt carried a legal one: first sent without a key and
// then with one, its keys are mixed but its story tells none. No pinned or
// live trace has such a submission; this one holds the story there, and
// the other way round, for contrast.
func TestAStoryTellsKeysOnlyAfterAKeyedFirstPrompt(t *testing.T) {
	for _, c := range []struct {
		first, then any
		tells       bool
	}{{nil, K1, false}, {K1, nil, true}} {
		b := newTB("all")
		b.connect(L1)
		id := b.prompt(L1, "s1", S1, "fix the tests", c.first)
		b.fail(L1, id, acp.CodeInternalError)
		b.prompt(L1, "s1", S1, "fix the tests", c.then)
		b.observe("a1#1", sess{S1, nil})
		b.finish("quiet", L1, Obs1)
		r := b.check()
		var story string
		for _, a := range r.Anomalies {
			if a.Kind == Unresolved {
				story = a.Explanation
			}
		}
		if !strings.Contains(story, "mixed keys") || strings.Contains(story, "(no key)") != c.tells {
			t.Errorf("keys %v then %v: told %q, want mixed keys with the prompts' keys told: %t", c.first, c.then, story, c.tells)
		}
	}
}
