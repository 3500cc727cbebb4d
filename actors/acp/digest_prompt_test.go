package acp

import (
	"testing"
	"unsafe"

	json "github.com/goccy/go-json"
)

// A prompt's digest gives the params its bytes decode to, with the
// sender's own strings, or gives none and leaves the bytes to be read.
func TestDigestPromptParamsAreTheBytesParams(t *testing.T) {
	text := "fix the build"
	for _, c := range []struct {
		name   string
		id     ID
		params PromptParams
		gives  bool
	}{
		{"one block, no key", "1", PromptParams{SessionID: "s1", Prompt: []ContentBlock{Text(text)}}, true},
		{"two blocks, a key", "2", PromptParams{SessionID: "s1", Prompt: []ContentBlock{Text(text), Text("and test")}, IdempotencyKey: KeyJSON("k-1"), KeyText: "k-1"}, true},
		{"a key said null", "3", PromptParams{SessionID: "s1", Prompt: []ContentBlock{Text(text)}, IdempotencyKey: json.RawMessage("null")}, true},
		{"a key beyond ASCII", "4", PromptParams{SessionID: "s1", Prompt: []ContentBlock{Text(text)}, IdempotencyKey: KeyJSON("é-1"), KeyText: "é-1"}, true},
		{"an empty prompt", "5", PromptParams{SessionID: "s1", Prompt: []ContentBlock{}}, false},
		{"a text with a quote", "6", PromptParams{SessionID: "s1", Prompt: []ContentBlock{Text(`say "hi"`)}}, false},
		{"a notification", "", PromptParams{SessionID: "s1", Prompt: []ContentBlock{Text(text)}}, false},
		// A key the encoder writes otherwise than given: no digest names it.
		{"a key with HTML characters", "7", PromptParams{SessionID: "s1", Prompt: []ContentBlock{Text(text)}, IdempotencyKey: json.RawMessage(`"a<b&c"`)}, false},
		{"an escaped key", "8", PromptParams{SessionID: "s1", Prompt: []ContentBlock{Text(text)}, IdempotencyKey: json.RawMessage(`"\u0041"`)}, false},
	} {
		frame, d := RequestDigest(c.id, MethodSessionPrompt, c.params)
		if !d.Describes(unsafe.String(unsafe.SliceData(frame), len(frame))) {
			if c.gives {
				t.Fatalf("%s: no digest for %s", c.name, frame)
			}
			continue
		}
		var got PromptParams
		if ok := d.PromptParams(&got); ok != c.gives {
			t.Fatalf("%s: PromptParams gave %v, want %v", c.name, ok, c.gives)
		}
		if !c.gives {
			continue
		}
		m, ok := d.Message(frame)
		if !ok {
			t.Fatalf("%s: no message from the digest of %s", c.name, frame)
		}
		var want PromptParams
		if err := DecodePromptParams(m.Params, &want); err != nil {
			t.Fatalf("%s: decoding %s: %v", c.name, m.Params, err)
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		if string(gj) != string(wj) || string(got.IdempotencyKey) != string(want.IdempotencyKey) || got.SessionID != want.SessionID || PromptText(got.Prompt) != PromptText(want.Prompt) {
			t.Fatalf("%s: digest gives %s, bytes %s", c.name, gj, wj)
		}
		if unsafe.StringData(got.Prompt[0].Text) != unsafe.StringData(c.params.Prompt[0].Text) {
			t.Fatalf("%s: the text is a copy, not the sender's string", c.name)
		}
		var again PromptParams
		again.SessionID = "x"
		if d.PromptParams(&again) {
			t.Fatalf("%s: PromptParams read into params that were not zero", c.name)
		}
	}
}

// An update's digest names the string its maker gave only where that
// string is the content's one text block; otherwise the text the bytes
// hold (several blocks: their texts joined).
func TestUpdateDigestNamesTheMakersTextOnlyWhereItIsTheContents(t *testing.T) {
	text := "fix the build"
	one := []byte(`[{"type":"text","text":"fix the build"}]`)
	two := []byte(`[{"type":"text","text":"fix the build"},{"type":"text","text":" now"}]`)
	for _, c := range []struct {
		name   string
		u      Update
		want   string
		makers bool
	}{
		{"the content's text", ContentUpdate(UpdateUserMessage, "m1", one, text), text, true},
		{"another text", ContentUpdate(UpdateUserMessage, "m1", one, "something else"), text, false},
		{"several blocks", ContentUpdate(UpdateUserMessage, "m1", two, text), "fix the build now", false},
		{"a message update", MessageUpdate(UpdateUserMessage, "m1", text), text, true},
		{"a chunk", ChunkUpdate(UpdateUserMessageChunk, "m1", text), text, true},
	} {
		_, d := UpdateFrameDigest("s1", c.u)
		if d.Text() != c.want {
			t.Fatalf("%s: the digest names %q, want %q", c.name, d.Text(), c.want)
		}
		if got := unsafe.StringData(d.Text()) == unsafe.StringData(text); got != c.makers {
			t.Fatalf("%s: the digest names the maker's string: %v, want %v", c.name, got, c.makers)
		}
	}
}
