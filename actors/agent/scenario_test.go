package agent_test

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	_ "github.com/acpsim/acpsim/actors/agent/mutants"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/sim"
)

// harness drives one model Agent installation by hand: the scenario files in
// testdata/ read like the RFD's protocol traces.
type harness struct {
	name    string
	knobs   agent.Knobs
	disk    *store.Disk
	m       agent.Machine
	ids     int
	reject  int      // reject the next n prompts before insertion
	killAt  string   // the process dies before the next output of this step
	keys    []string // every key sent: none may appear in an Agent frame
	leaks   []string
	nextReq map[string]int64
	now     time.Duration
	timers  []pendingTimer
}

type pendingTimer struct {
	at time.Duration
	id int
	// batch is a deferred write (OutDeferred): the runtime commits it at
	// at, whatever became of the process that asked for it.
	batch *store.Batch
}

func (h *harness) start() {
	f, err := agent.Lookup(h.name)
	if err != nil {
		panic(err)
	}
	kept := h.timers[:0]
	for _, t := range h.timers { // a restart ends the process's timers, not the runtime's writes
		if t.batch != nil {
			kept = append(kept, t)
		}
	}
	h.timers = kept
	h.m = f(h.knobs, func() store.Store { return h.disk }, agent.Env{
		Name: "a",
		Choose: func(d sim.Decision) int {
			if d.Kind == "reject" && h.reject > 0 {
				h.reject--
				return 1
			}
			return 0
		},
		NewID: func() string { h.ids++; return "id" + strconv.Itoa(h.ids) },
	})
}

func (h *harness) render(outs []agent.Output) string {
	var b strings.Builder
	for _, o := range outs {
		if h.killAt != "" && o.Step == h.killAt {
			h.killAt = ""
			b.WriteString("killed before " + o.Step + "\n")
			break
		}
		switch o.Kind {
		case agent.OutSend:
			for _, k := range h.keys {
				if strings.Contains(string(o.Frame), k) || strings.Contains(string(o.Frame), `"idempotencyKey":`) {
					h.leaks = append(h.leaks, fmt.Sprintf("key %q in %s", k, o.Frame))
				}
			}
			b.WriteString(renderFrame(o.Conn, o.Frame))
		case agent.OutSync:
			h.disk.Sync()
			b.WriteString("sync")
		case agent.OutInsert:
			fmt.Fprintf(&b, "insert %s %s %q", o.Session, o.MessageID, o.Text)
		case agent.OutTimer:
			h.timers = append(h.timers, pendingTimer{h.now + o.After, o.ID, nil})
			continue
		case agent.OutDeferred:
			batch := o.Batch
			h.timers = append(h.timers, pendingTimer{h.now + o.After, 0, batch})
			for _, m := range batch.Messages {
				fmt.Fprintf(&b, "submit %s %s %q (runtime appends in %v)", m.Session, m.ID, m.Text, o.After)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// runtimeCommit applies a deferred write, as the simulator's host does.
func (h *harness) runtimeCommit(batch store.Batch) string {
	var b strings.Builder
	err := h.disk.Commit(batch)
	if err == nil {
		h.disk.Sync()
	}
	for _, m := range batch.Messages {
		if err != nil {
			fmt.Fprintf(&b, "runtime refuses %s %s: %v\n", m.Session, m.ID, err)
			continue
		}
		fmt.Fprintf(&b, "runtime stores %s %s %q\n", m.Session, m.ID, m.Text)
	}
	return b.String()
}

// renderFrame prints a frame the way the RFD's traces do.
func renderFrame(conn string, frame []byte) string {
	l := acp.ParseLine(frame)
	if l.Batch || l.Entries[0].Err != nil {
		return conn + " " + string(frame)
	}
	m := l.Entries[0].Msg
	switch {
	case m.Kind() == acp.KindResponse && m.Error != nil:
		s := fmt.Sprintf("%s #%s err %d", conn, m.ID, m.Error.Code)
		if len(m.Error.Data) > 0 {
			s += " " + string(m.Error.Data)
		}
		return s
	case m.Kind() == acp.KindResponse:
		return fmt.Sprintf("%s #%s ok %s", conn, m.ID, m.Result)
	case m.Method == acp.MethodSessionUpdate:
		var p acp.SessionUpdateParams
		_ = json.Unmarshal(m.Params, &p)
		u := p.Update
		s := fmt.Sprintf("%s upd %s %s", conn, p.SessionID, u.Kind)
		if u.MessageID != "" {
			s += " " + u.MessageID
		}
		if text, ok := u.ContentText(); ok {
			s += " " + strconv.Quote(text)
		}
		if strings.Contains(string(u.Content), `"type":"`) && strings.Count(string(u.Content), `"type":"text"`) != strings.Count(string(u.Content), `"type":"`) {
			s += " content=" + string(u.Content) // blocks beyond text: show them as sent
		}
		if u.State != "" {
			s += " " + u.State
		}
		if u.StopReason != "" {
			s += " " + u.StopReason
		}
		if len(u.Meta) > 0 {
			s += " _meta=" + string(u.Meta)
		}
		return s
	}
	return conn + " " + string(frame)
}

func (h *harness) request(t *testing.T, conn, method string, td *datadriven.TestData, params any) string {
	id := h.nextReq[conn] + 1
	if td.HasArg("id") {
		td.ScanArgs(t, "id", &id)
	}
	h.nextReq[conn] = id
	return h.render(h.m.Receive(conn, acp.Request(acp.NumID(id), method, params)))
}

func arg(td *datadriven.TestData, key string) string {
	a, ok := td.Arg(key)
	if !ok || len(a.Vals) == 0 {
		return ""
	}
	return a.Vals[0]
}

func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		if !strings.HasSuffix(path, ".txt") {
			return // README.md indexes the scenarios
		}
		h := &harness{name: agent.Reference, knobs: agent.DefaultKnobs(), disk: store.NewDisk(), nextReq: map[string]int64{}}
		h.start()
		t.Cleanup(func() {
			for _, l := range h.leaks {
				t.Errorf("an Agent frame leaks a key (the RFD: keys stay private): %s", l)
			}
		})
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			conn := ""
			if len(td.CmdArgs) > 0 && td.CmdArgs[0].Vals == nil {
				conn = td.CmdArgs[0].Key
			}
			switch td.Cmd {
			case "agent":
				// agent [name=N] [knob=value ...]: a fresh installation.
				h.knobs = agent.DefaultKnobs()
				for _, a := range td.CmdArgs {
					if a.Key == "name" {
						h.name = a.Vals[0]
					} else if err := h.knobs.Set(a.Key, a.Vals[0]); err != nil {
						t.Fatalf("%s: %v", td.Pos, err)
					}
				}
				h.disk = store.NewDisk()
				h.timers = nil
				h.nextReq = map[string]int64{}
				h.ids = 0
				h.start()
				return ""
			case "login":
				return h.request(t, conn, acp.MethodAuthLogin, td, acp.LoginParams{MethodID: "token"})
			case "logout":
				return h.request(t, conn, acp.MethodAuthLogout, td, struct{}{})
			case "delete":
				return h.request(t, conn, acp.MethodSessionDelete, td, acp.SessionParams{SessionID: arg(td, "session")})
			case "fork":
				return h.request(t, conn, acp.MethodSessionFork, td, acp.ForkSessionParams{SessionID: arg(td, "session"), Cwd: "/w"})
			case "session-cancel":
				return h.render(h.m.Receive(conn, acp.Notification(acp.MethodSessionCancel, acp.SessionParams{SessionID: arg(td, "session")})))
			case "connect":
				return h.render(h.m.Connect(conn))
			case "disconnect":
				return h.render(h.m.Disconnect(conn))
			case "init":
				return h.request(t, conn, acp.MethodInitialize, td, acp.InitializeParams{ProtocolVersion: 2, Info: acp.Implementation{Name: "t", Version: "0"}})
			case "new":
				p := acp.NewSessionParams{Cwd: "/w"}
				if td.HasArg("key") {
					p.IdempotencyKey = arg(td, "key")
				}
				return h.request(t, conn, acp.MethodSessionNew, td, p)
			case "resume":
				p := acp.ResumeSessionParams{SessionID: arg(td, "session"), Cwd: "/w"}
				if td.HasArg("replay") {
					p.ReplayFrom = &acp.ReplayFrom{Type: acp.ReplayStart}
				}
				return h.request(t, conn, acp.MethodSessionResume, td, p)
			case "list":
				return h.request(t, conn, acp.MethodSessionList, td, acp.ListSessionsParams{})
			case "close":
				return h.request(t, conn, acp.MethodSessionClose, td, acp.SessionParams{SessionID: arg(td, "session")})
			case "prompt":
				p := acp.PromptParams{SessionID: arg(td, "session"), Prompt: []acp.ContentBlock{acp.Text(arg(td, "text"))}}
				if td.HasArg("key") {
					p.IdempotencyKey = acp.KeyJSON(arg(td, "key"))
					h.keys = append(h.keys, arg(td, "key"))
				}
				if td.HasArg("astral") { // n code points outside the BMP: 4 bytes, 2 UTF-16 units each
					var n int
					td.ScanArgs(t, "astral", &n)
					p.IdempotencyKey = acp.KeyJSON(strings.Repeat("\U0001F600", n))
				}
				if td.HasArg("keylen") {
					var n int
					td.ScanArgs(t, "keylen", &n)
					p.IdempotencyKey = acp.KeyJSON(strings.Repeat("k", n))
				}
				if td.HasArg("rawkey") {
					p.IdempotencyKey = json.RawMessage(arg(td, "rawkey"))
				}
				return h.request(t, conn, acp.MethodSessionPrompt, td, p)
			case "cancel-request":
				var id int64
				td.ScanArgs(t, "id", &id)
				return h.render(h.m.Receive(conn, acp.Notification(acp.MethodCancelRequest, acp.CancelRequestParams{RequestID: acp.NumID(id)})))
			case "send":
				return h.render(h.m.Receive(conn, []byte(strings.TrimSpace(td.Input))))
			case "kill-before":
				// The process dies before the first output of the named step
				// (e.g. sync-insert, respond-prompt); follow with crash.
				h.killAt = arg(td, "step")
				return ""
			case "reject-next":
				h.reject++
				return ""
			case "run":
				// Fire timers in time order until none is left (or n of them).
				n := -1
				if td.HasArg("n") {
					td.ScanArgs(t, "n", &n)
				}
				var b strings.Builder
				for n != 0 && len(h.timers) > 0 {
					sort.SliceStable(h.timers, func(i, j int) bool { return h.timers[i].at < h.timers[j].at })
					next := h.timers[0]
					h.timers = h.timers[1:]
					h.now = next.at
					if next.batch != nil {
						b.WriteString(h.runtimeCommit(*next.batch))
						n--
						continue
					}
					b.WriteString(h.render(h.m.Timer(next.id)))
					n--
				}
				return b.String()
			case "crash":
				h.disk.Crash(td.HasArg("lose"))
				h.start()
				return fmt.Sprintf("restarted; %d session(s) on disk\n", len(h.disk.Sessions()))
			}
			t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			return ""
		})
	})
}
