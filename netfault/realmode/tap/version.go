package tap

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/acpsim/acpsim/actors/acp"
)

// tapV1 tells the tap's user, once, on its stderr, that the Agent answered
// initialize in ACP v1: the session still passes through unchanged, and
// acpsim judge will judge its trace under v1 (properties.Report.V1), by
// text and without the RFD's rules, which is better learnt now than after
// a day of recording.
type tapV1 struct {
	w    io.Writer // nil: nowhere to say it
	said bool
}

// read looks at one line the Agent wrote. Only initialize answers name
// protocolVersion at the top of a result, so a line without the word costs
// a scan and the rest are parsed.
func (n *tapV1) read(line []byte) {
	if n.w == nil || n.said || !bytes.Contains(line, []byte("protocolVersion")) {
		return
	}
	for _, e := range acp.ParseLine(line).Entries {
		if e.Err != nil || e.Msg.Kind() != acp.KindResponse || e.Msg.Error != nil {
			continue
		}
		if v := acp.ReadPeerVersion(e.Msg.Result); v.V1 {
			n.said = true
			fmt.Fprintf(n.w, "acpsim tap: %s\n", v.V1TapLine("the Agent"))
			return
		}
	}
}

// lockedWriter serialises writes to a writer that the Agent's stderr copy
// and the tap's own lines share (a file needs no lock: each write is one).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// sharedStderr is w made safe to write from the tap and the stderr copy.
func sharedStderr(w io.Writer) io.Writer {
	switch w.(type) {
	case nil, *os.File:
		return w
	}
	return &lockedWriter{w: w}
}
