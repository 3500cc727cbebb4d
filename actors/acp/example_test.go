package acp_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"unsafe"

	"github.com/acpsim/acpsim/actors/acp"
)

// The RFD's key rules: omitted and null mean no key; a 1..255 character
// string is a key; anything else is -32602, never "no key".
func ExamplePromptParams_Key() {
	for _, raw := range []string{``, `null`, `"6e40df93"`, `""`, `42`} {
		p := acp.PromptParams{SessionID: "s", Prompt: []acp.ContentBlock{acp.Text("hi")}}
		if raw != "" {
			p.IdempotencyKey = json.RawMessage(raw)
		}
		key, present, err := p.Key()
		fmt.Printf("%-10q key=%q present=%v err=%v\n", raw, key, present, err)
	}
	// Output:
	// ""         key="" present=false err=<nil>
	// "null"     key="" present=false err=<nil>
	// "\"6e40df93\"" key="6e40df93" present=true err=<nil>
	// "\"\""     key="" present=false err=-32602 invalid params: idempotencyKey must be 1 to 255 characters, got 0
	// "42"       key="" present=false err=-32602 invalid params: idempotencyKey must be a string of 1 to 255 characters
}

func ExampleParseLine() {
	line := acp.ParseLine([]byte(`[{"jsonrpc":"2.0","id":1,"method":"session/list"},{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}},7]`))
	for _, e := range line.Entries {
		if e.Err != nil {
			fmt.Println("error", e.Err.Code, "answered with id", e.ErrID)
			continue
		}
		fmt.Println(e.Msg.Kind() == acp.KindRequest, e.Msg.Method)
	}
	// Output:
	// true session/list
	// false session/cancel
	// error -32600 answered with id null
}

// A frame's Digest is made by the encoder from the values it encoded, and
// describes those bytes only: a copy, or a frame encoded again, is not
// described, and a reader falls back to the bytes.
func ExampleUpdateFrameDigest() {
	frame, d := acp.UpdateFrameDigest("s-1", acp.ChunkUpdate(acp.UpdateAgentMessageChunk, "m-1", "done"))
	fmt.Println(string(frame))
	fmt.Println(d.Method, d.Session(), d.Update(), d.MessageID(), d.Text())
	fmt.Println(d.Describes(unsafe.String(unsafe.SliceData(frame), len(frame))), d.Describes(string(frame)))
	var none acp.Digest
	fmt.Println(none.Describes(string(frame)))
	// Output:
	// {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk","messageId":"m-1","content":{"type":"text","text":"done"}}}}
	// session/update s-1 agent_message_chunk m-1 done
	// true false
	// false
}

// SmallNum reads back the ids NumID writes for a request's number, and
// only those: a string id, a sign, a leading zero or a tenth digit is not
// a small number.
func ExampleID_SmallNum() {
	for _, id := range []acp.ID{acp.NumID(7), acp.NumID(0), acp.StrID("7"), "-1", "07", "1.5", acp.NumID(1_000_000_000)} {
		n, ok := id.SmallNum()
		fmt.Println(id, n, ok)
	}
	// Output:
	// 7 7 true
	// 0 0 true
	// "7" 0 false
	// -1 0 false
	// 07 0 false
	// 1.5 0 false
	// 1000000000 0 false
}

// A reader looking for what varies in a frame (a leaked key, say) reads the
// values of its digest alone, not its member names.
func ExampleDigest_AppendValues() {
	_, d := acp.UpdateFrameDigest("sess-1", acp.MessageUpdate(acp.UpdateUserMessage, "msg-1", "fix the build"))
	values, namesKey := d.AppendValues(nil)
	fmt.Printf("%q %v\n", values, namesKey)
	// Output:
	// ["session/update" "sess-1" "user_message" "msg-1" "fix the build"] false
}

// An Agent handed a prompt's digest reads the params from it: the texts are
// the Client's own strings, not copies cut from the bytes.
func ExampleDigest_PromptParams() {
	text := "fix the build"
	frame, d := acp.RequestDigest("7", acp.MethodSessionPrompt, acp.PromptParams{SessionID: "sess-1", Prompt: []acp.ContentBlock{acp.Text(text)}, IdempotencyKey: acp.KeyJSON("k-1"), KeyText: "k-1"})
	var p acp.PromptParams
	ok := d.PromptParams(&p)
	fmt.Println(ok, p.SessionID, string(p.IdempotencyKey), unsafe.StringData(p.Prompt[0].Text) == unsafe.StringData(text))
	fmt.Println(len(frame) > 0)
	// Output:
	// true sess-1 "k-1" true
	// true
}

// A stored message is echoed as its content was written; the update's
// digest names the text it was written from.
func ExampleContentUpdate() {
	text := "fix the build"
	stored := []byte(`[{"type":"text","text":"fix the build"}]`)
	_, d := acp.UpdateFrameDigest("sess-1", acp.ContentUpdate(acp.UpdateUserMessage, "msg-1", stored, text))
	fmt.Println(d.Text(), unsafe.StringData(d.Text()) == unsafe.StringData(text))
	// Output:
	// fix the build true
}

// A key is 1 to MaxKeyLength characters, counted in code points.
func ExampleKeyFits() {
	fmt.Println(acp.KeyFits(""), acp.KeyFits("k-1"), acp.KeyFits(strings.Repeat("é", acp.MaxKeyLength)), acp.KeyFits(strings.Repeat("é", acp.MaxKeyLength+1)))
	// Output:
	// false true true false
}

// A key read from a frame is valid UTF-8; its length is counted without
// decoding it.
// The usual key token is read in place; one with an escape is the
// decoder's to read (PromptParams.Key).
func ExamplePlainKey() {
	for _, tok := range []string{`"k-1"`, `"k\u002d1"`, `null`} {
		key, ok := acp.PlainKey(tok)
		fmt.Printf("%s: %q %t\n", tok, key, ok)
	}
	// Output:
	// "k-1": "k-1" true
	// "k\u002d1": "" false
	// null: "" false
}

func ExampleValidKeyFits() {
	fmt.Println(acp.ValidKeyFits(strings.Repeat("😀", acp.MaxKeyLength)), acp.ValidKeyFits(strings.Repeat("😀", acp.MaxKeyLength+1)))
	// Output: true false
}
