package clientcheck_test

import (
	"fmt"

	"github.com/acpsim/acpsim/properties/clientcheck"
)

// A Client sent a prompt without a key, the Agent died before answering,
// and the Client sent it again on the next Agent process: the message is in
// the transcript twice.
func ExampleCheck() {
	prompt := `{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`
	resume := `{"jsonrpc":"2.0","id":1,"method":"session/resume","params":{"sessionId":"s","cwd":"/"}}`
	h := clientcheck.History{
		Subs: []clientcheck.Submission{{ID: "s1", Text: "hi"}},
		Told: []clientcheck.Told{{ID: "s1", Outcome: clientcheck.Inserted, MessageID: "m2"}},
		Frames: []clientcheck.Frame{
			{Conn: 1, Dir: "c2a", Bytes: []byte(resume), Seq: 1}, {Conn: 1, Dir: "c2a", Bytes: []byte(prompt), Seq: 2},
			{Conn: 2, Dir: "c2a", Bytes: []byte(resume), Seq: 3}, {Conn: 2, Dir: "c2a", Bytes: []byte(prompt), Seq: 4},
		},
		Transcript: []clientcheck.Message{{Session: "s", ID: "m1", Text: "hi"}, {Session: "s", ID: "m2", Text: "hi"}},
	}
	for _, a := range clientcheck.Check(h) {
		fmt.Printf("%s: %s\n", a.Kind, a.Explanation)
	}
	// Output:
	// duplicate: "hi" was submitted once and is in the final transcript 2 times: m1 in session s, m2 in session s; the user was told s1: inserted m2
	// unkeyed-resend: "hi" was submitted once and sent 2 times without a key
}
