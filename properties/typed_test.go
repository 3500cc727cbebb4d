package properties

import (
	"testing"
	"unsafe"

	"pgregory.net/rapid"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/traces"
)

// genText draws strings rich in what JSON escapes or a reader may trip on.
func genText() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"", "fix the tests", "<b>&amp;</b>", `say "hi"`, `C:\path`, "line\nbreak", "\u2028\u2029", "é😀", "\xff\xfe", "protocolVersion", "idempotencyKey"}),
		rapid.String(),
		rapid.StringOf(rapid.SampledFrom([]rune{'"', '\\', '<', '>', '&', '\n', 0, 0x1f, 0x7f, 0x2028, 'a', 'é', '😀', 0xfffd})),
	)
}

// Every frame an encoder gives a digest for reads through the digest as it
// reads from its bytes, whatever the strings in it; a digest it gives none
// for is fine (the bytes are read), one that reads otherwise is not.
func TestDigestsOfEveryEncoderReadAsTheBytes(t *testing.T) {
	runs, digested := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		text, sid, mid := genText().Draw(t, "text"), genText().Draw(t, "session"), genText().Draw(t, "messageId")
		id := rapid.SampledFrom([]acp.ID{"1", "0", "9007199254740991", `"req-7"`, `"a<b"`, ""}).Draw(t, "id")
		// Keys the encoder writes otherwise than given (HTML characters,
		// U+2028, an escape, invalid UTF-8) must get no digest that names
		// them as given: a prompt's digest holds its key only as the
		// frame holds it.
		key := rapid.SampledFrom([]string{"", "null", `"k-1"`, `"0b1c2d3e-aaaa-4bbb-8ccc-123456789abc"`, `""`, `"é"`, "7",
			`"a<b&c"`, "\"\u2028\"", `"\u0041"`, "\"\xff\"", `"tab\there"`}).Draw(t, "key")
		var frame []byte
		var d acp.Digest
		switch rapid.IntRange(0, 11).Draw(t, "encoder") {
		case 0:
			frame, d = acp.UpdateFrameDigest(sid, acp.MessageUpdate(acp.UpdateUserMessage, mid, text))
		case 1:
			frame, d = acp.UpdateFrameDigest(sid, acp.ChunkUpdate(acp.UpdateAgentMessageChunk, mid, text))
		case 2:
			frame, d = acp.UpdateFrameDigest(sid, acp.StateUpdate(text, mid))
		case 3:
			frame, d = acp.ResultDigest(id, acp.PromptResult{MessageID: mid})
		case 4:
			frame, d = acp.ResultDigest(id, acp.NewSessionResult{SessionID: sid})
		case 5:
			frame, d = acp.ErrorDigest(id, acp.Errorf(acp.CodeRequestCancelled, "%s", text))
		case 6:
			p := acp.PromptParams{SessionID: sid, Prompt: []acp.ContentBlock{acp.Text(text), acp.Text(mid)}}
			if key != "" {
				p.IdempotencyKey = []byte(key)
			}
			frame, d = acp.RequestDigest(id, acp.MethodSessionPrompt, p)
		case 7:
			frame, d = acp.RequestDigest(id, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: sid, Cwd: text, ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}})
		case 8:
			frame, d = acp.RequestDigest(id, acp.MethodSessionNew, acp.NewSessionParams{Cwd: text, AdditionalDirectories: []string{mid, sid}, IdempotencyKey: mid})
		case 9:
			frame, d = acp.RequestDigest(id, acp.MethodSessionClose, acp.SessionParams{SessionID: sid})
		case 10:
			frame, d = acp.UpdateFrameDigest(sid, acp.BlocksUpdate(acp.UpdateUserMessage, mid, []acp.ContentBlock{acp.Text(text), acp.Text(sid)}))
		case 11:
			frame, d = acp.ResultDigest(id, nil)
		}
		runs++
		e := traces.Event{Kind: traces.KindSend, Frame: string(frame), Digest: &d}
		if d.Describes(e.Frame) {
			t.Fatalf("a digest describes a copy of its frame's bytes")
		}
		e.Frame = unsafeString(frame)
		if d.Describes(e.Frame) {
			digested++
		}
		if diff := DigestDiff(&e); diff != "" {
			t.Fatalf("%s: %s", frame, diff)
		}
	})
	if digested*4 < runs {
		t.Fatalf("only %d of %d frames got a digest: the test says little", digested, runs)
	}
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// An encoder given an id or a method its bytes would not read back as
// given makes no digest: the bytes are read.
func TestNoDigestForWhatTheBytesReadOtherwise(t *testing.T) {
	for _, c := range []struct {
		name string
		enc  func() ([]byte, acp.Digest)
	}{
		{"id 01", func() ([]byte, acp.Digest) { return acp.ResultDigest("01", struct{}{}) }},
		{"id space", func() ([]byte, acp.Digest) { return acp.ResultDigest(" 1", struct{}{}) }},
		{"no method", func() ([]byte, acp.Digest) { return acp.RequestDigest("1", "", acp.SessionParams{SessionID: "s"}) }},
		{"bad method", func() ([]byte, acp.Digest) { return acp.RequestDigest("1", "a\xff", acp.SessionParams{SessionID: "s"}) }},
		{"bad id text", func() ([]byte, acp.Digest) { return acp.ResultDigest("\"a\xff\"", struct{}{}) }},
	} {
		name, enc := c.name, c.enc
		frame, d := enc()
		if d.Describes(unsafeString(frame)) {
			t.Errorf("%s: %s got a digest", name, frame)
		}
	}
}
