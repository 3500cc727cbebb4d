package classes

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/sim"
)

// factory builds one Agent process over a store. Verify uses the reference
// Agent; the tests also run known-bad Agents to show the checks can fail.
type factory func(k agent.Knobs, st store.Store, env agent.Env) agent.Machine

func reference(k agent.Knobs, st store.Store, env agent.Env) agent.Machine {
	return agent.New(k, st, env)
}

// world is one Agent installation driven by hand, as the Agent's scenario
// tests do: no links, no faults, virtual time that only timers move. Every
// output is handled the moment it is produced, so a sync is a sync and a
// frame the world ignores is a response the Client lost.
type world struct {
	build factory
	knobs agent.Knobs
	disk  *store.Disk
	m     agent.Machine
	ids   int // the Agent's id stream: a counter, so runs repeat exactly

	now    time.Duration
	timers []timer
	seq    int

	nextReq map[string]int64                   // per connection: the last JSON-RPC id sent
	answers map[string]map[acp.ID]*acp.Message // per connection: the response to each request
	frames  map[string][]acp.Message           // per connection: every frame the Agent sent, in order
	// problems are protocol breaches seen on the way (a request answered
	// twice, an answer to a request never sent); any of them fails a check.
	problems []string

	authMethod string // the auth method initialize advertised, "" if none
}

type timer struct {
	at  time.Duration
	seq int
	id  int
}

func newWorld(build factory, k agent.Knobs) *world {
	w := &world{build: build, knobs: k, disk: store.NewDisk(),
		nextReq: map[string]int64{}, answers: map[string]map[acp.ID]*acp.Message{}, frames: map[string][]acp.Message{}}
	w.start()
	return w
}

// start runs a new Agent process over the world's disk.
func (w *world) start() {
	w.timers = nil
	w.m = w.build(w.knobs, w.disk, agent.Env{
		Name:   "a",
		Choose: sim.Healthy{}.Choose,
		NewID:  func() string { w.ids++; return "id" + strconv.Itoa(w.ids) },
	})
}

// restart kills the Agent process (unsynced writes are lost, pending timers
// die with it) and starts a new one over the same disk; every connection
// of the old process is gone.
func (w *world) restart() {
	w.disk.Crash(true)
	w.start()
}

func (w *world) connect(conn string) { w.handle(w.m.Connect(conn)) }

func (w *world) disconnect(conn string) { w.handle(w.m.Disconnect(conn)) }

// send writes one request and returns its id; its answer, now or later, is
// in w.answers.
func (w *world) send(conn, method string, params any) acp.ID {
	w.nextReq[conn]++
	id := acp.NumID(w.nextReq[conn])
	if w.answers[conn] == nil {
		w.answers[conn] = map[acp.ID]*acp.Message{}
	}
	w.answers[conn][id] = nil // sent, not answered yet
	w.handle(w.m.Receive(conn, acp.Request(id, method, params)))
	return id
}

// answer is the response to request id on conn, nil while there is none.
func (w *world) answer(conn string, id acp.ID) *acp.Message { return w.answers[conn][id] }

// call sends a request the setup needs and decodes its result; a missing or
// failed answer is an error, since nothing after it would mean anything.
func (w *world) call(conn, method string, params, result any) error {
	id := w.send(conn, method, params)
	r := w.answer(conn, id)
	switch {
	case r == nil:
		return fmt.Errorf("%s on %s: no answer", method, conn)
	case r.Error != nil:
		return fmt.Errorf("%s on %s: error %d %s", method, conn, r.Error.Code, r.Error.Message)
	case result != nil:
		if err := json.Unmarshal(r.Result, result); err != nil {
			return fmt.Errorf("%s on %s: result %s: %v", method, conn, r.Result, err)
		}
	}
	return nil
}

// handle carries out the outputs of one Agent step in order.
func (w *world) handle(outs []agent.Output) {
	for _, o := range outs {
		switch o.Kind {
		case agent.OutSend:
			for _, e := range acp.ParseLine(o.Frame).Entries {
				if e.Err != nil {
					w.problems = append(w.problems, fmt.Sprintf("the Agent sent an invalid frame on %s: %s", o.Conn, o.Frame))
					continue
				}
				msg := e.Msg
				w.frames[o.Conn] = append(w.frames[o.Conn], msg)
				if msg.Kind() != acp.KindResponse {
					continue
				}
				prev, sent := w.answers[o.Conn][msg.ID]
				switch {
				case !sent:
					w.problems = append(w.problems, fmt.Sprintf("the Agent answered request %s on %s, which was never sent", msg.ID, o.Conn))
				case prev != nil:
					w.problems = append(w.problems, fmt.Sprintf("the Agent answered request %s on %s twice", msg.ID, o.Conn))
				default:
					w.answers[o.Conn][msg.ID] = &msg
				}
			}
		case agent.OutSync:
			w.disk.Sync()
		case agent.OutTimer:
			w.seq++
			w.timers = append(w.timers, timer{at: w.now + o.After, seq: w.seq, id: o.ID})
		case agent.OutInsert:
			// Trace bookkeeping: the check reads only what a Client could.
		}
	}
}

// maxTimers bounds quiesce: the reference Agent's work is a few chunks, so
// an Agent still busy after this many timers never goes quiet.
const maxTimers = 10000

// quiesce fires timers in time order until the Agent has no work left.
func (w *world) quiesce() error {
	for n := 0; len(w.timers) > 0; n++ {
		if n == maxTimers {
			return fmt.Errorf("the Agent was still working after %d timers", maxTimers)
		}
		sort.Slice(w.timers, func(i, j int) bool {
			a, b := w.timers[i], w.timers[j]
			return a.at < b.at || a.at == b.at && a.seq < b.seq
		})
		t := w.timers[0]
		w.timers = w.timers[1:]
		w.now = t.at
		w.handle(w.m.Timer(t.id))
	}
	return nil
}

// open connects conn and runs the handshake a Client runs on every new
// connection: initialize, then auth/login when the Agent offers a method.
func (w *world) open(conn string, login bool) error {
	w.connect(conn)
	var res struct {
		AuthMethods []struct {
			MethodID string `json:"methodId"`
		} `json:"authMethods"`
	}
	if err := w.call(conn, acp.MethodInitialize, initParams, &res); err != nil {
		return err
	}
	w.authMethod = ""
	if len(res.AuthMethods) > 0 {
		w.authMethod = res.AuthMethods[0].MethodID
	}
	if login && w.authMethod != "" {
		return w.call(conn, acp.MethodAuthLogin, acp.LoginParams{MethodID: w.authMethod}, nil)
	}
	return nil
}

var initParams = acp.InitializeParams{ProtocolVersion: acp.ProtocolVersion, Info: acp.Implementation{Name: "acpsim-classes", Version: "0"}}

// observe reads the Agent's state the way a Client that just arrived would:
// a fresh connection lists the sessions and resumes each with
// replayFrom start. Ids are renamed S1, S2, … and M1, M2, … in the order
// they appear, so two runs whose id streams drifted apart (a resend that
// drew an id) compare by what a Client can tell apart, not by counter values.
// probe is the answer to session/list on the connection the request under
// test went on: it shows a connection's own state (logged in or not).
func (w *world) observe(probeConn string) (observation, error) {
	var ob observation
	probe := w.send(probeConn, acp.MethodSessionList, acp.ListSessionsParams{})
	switch r := w.answer(probeConn, probe); {
	case r == nil:
		ob.add("probe: session/list on the request's connection: no answer")
	case r.Error != nil:
		ob.add(fmt.Sprintf("probe: session/list on the request's connection: error %d", r.Error.Code))
	default:
		ob.add("probe: session/list on the request's connection: ok")
	}
	const conn = "observer"
	if err := w.open(conn, true); err != nil {
		return ob, err
	}
	var sessions []acp.SessionInfo
	for cursor := (*string)(nil); ; {
		var page acp.ListSessionsResult
		if err := w.call(conn, acp.MethodSessionList, acp.ListSessionsParams{Cursor: cursor}, &page); err != nil {
			return ob, err
		}
		sessions = append(sessions, page.Sessions...)
		if page.NextCursor == nil {
			break
		}
		cursor = page.NextCursor
	}
	names := map[string]map[string]string{"S": {}, "M": {}}
	name := func(prefix, id string) string {
		n, ok := names[prefix][id]
		if !ok {
			n = fmt.Sprintf("%s%d", prefix, len(names[prefix])+1)
			names[prefix][id] = n
		}
		return n
	}
	ob.sessions = len(sessions)
	ob.userMessages, ob.userIDs = map[string]int{}, map[string]bool{}
	for _, s := range sessions {
		sid := name("S", s.SessionID)
		ob.add(fmt.Sprintf("session %s cwd=%s", sid, s.Cwd))
		from := len(w.frames[conn])
		if err := w.call(conn, acp.MethodSessionResume, acp.ResumeSessionParams{SessionID: s.SessionID, Cwd: s.Cwd, ReplayFrom: &acp.ReplayFrom{Type: acp.ReplayStart}}, nil); err != nil {
			return ob, err
		}
		for _, f := range w.frames[conn][from:] {
			if f.Method != acp.MethodSessionUpdate {
				continue
			}
			var p acp.SessionUpdateParams
			if err := json.Unmarshal(f.Params, &p); err != nil || p.SessionID != s.SessionID {
				continue
			}
			u := p.Update
			text, _ := u.ContentText()
			switch u.Kind {
			case acp.UpdateUserMessage, acp.UpdateAgentMessage:
				ob.add(fmt.Sprintf("  %s %s %s %q", sid, u.Kind, name("M", u.MessageID), text))
				if u.Kind == acp.UpdateUserMessage {
					ob.userMessages[text]++
					ob.userIDs[u.MessageID] = true
				}
			case acp.UpdateState:
				ob.add(fmt.Sprintf("  %s state %s", sid, u.State))
			default:
				ob.add(fmt.Sprintf("  %s %s %s %q", sid, u.Kind, name("M", u.MessageID), text))
			}
		}
	}
	return ob, nil
}

// observation is the Agent's observable state as lines, plus the counts a
// difference is explained with.
type observation struct {
	lines        []string
	sessions     int
	userMessages map[string]int // text → how many user messages carry it
	// userIDs are the user messages' ids as the Agent sent them: the ids
	// in lines are renamed, and a Client holds the real ones.
	userIDs map[string]bool
}

func (o *observation) add(line string) { o.lines = append(o.lines, line) }

// diff explains how two observations differ, "" when they are equal.
func diff(one, two observation) string {
	first := -1
	for i := 0; i < len(one.lines) || i < len(two.lines); i++ {
		if i >= len(one.lines) || i >= len(two.lines) || one.lines[i] != two.lines[i] {
			first = i
			break
		}
	}
	if first < 0 {
		return ""
	}
	line := func(ls []string) string {
		if first < len(ls) {
			return strconv.Quote(strings.TrimSpace(ls[first]))
		}
		return "nothing"
	}
	var parts []string
	if one.sessions != two.sessions {
		parts = append(parts, fmt.Sprintf("%d sessions listed instead of %d", two.sessions, one.sessions))
	}
	texts := make([]string, 0, len(two.userMessages))
	for t := range two.userMessages {
		texts = append(texts, t)
	}
	for t := range one.userMessages {
		if _, ok := two.userMessages[t]; !ok {
			texts = append(texts, t)
		}
	}
	sort.Strings(texts)
	for _, t := range texts {
		if a, b := one.userMessages[t], two.userMessages[t]; a != b {
			parts = append(parts, fmt.Sprintf("%d user messages %q instead of %d", b, t, a))
		}
	}
	parts = append(parts, fmt.Sprintf("first difference: %s after two sends, %s after one", line(two.lines), line(one.lines)))
	return strings.Join(parts, "; ")
}
