package world

import (
	"encoding/json"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/client"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/traces"
)

// Coverage: which (fault point × protocol state) pairs a run hit. A clean
// swarm only means something if its faults reached the states that matter
// (the response of a held prompt lost, a kill between the store write and
// the response, a retry arriving while its original is pending), so every
// pair is a row of CoveragePairs and a run counts the rows it hit.
//
// The hit set is read from the run's trace after the run, and only when
// asked for (SwarmConfig.Coverage), so a swarm without it runs exactly as
// before. The trace has what the labels need: a fault is a choose event
// (Decision, Site, Option); a link fault is asked right after the send
// event of the frame at stake (pipes and HTTP record the send, then ask),
// so the frame it hits is the send just before it; a kill's site ends in
// the Agent's protocol step (agent.Output.Step); submit, send, deliver and
// outcome events give the Clients' and the Agent's view of each
// submission. No hook in the simulation, no field on sim.Decision.

// Fault points that are not a fault kind: a resent prompt reaching the
// Agent, the window the faults open.
const PointRetry = "retry"

// need is what a configuration must have for a pair to be reachable.
type need uint16

const (
	needStream need = 1 << iota // a Client on stdio or ws (pipes are cut)
	needHTTP                    // a Client on http (its own faults)
	needHold                    // busy=hold: the Agent holds prompts while it works
	needResend                  // the policy resends
	needKeyed                   // the policy sends keys (a binding answers retries)
	needCancel                  // users cancel or close (held prompts withdrawn)
	needClose                   // users close sessions
	needFork                    // users fork sessions
)

// CoveragePair is one (fault point × protocol state) pair.
type CoveragePair struct {
	Point string // the fault kind (sim.Decision.Kind) of the point, or PointRetry
	State string // the protocol state it met
	Doc   string
	needs need
	// boost are the fault kinds guided mode raises when the pair is missing
	// (the Point's own kind is always among them).
	boost []string
}

// Name is "point × state".
func (p CoveragePair) Name() string { return p.Point + " × " + p.State }

// CoveragePairs is the universe of pairs.
var CoveragePairs = []CoveragePair{
	// An Agent process killed before an output: the state is the protocol
	// step it was about to take (its failpoint name).
	{Point: netfault.Kill, State: "sync-session", Doc: "a new session written, not yet synced"},
	{Point: netfault.Kill, State: "respond-session-new", Doc: "a new session synced, before session/new's response"},
	{Point: netfault.Kill, State: "sync-insert", Doc: "a prompt's message and key binding written, not yet synced"},
	{Point: netfault.Kill, State: "respond-prompt", Doc: "a prompt inserted and synced, before its response"},
	{Point: netfault.Kill, State: "update-user-message", Doc: "after a prompt's response, before the user message echo"},
	{Point: netfault.Kill, State: "work", Doc: "while the Agent works on a prompt (running, chunk, idle updates)"},
	{Point: netfault.Kill, State: "sync-agent-message", Doc: "the Agent's reply written, not yet synced"},
	{Point: netfault.Kill, State: "respond-from-binding", Doc: "before answering a retry from its binding", needs: needKeyed | needResend},
	{Point: netfault.Kill, State: "replay", Doc: "in the middle of a session/resume replay (messages, state snapshot)"},
	{Point: netfault.Kill, State: "respond-resume", Doc: "replay sent, before session/resume's response"},
	{Point: netfault.Kill, State: "respond-initialize", Doc: "before initialize's response"},
	{Point: netfault.Kill, State: "respond-error", Doc: "before an error response (a transient reject, a refused request)"},
	{Point: netfault.Kill, State: "respond-cancelled", Doc: "before answering a withdrawn prompt -32800", needs: needCancel},
	{Point: netfault.Kill, State: "respond-close", Doc: "before session/close's response", needs: needClose},
	{Point: netfault.Kill, State: "fork", Doc: "while forking a session (sync, response)", needs: needFork},

	// A killed Agent losing its unsynced writes: the state is where it died.
	{Point: netfault.LoseUnsynced, State: "sync-insert", Doc: "killed at sync-insert, the message and its binding lost: a retry must insert again", boost: []string{netfault.Kill}},
	{Point: netfault.LoseUnsynced, State: "sync-session", Doc: "killed at sync-session, the new session lost", boost: []string{netfault.Kill}},
	{Point: netfault.LoseUnsynced, State: "sync-agent-message", Doc: "killed at sync-agent-message, the Agent's reply lost", boost: []string{netfault.Kill}},

	// A pipe or WebSocket cut as a frame is written: the state is that
	// frame, or what the connection had in flight.
	{Point: netfault.Cut, State: "prompt", Doc: "a prompt's first attempt lost before the Agent read it", needs: needStream},
	{Point: netfault.Cut, State: "prompt-retry", Doc: "a resent prompt lost before the Agent read it", needs: needStream | needResend},
	{Point: netfault.Cut, State: "prompt-response", Doc: "the response of an inserted prompt lost", needs: needStream},
	{Point: netfault.Cut, State: "held-response", Doc: "the response of a held prompt (inserted once the session went idle) lost", needs: needStream | needHold},
	{Point: netfault.Cut, State: "binding-response", Doc: "a retry's answer from the binding lost", needs: needStream | needKeyed | needResend},
	{Point: netfault.Cut, State: "held", Doc: "the connection ends while the Agent holds a prompt from it", needs: needStream | needHold},
	{Point: netfault.Cut, State: "resume-in-flight", Doc: "the connection ends while a session/resume and its replay are in flight", needs: needStream},
	{Point: netfault.Cut, State: "initialize", Doc: "an initialize or its response lost", needs: needStream},
	{Point: netfault.Cut, State: "cancel", Doc: "a cancel notification lost", needs: needStream | needCancel},

	// Streamable HTTP's own losses.
	{Point: netfault.PostLost, State: "prompt", Doc: "a prompt's first POST lost", needs: needHTTP},
	{Point: netfault.PostLost, State: "prompt-retry", Doc: "a resent prompt's POST lost", needs: needHTTP | needResend},
	{Point: netfault.PostLost, State: "resume", Doc: "a session/resume POST lost", needs: needHTTP},
	{Point: netfault.PostLost, State: "initialize", Doc: "an initialize POST lost", needs: needHTTP},
	{Point: netfault.AcceptedLost, State: "prompt", Doc: "the Agent read a prompt, its 202 never came back", needs: needHTTP},
	{Point: netfault.AcceptedLost, State: "prompt-retry", Doc: "the Agent read a resent prompt, its 202 never came back", needs: needHTTP | needResend},
	{Point: netfault.StreamBreak, State: "prompt-response", Doc: "an SSE stream breaks on an inserted prompt's response", needs: needHTTP},
	{Point: netfault.StreamBreak, State: "held-response", Doc: "an SSE stream breaks on a held prompt's response", needs: needHTTP | needHold},
	{Point: netfault.StreamBreak, State: "binding-response", Doc: "an SSE stream breaks on a retry's answer from the binding", needs: needHTTP | needKeyed | needResend},
	{Point: netfault.StreamBreak, State: "resume-in-flight", Doc: "an SSE stream breaks while a session/resume replay is in flight", needs: needHTTP},
	{Point: netfault.ConnExpired, State: "prompt", Doc: "the connection id expires as a prompt POST arrives (404)", needs: needHTTP},
	{Point: netfault.ConnExpired, State: "held", Doc: "the connection id expires while the Agent holds a prompt from it", needs: needHTTP | needHold},

	// Delays long enough for the Client to time out.
	{Point: netfault.Delay, State: "prompt-late", Doc: "a prompt delayed past the Client's timeout"},
	{Point: netfault.Delay, State: "response-late", Doc: "a prompt's response delayed past the Client's timeout: the retry races it"},

	{Point: netfault.Reject, State: "prompt", Doc: "a prompt's first attempt rejected before insertion (-32603)"},
	{Point: netfault.Reject, State: "prompt-retry", Doc: "a resent prompt rejected before insertion: its key stays unused", needs: needResend},

	{Point: netfault.ClientRestart, State: "unsent", Doc: "the Client dies with a submission saved but never sent (its key only on the Client's disk)"},
	{Point: netfault.ClientRestart, State: "pending", Doc: "the Client dies with a sent submission still pending (resent with its key after the restart)"},

	// A resent prompt reaching the Agent: the state is what happened to
	// the submission's earlier attempts.
	{Point: PointRetry, State: "pending", Doc: "a resent prompt arrives while an earlier attempt is held by the Agent", needs: needResend | needHold, boost: []string{netfault.Delay}},
	{Point: PointRetry, State: "answered", Doc: "a resent prompt arrives after an earlier attempt was answered with a messageId", needs: needResend, boost: []string{netfault.Cut, netfault.Delay, netfault.StreamBreak}},
	{Point: PointRetry, State: "restarted", Doc: "a resent prompt reaches an Agent process started after the one that had an earlier attempt", needs: needResend, boost: []string{netfault.Kill, netfault.Cut}},
	{Point: PointRetry, State: "unseen", Doc: "a resent prompt whose earlier attempts never reached the Agent", needs: needResend, boost: []string{netfault.Cut, netfault.PostLost}},
}

// killStates maps an Agent step (agent.Output.Step) to the state of the
// kill pairs; a step missing here (a mutant's own) has no pair.
var killStates = map[string]string{
	"sync-session": "sync-session", "respond-session-new": "respond-session-new",
	"sync-insert": "sync-insert", "respond-prompt": "respond-prompt", "update-user-message": "update-user-message",
	"update-running": "work", "update-chunk": "work", "update-idle": "work", "sync-agent-message": "sync-agent-message",
	"respond-from-binding": "respond-from-binding", "respond-from-history": "respond-from-binding",
	"replay": "replay", "resume-snapshot": "replay", "respond-resume": "respond-resume",
	"respond-initialize": "respond-initialize", "respond-error": "respond-error",
	"respond-cancelled": "respond-cancelled", "respond-close": "respond-close",
	"sync-fork": "fork", "respond-fork": "fork",
}

var pairIndex = func() map[[2]string]int {
	m := make(map[[2]string]int, len(CoveragePairs))
	for i, p := range CoveragePairs {
		m[[2]string{p.Point, p.State}] = i
	}
	return m
}()

// needsOf is what cfg has.
func needsOf(cfg *Config) need {
	var n need
	switch cfg.Link {
	case LinkStdio, LinkWS:
		n |= needStream
	case LinkHTTP:
		n |= needHTTP
	case LinkMixed:
		n |= needStream
		if cfg.Clients > 1 {
			n |= needHTTP
		}
	}
	if cfg.Knobs.Busy == agent.BusyHold {
		n |= needHold
	}
	if pol, err := client.LookupPolicy(cfg.Policy); err == nil {
		if pol.Resend {
			n |= needResend
		}
		if pol.Keyed {
			n |= needKeyed
		}
	}
	if cfg.Cancels > 0 || cfg.Closes > 0 {
		n |= needCancel
	}
	if cfg.Closes > 0 {
		n |= needClose
	}
	if cfg.Forks > 0 {
		n |= needFork
	}
	return n
}

// Applicable says which pairs a swarm of cfg can reach: those whose point's
// fault kind has a rate (and, for lose-unsynced, kill too) and whose needs
// the configuration has.
func Applicable(cfg *Config) []bool {
	has := needsOf(cfg)
	out := make([]bool, len(CoveragePairs))
	anyFault := false
	for _, r := range cfg.Rates {
		anyFault = anyFault || r > 0
	}
	for i, p := range CoveragePairs {
		ok := p.needs&has == p.needs
		switch p.Point {
		case PointRetry:
			ok = ok && anyFault
		case netfault.LoseUnsynced:
			ok = ok && cfg.Rates[p.Point] > 0 && cfg.Rates[netfault.Kill] > 0
		default:
			ok = ok && cfg.Rates[p.Point] > 0
		}
		out[i] = ok
	}
	return out
}

// Coverage is how often a run hit each pair, by index in CoveragePairs.
type Coverage []int

// CoverageOf reads the pairs a run of cfg hit from its trace.
func CoverageOf(cfg *Config, log *traces.Log) Coverage {
	t := newCovTracker(cfg)
	for i := range log.Events {
		t.event(&log.Events[i])
	}
	return t.hits
}

// covTracker follows a trace: the requests of each link, each submission's
// attempts, each installation's restarts.
type covTracker struct {
	cfg      *Config
	hits     Coverage
	links    map[string]*covLink
	subs     map[string]*covSub
	clients  map[string][]*covSub
	restarts map[string]int // installation ("a1") → processes started
	answered map[string]bool
	// last is the frame of the send event just before (link faults hit it);
	// lastDeliver the frame the Agent just read (reject hits it). Any other
	// event but choose clears them.
	last        *covFrame
	lastDeliver *covFrame
	killStep    string
	// orphans counts link faults and rejects with no frame just before
	// them: the order the labels rely on broke (a test keeps it 0).
	orphans int
}

type covLink struct {
	reqs    map[acp.ID]*covReq
	resumes int // session/resume requests sent whose response has not arrived
}

type covReq struct {
	method    string
	sub       *covSub
	delivered bool
	at        int64 // when the Agent read it
	answered  bool
}

type covSub struct {
	client    string
	resolved  bool
	sent      int
	delivered int
	pending   int  // attempts the Agent read and has not answered
	answered  bool // the Agent answered an attempt with a messageId
	restarts  int  // the installation's restarts when an attempt was last read
}

type covFrame struct {
	link  string
	label string
}

func newCovTracker(cfg *Config) *covTracker {
	return &covTracker{cfg: cfg, hits: make(Coverage, len(CoveragePairs)), links: map[string]*covLink{},
		subs: map[string]*covSub{}, clients: map[string][]*covSub{}, restarts: map[string]int{}, answered: map[string]bool{}}
}

func (t *covTracker) hit(point, state string) {
	if i, ok := pairIndex[[2]string{point, state}]; ok {
		t.hits[i]++
	}
}

func (t *covTracker) link(name string) *covLink {
	l := t.links[name]
	if l == nil {
		l = &covLink{reqs: map[acp.ID]*covReq{}}
		t.links[name] = l
	}
	return l
}

// installation is the Agent installation of an endpoint name ("a1#3" → "a1").
func installation(name string) string {
	inst, _, _ := strings.Cut(name, "#")
	return inst
}

func (t *covTracker) event(e *traces.Event) {
	if e.Kind != traces.KindChoose {
		t.last, t.lastDeliver = nil, nil
	}
	switch e.Kind {
	case traces.KindSubmit:
		s := &covSub{client: e.Client}
		t.subs[e.Sub] = s
		t.clients[e.Client] = append(t.clients[e.Client], s)
	case traces.KindOutcome:
		if s := t.subs[e.Sub]; s != nil {
			s.resolved = true
		}
	case traces.KindRestart:
		if strings.Contains(e.From, "#") {
			t.restarts[installation(e.From)]++
		}
	case traces.KindDisconnect:
		if l := t.links[e.Link]; l != nil {
			for _, r := range l.reqs {
				if r.sub != nil && r.delivered && !r.answered {
					r.sub.pending--
				}
			}
			delete(t.links, e.Link)
		}
	case traces.KindSend:
		switch {
		case e.From == traces.Observer || e.To == traces.Observer:
		case agentMessage(e):
			t.last = &covFrame{link: e.Link} // unlabelled, but a link fault may hit it
		default:
			t.send(e)
		}
	case traces.KindDeliver:
		if e.From != traces.Observer && e.To != traces.Observer && !agentMessage(e) {
			t.deliver(e)
		}
	case traces.KindDrop:
		if l := t.links[e.Link]; l != nil && l.resumes > 0 {
			l.dropped(e)
		}
	case traces.KindChoose:
		t.choose(e)
	}
}

// agentMessage reports, without parsing it, that e's frame is a
// notification or request from the Agent (updates, most of a trace): no
// label needs one. Frames spelt otherwise are parsed.
func agentMessage(e *traces.Event) bool {
	return e.Dir == traces.AgentToClient && strings.HasPrefix(e.Frame, `{"jsonrpc":"2.0","method":`)
}

// message reads the one JSON-RPC message of a frame; ok is false for a
// batch or anything malformed.
func message(frame string) (m acp.Message, ok bool) {
	l := acp.ParseLine([]byte(frame))
	if l.Batch || len(l.Entries) != 1 || l.Entries[0].Err != nil {
		return m, false
	}
	return l.Entries[0].Msg, true
}

func (t *covTracker) send(e *traces.Event) {
	m, ok := message(e.Frame)
	if !ok {
		return
	}
	l := t.link(e.Link)
	f := &covFrame{link: e.Link}
	t.last = f
	if e.Dir == traces.ClientToAgent {
		switch m.Kind() {
		case acp.KindRequest:
			r := &covReq{method: m.Method}
			l.reqs[m.ID] = r
			switch m.Method {
			case acp.MethodSessionPrompt:
				f.label = "prompt"
				if s := t.subs[e.Sub]; s != nil {
					r.sub = s
					s.sent++
					if s.sent > 1 {
						f.label = "prompt-retry"
					}
				}
			case acp.MethodSessionResume:
				f.label = "resume"
				l.resumes++
			case acp.MethodInitialize:
				f.label = "initialize"
			}
		case acp.KindNotification:
			if m.Method == acp.MethodSessionCancel || m.Method == acp.MethodCancelRequest {
				f.label = "cancel"
			}
		}
		return
	}
	if m.Kind() != acp.KindResponse {
		return
	}
	r := l.reqs[m.ID]
	if r == nil {
		return
	}
	switch r.method {
	case acp.MethodInitialize:
		f.label = "initialize"
	case acp.MethodSessionPrompt:
		if r.delivered && !r.answered && r.sub != nil {
			r.sub.pending--
		}
		r.answered = true
		if m.Error != nil {
			return
		}
		var res acp.PromptResult
		if json.Unmarshal(m.Result, &res) != nil {
			return
		}
		switch {
		case t.answered[res.MessageID]:
			f.label = "binding-response"
		case r.delivered && r.at < e.T:
			f.label = "held-response"
		default:
			f.label = "prompt-response"
		}
		t.answered[res.MessageID] = true
		if r.sub != nil {
			r.sub.answered = true
		}
	}
}

func (t *covTracker) deliver(e *traces.Event) {
	m, ok := message(e.Frame)
	if !ok {
		return
	}
	l := t.link(e.Link)
	if e.Dir == traces.AgentToClient {
		if m.Kind() == acp.KindResponse {
			if r := l.reqs[m.ID]; r != nil && r.method == acp.MethodSessionResume && l.resumes > 0 {
				l.resumes--
				delete(l.reqs, m.ID)
			}
		}
		return
	}
	if m.Kind() != acp.KindRequest {
		return
	}
	r := l.reqs[m.ID]
	if r == nil || r.delivered {
		return
	}
	r.delivered, r.at = true, e.T
	s := r.sub
	if r.method != acp.MethodSessionPrompt || s == nil {
		return
	}
	t.lastDeliver = &covFrame{link: e.Link, label: "prompt"}
	restarts := t.restarts[installation(e.To)]
	if s.sent > 1 {
		t.lastDeliver.label = "prompt-retry"
		if s.pending > 0 {
			t.hit(PointRetry, "pending")
		}
		if s.answered {
			t.hit(PointRetry, "answered")
		}
		if s.delivered == 0 {
			t.hit(PointRetry, "unseen")
		} else if restarts > s.restarts {
			t.hit(PointRetry, "restarted")
		}
	}
	s.delivered++
	s.pending++
	s.restarts = restarts
}

// dropped ends a session/resume whose request or response was lost while
// the link lives on (HTTP: a lost POST, a broken stream).
func (l *covLink) dropped(e *traces.Event) {
	m, ok := message(e.Frame)
	if !ok || m.ID == "" {
		return
	}
	if r := l.reqs[m.ID]; r != nil && r.method == acp.MethodSessionResume {
		l.resumes--
		delete(l.reqs, m.ID)
	}
}

// held reports whether the Agent holds a prompt read from link l
// before now.
func (l *covLink) held(now int64) bool {
	for _, r := range l.reqs {
		if r.method == acp.MethodSessionPrompt && r.delivered && !r.answered && r.at < now {
			return true
		}
	}
	return false
}

func (t *covTracker) choose(e *traces.Event) {
	switch e.Decision {
	case netfault.Kill:
		step := e.Site[strings.LastIndexByte(e.Site, '/')+1:]
		t.killStep = step
		if s, ok := killStates[step]; ok {
			t.hit(netfault.Kill, s)
		}
	case netfault.LoseUnsynced:
		t.hit(netfault.LoseUnsynced, t.killStep)
	case netfault.Reject:
		if f := t.lastDeliver; f != nil {
			t.hit(netfault.Reject, f.label)
		} else {
			t.orphans++
		}
	case netfault.ClientRestart:
		c, _, _ := strings.Cut(e.Site, "/")
		unsent, pending := false, false
		for _, s := range t.clients[c] {
			if !s.resolved {
				unsent = unsent || s.sent == 0
				pending = pending || s.sent > 0
			}
		}
		if unsent {
			t.hit(netfault.ClientRestart, "unsent")
		}
		if pending {
			t.hit(netfault.ClientRestart, "pending")
		}
	case netfault.Delay:
		f := t.last
		if f == nil {
			t.orphans++
		}
		if f == nil || e.Option <= 0 || e.Option >= len(netfault.DelaySteps) || netfault.DelaySteps[e.Option] < t.cfg.Timeout {
			return
		}
		switch f.label {
		case "prompt", "prompt-retry":
			t.hit(netfault.Delay, "prompt-late")
		case "prompt-response", "held-response", "binding-response":
			t.hit(netfault.Delay, "response-late")
		}
	case netfault.Cut, netfault.PostLost, netfault.AcceptedLost, netfault.StreamBreak, netfault.ConnExpired:
		f := t.last
		if f == nil {
			t.orphans++
			return
		}
		if f.label != "" {
			t.hit(e.Decision, f.label)
		}
		l := t.links[f.link]
		if l == nil {
			return
		}
		if l.held(e.T) {
			t.hit(e.Decision, "held")
		}
		if l.resumes > 0 {
			t.hit(e.Decision, "resume-in-flight")
		}
	}
}
