package traces_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/acpsim/acpsim/traces"
)

func ExampleWriter() {
	w := traces.NewWriter(os.Stdout)
	err := w.WriteHeader(traces.Header{
		Format: traces.FormatVersion, Tool: "acpsim", Source: "seed", Seed: 1,
		Rates:    map[string]float64{"kill": 0.01, "drop": 0.1},
		Contract: traces.Contract{Retention: "all", LiveOnly: []string{}},
	})
	if err != nil {
		panic(err)
	}
	w.WriteEvent(&traces.Event{T: 0, Seq: 1, Kind: traces.KindSubmit, Client: "c1", Sub: "s1", Text: "hi & bye"})
	w.WriteEvent(&traces.Event{T: 250, Seq: 2, Kind: traces.KindSend, Link: "l1", From: "c1", To: "a1",
		Dir: traces.ClientToAgent, Frame: `{"jsonrpc":"2.0","id":1}`})
	w.WriteEvent(&traces.Event{T: 300, Seq: 3, Kind: traces.KindSend, Link: "l1", From: "c1", To: "a1",
		Dir: traces.ClientToAgent, Frame: "not JSON\n"})
	w.WriteEvent(&traces.Event{T: 750, Seq: 4, Kind: traces.KindDeliver, Link: "l1", From: "c1", To: "a1",
		Dir: traces.ClientToAgent, Frame: `{"jsonrpc":"2.0","id":1}`})
	if err := w.Flush(); err != nil {
		panic(err)
	}
	// (Format 2 numbers events by their line after the header: each seq
	// is left out, and the reader gives it back.)
	// Output:
	// {"format":2,"tool":"acpsim","source":"seed","seed":1,"policy":"","agent":"","link":"","clients":0,"sessions":0,"prompts":0,"rates":{"drop":0.1,"kill":0.01},"knobs":null,"contract":{"retention":"all","liveOnly":[]},"keyLengthUnit":"","command":""}
	// {"t":0,"kind":"submit","client":"c1","sub":"s1","text":"hi \u0026 bye"}
	// {"t":250,"kind":"send","link":"l1","from":"c1","to":"a1","dir":"c2a","msg":{"jsonrpc":"2.0","id":1}}
	// {"t":300,"kind":"send","link":"l1","from":"c1","to":"a1","dir":"c2a","frame":"not JSON\n"}
	// {"t":750,"kind":"deliver","send":2}
}

func ExampleRead() {
	trace := `{"format":1,"tool":"acpsim","source":"seed","seed":1,"policy":"","agent":"","link":"","clients":0,"sessions":0,"prompts":0,"rates":null,"knobs":null,"contract":{"retention":"all","liveOnly":[]},"keyLengthUnit":"","command":""}
{"t":0,"seq":1,"kind":"heal"}
{"t":5,"seq":3,"kind":"end","note":"quiet"}
`
	_, err := traces.Read(strings.NewReader(trace), "run.ndjson")
	fmt.Println(err)
	// Output:
	// run.ndjson:3: event: field "seq": got 3, expected 2 (events are numbered 1, 2, 3, ... in order)
}
