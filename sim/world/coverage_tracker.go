// Reading the coverage pairs a run hit from its trace (CoverageOf): the
// tracker follows each link's requests, each submission's attempts and
// each installation's restarts, and labels the frame every fault hits.

package world

import (
	"encoding/json"
	"strings"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/traces"
)

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
		if f == nil || e.Option <= 0 || e.Option >= len(netfault.DelaySteps) || netfault.DelaySteps[e.Option] < t.cfg.promptTimeout() {
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
