package traces

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// benchEvents is a typical mix: mostly frames moving, some bookkeeping.
var benchEvents = []Event{
	{T: 1000, Seq: 1, Kind: KindSend, Link: "c1-a1#1", From: "c1", To: "a1", Dir: ClientToAgent, Sub: "s1",
		Frame: `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"sess-1","idempotencyKey":"6f1c2a4e-1b7d-4c1e-9f0a-2d3b4c5d6e7f","prompt":[{"type":"text","text":"hello <world> & \"friends\""}]}}`},
	{T: 1500, Seq: 2, Kind: KindDeliver, Link: "c1-a1#1", From: "c1", To: "a1", Dir: ClientToAgent,
		Frame: `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"sess-1","idempotencyKey":"6f1c2a4e-1b7d-4c1e-9f0a-2d3b4c5d6e7f","prompt":[{"type":"text","text":"hello <world> & \"friends\""}]}}`},
	{T: 1500, Seq: 3, Kind: KindChoose, Decision: "drop", Site: "c1-a1#1", Option: 1},
	{T: 2000, Seq: 4, Kind: KindSend, Link: "c1-a1#1", From: "a1", To: "c1", Dir: AgentToClient,
		Frame: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"user_message_chunk","messageId":"m-17","content":{"type":"text","text":"hello"}}}}`},
	{T: 2100, Seq: 5, Kind: KindOutcome, Client: "c1", Sub: "s1", Outcome: OutcomeInserted, MessageID: "m-17"},
}

func BenchmarkWriteEvent(b *testing.B) {
	w := NewWriter(io.Discard)
	if err := w.WriteHeader(sampleHeader()); err != nil {
		b.Fatal(err)
	}
	var bytes int64
	for i := range benchEvents {
		bytes += int64(len(AppendEvent(nil, &benchEvents[i])) + 1)
	}
	b.SetBytes(bytes / int64(len(benchEvents)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := w.WriteEvent(&benchEvents[i%len(benchEvents)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkWriteEventJSONMarshal is the reflection-based encoder, for
// comparison.
func BenchmarkWriteEventJSONMarshal(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := json.Marshal(&benchEvents[i%len(benchEvents)]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

func BenchmarkRead(b *testing.B) {
	l := &Log{Header: sampleHeader()}
	for i := 0; i < 1000; i++ {
		e := benchEvents[i%len(benchEvents)]
		e.T = int64(i)
		l.Append(e)
	}
	var buf bytes.Buffer
	if _, err := l.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.ndjson"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*float64(len(l.Events))/b.Elapsed().Seconds(), "events/s")
}
