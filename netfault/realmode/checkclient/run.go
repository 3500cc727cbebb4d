// Package checkclient is acpsim check-client's driver: a real Client,
// driven through its adapter (docs/client-adapter.md), against the
// reference Agent behind a faulty tap. acpsim plays the user (submissions on
// the adapter's stdin, restarts of the adapter) and the Agent's chaos (the
// tap kills the Agent as it answers, or loses a prompt with the pipe), then
// judges with properties/clientcheck what the user was told, the frames the
// Client sent and the Agent's final transcript.
package checkclient

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/acpsim/acpsim/actors/acp"
	"github.com/acpsim/acpsim/netfault/realmode/proc"
	"github.com/acpsim/acpsim/netfault/realmode/tap"
	"github.com/acpsim/acpsim/properties/clientcheck"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// Config is the setup of acpsim check-client, the same for every seed.
type Config struct {
	// Client is the adapter's command line.
	Client []string
	// Self is the acpsim executable: the tap and the Agent run as it.
	Self string
	// AgentArgs follow `acpsim agent --db FILE` (e.g. --agent NAME).
	AgentArgs []string
	// Protocol is the Agent's protocol knob: "negotiate" (the version the
	// Client asks for; "" too), "1" or "2".
	Protocol string
	// Prompts is the number of submissions a seed makes.
	Prompts int
	// Kill and Cut are the tap's fault rates (tap.Faults); Restart the
	// chance that the adapter is killed and restarted while a submission
	// is pending; Repeat the chance that a submission repeats an earlier
	// one's text.
	Kill, Cut, Restart, Repeat float64
	// PromptErrors is the share of new prompts the reference Agent
	// refuses with an error before inserting them (acpsim agent
	// --prompt-errors): the answers whose handling a Client gets wrong by
	// telling inserted, or by giving the unused key to the next submission.
	PromptErrors float64
	// Cancel is the chance that the user cancels a pending submission
	// (one not chosen for a restart), sent only to an adapter that says it
	// can.
	Cancel float64
	// Settle bounds the wait for an outcome, and for the adapter's exit
	// once its input ended; RestartWait the wait for the pending
	// submission's outcome after a restart.
	Settle, RestartWait time.Duration
	// StartTimeout bounds the wait for the Client's session to be set up
	// on the wire (a session/new answered) after a submission: a Client
	// stuck behind something that hangs ends its seed in plain words then,
	// not at --settle per submission.
	StartTimeout time.Duration
	// ReadStore reads the user messages of every session in the Agent's
	// store file (acpsim agent --db). The caller opens the database: the
	// packages of netfault/realmode link none, so that no fuzz build
	// instruments SQLite.
	ReadStore func(path string) ([]clientcheck.Message, error)
}

// Result is one seed's result.
type Result struct {
	Seed      uint64
	Anomalies []clientcheck.Anomaly
	// Broken says how the adapter broke its contract ("" if it did not):
	// a line that is not an outcome, an exit before the end, a hang.
	Broken string
	// Stderr is the adapter's last stderr lines, shown with Broken.
	Stderr string
	// Inconclusive says why the seed judged nothing ("" if it judged):
	// the Client speaks ACP v1, sent no session/prompt, or its session was
	// never set up within StartTimeout.
	Inconclusive string
	// V1 is set when the Client's initialize reads as ACP v1.
	V1 *acp.PeerVersion
	// Setup is how far the Client got towards its first prompt; Cover
	// what the judge could judge.
	Setup clientcheck.Setup
	Cover clientcheck.Coverage
	// Notes are what the seed saw that is not a verdict: outcomes that
	// did not come within Settle.
	Notes []string
	// Trace is the tap's trace of the seed, Dir its scratch directory.
	Trace, Dir string
	// CanCancel is set when the adapter said it takes the user's cancels.
	CanCancel bool
	// Counts of what happened; Errors counts the prompt attempts the
	// Client got an error answer to, Cancels the user's cancels sent.
	Submissions, Told, Attempts, Errors, Agents, Kills, Cuts, Restarts, Cancels int
	// ToldInserted, ToldFailed and ToldUnknown split Told by outcome: an
	// unknown is never false, so a run told mostly unknown judged little.
	ToldInserted, ToldFailed, ToldUnknown int
	// History is what the seed was judged on: the user's submissions and
	// cancels, what the user was told, the frames and the final transcript.
	History clientcheck.History
}

// Failed is whether the seed fails.
func (s *Result) Failed() bool { return s.Broken != "" || len(s.Anomalies) > 0 }

// submissionText is the text of the seed's i-th submission: unique within
// the seed, so the judge can tell submissions apart by text.
func submissionText(seed uint64, i int) string {
	return fmt.Sprintf("check-client seed %d, message %d", seed, i)
}

// sealNote ends the links of taps killed with their Client.
const sealNote = "killed with the Client that started it"

// Run runs one seed in the empty directory dir.
func Run(c Config, seed uint64, dir string) Result {
	res := Result{Seed: seed, Dir: dir, Trace: filepath.Join(dir, "trace.ndjson")}
	db := filepath.Join(dir, "agent.db")
	state, cwd := filepath.Join(dir, "state"), filepath.Join(dir, "cwd")
	for _, d := range []string{state, cwd} {
		if err := os.Mkdir(d, 0o755); err != nil { // not MkdirAll: dir removed (an interrupt) stays removed
			res.Broken = err.Error()
			return res
		}
	}
	agent := append([]string{"env", "-u", "ACPSIM_AGENT", c.Self, "tap", "--trace", res.Trace,
		"--seed", strconv.FormatUint(seed, 10), "--fault-rates", fmt.Sprintf("kill=%g,cut=%g", c.Kill, c.Cut),
		"--", c.Self, "agent", "--db", db, "--protocol", cmp.Or(c.Protocol, "negotiate"), "--prompt-errors", strconv.FormatFloat(c.PromptErrors, 'g', -1, 64),
		"--prompt-errors-seed", strconv.FormatUint(seed, 10)}, c.AgentArgs...)
	env := append(os.Environ(), "ACPSIM_AGENT="+shell.Join(agent), "ACPSIM_STATE_DIR="+state, "ACPSIM_CWD="+cwd)

	rng := rand.New(rand.NewPCG(seed, 0x636c69656e74))
	var h clientcheck.History
	restartAfter := make([]time.Duration, c.Prompts)
	for i := range c.Prompts {
		text := submissionText(seed, i+1)
		if i > 0 && rng.Float64() < c.Repeat {
			text = h.Subs[rng.IntN(i)].Text
		}
		h.Subs = append(h.Subs, clientcheck.Submission{ID: "s" + strconv.Itoa(i+1), Text: text})
		restartAfter[i] = -1
		if rng.Float64() < c.Restart {
			restartAfter[i] = time.Duration(rng.IntN(300)) * time.Millisecond
		}
	}
	d := &clientDriver{c: c, env: env, res: &res, h: &h, known: map[string]bool{}, attemptsSeen: map[string]int{}}
	for _, s := range h.Subs {
		d.known[s.ID] = true
	}
	d.run(restartAfter, cancelPlan(c.Cancel, seed, h.Subs, restartAfter))
	res.Submissions, res.Told = len(h.Subs), len(h.Told)
	for _, t := range h.Told {
		switch t.Outcome {
		case clientcheck.Inserted:
			res.ToldInserted++
		case clientcheck.Failed:
			res.ToldFailed++
		case clientcheck.Unknown:
			res.ToldUnknown++
		}
	}
	if d.res.Restarts > 0 {
		if err := tap.SealTrace(res.Trace, sealNote); err != nil && !os.IsNotExist(err) {
			res.Notes = append(res.Notes, "cannot end the killed taps' links in the trace: "+err.Error())
		}
	}
	d.readTrace()
	d.readTranscript(db)
	res.Setup, res.Cover = clientcheck.ReadSetup(h.Frames), clientcheck.Cover(h)
	switch {
	case res.Broken != "":
	case d.stalled != "":
		res.Inconclusive = d.stalled
	case res.Setup.Prompts == 0:
		// Nothing sent, nothing inserted: what the user was told proves
		// nothing of the Client's handling of prompts.
		res.Inconclusive = res.Setup.Why()
	default:
		res.Anomalies = clientcheck.Check(h)
	}
	res.History = h
	if res.Setup.Peer.V1 {
		// Judged under v1 (the Agent negotiated it): by text, and
		// without the RFD's key rules, which check-client says once.
		res.V1 = &res.Setup.Peer
	}
	return res
}

// clientDriver plays the user of one seed.
type clientDriver struct {
	c     Config
	env   []string
	res   *Result
	h     *clientcheck.History
	known map[string]bool
	a     *adapterProc
	// initAt is when the trace was first seen to hold an answer to the
	// Client's initialize; ready is set once it showed the Client's session
	// set up; stalled says why the seed ended for want of it.
	initAt  time.Time
	ready   bool
	stalled string
	// attemptsSeen counts, per text, the trace's mentions that are not
	// the pending submission's: those before it was submitted (an earlier
	// submission of its text resent is not its attempt) and those
	// awaitAttempt has seen, so a repeated text waits for its own attempt.
	attemptsSeen map[string]int
}

func (d *clientDriver) run(restartAfter, cancelAfter []time.Duration) {
	var err error
	if d.a, err = startAdapter(d.c.Client, d.env); err != nil {
		d.res.Broken = fmt.Sprintf("cannot start the adapter %q: %v", d.c.Client[0], err)
		return
	}
	defer func() { d.res.Stderr = d.a.stderr.String() }()
	for i, s := range d.h.Subs {
		if restartAfter[i] >= 0 {
			d.attemptsSeen[s.Text] = promptsWith(d.res.Trace, textNeedles(s.Text))
		}
		if !d.send(fmt.Sprintf(`{"submit":%s,"id":%q}`, strconv.Quote(s.Text), s.ID)) {
			return
		}
		if restartAfter[i] >= 0 {
			// The Client is killed only once it sent the submission: it
			// cannot have stored input it never got to (the RFD: it
			// "stores it with the pending input" before the request).
			told, ok := d.awaitAttempt(s, d.c.Settle)
			if ok && !told {
				told, ok = d.await(s.ID, restartAfter[i])
			}
			if !ok {
				return
			}
			if told {
				continue
			}
			d.a.kill()
			d.drain()
			d.res.Restarts++
			next, err := startAdapter(d.c.Client, append(d.env, "ACPSIM_RESTARTED=1"))
			if err != nil { // the killed one stays d.a: its stderr is the seed's
				d.res.Broken = fmt.Sprintf("cannot restart the adapter: %v", err)
				return
			}
			d.a = next
			if !d.send(`{"restart":true}`) {
				return
			}
			if _, ok := d.await(s.ID, d.c.RestartWait); !ok {
				return
			}
			continue
		}
		if cancelAfter[i] >= 0 {
			told, ok := d.cancel(s, cancelAfter[i])
			if !ok {
				return
			}
			if told {
				continue
			}
		}
		told, ok := d.await(s.ID, d.c.Settle)
		if !ok {
			return
		}
		if !told {
			d.res.Notes = append(d.res.Notes, fmt.Sprintf("no outcome of %s within --settle %v", s.ID, d.c.Settle))
		}
	}
	d.a.closeInput()
	end := time.After(d.c.Settle)
	for {
		select {
		case line, open := <-d.a.lines:
			if !open {
				d.a.wait()
				if code := d.a.exitCode(); code != 0 {
					d.res.Broken = fmt.Sprintf("the adapter exited with %s after its input ended, expected 0", d.a.status())
				}
				return
			}
			if !d.line(line) {
				return
			}
		case <-end:
			d.a.abandon()
			d.res.Broken = fmt.Sprintf("the adapter did not exit within --settle %v after its input ended", d.c.Settle)
			return
		}
	}
}

func (d *clientDriver) send(line string) bool {
	if err := d.a.send(line); err != nil {
		d.a.wait()
		d.res.Broken = fmt.Sprintf("the adapter stopped reading its input (%s): %v", d.a.status(), err)
		return false
	}
	return true
}

// await reads the adapter's lines until it tells the outcome of id (true)
// or wait passes (false); ok is false once the seed cannot go on.
func (d *clientDriver) await(id string, wait time.Duration) (told, ok bool) {
	timeout := time.After(wait)
	var stall <-chan time.Time
	if !d.ready && d.c.StartTimeout > 0 {
		poll := time.NewTicker(stallPoll)
		defer poll.Stop()
		stall = poll.C
	}
	before := len(d.h.Told)
	for {
		for _, t := range d.h.Told[before:] {
			if t.ID == id {
				return true, true
			}
		}
		before = len(d.h.Told)
		select {
		case line, open := <-d.a.lines:
			if !open {
				d.a.wait()
				d.res.Broken = fmt.Sprintf("the adapter exited (%s) before telling the outcome of %s", d.a.status(), id)
				return false, false
			}
			if !d.line(line) {
				return false, false
			}
		case <-stall:
			if stage, stuck := d.setupStalled(); stuck {
				d.a.abandon()
				d.stalled = stage
				return false, false
			}
			if d.ready {
				stall = nil
			}
		case <-timeout:
			return false, true
		}
	}
}

// awaitAttempt waits until the Client sent a prompt with s's text (the
// tap's trace shows it), or told its outcome (true).
func (d *clientDriver) awaitAttempt(s clientcheck.Submission, wait time.Duration) (told, ok bool) {
	needles := textNeedles(s.Text)
	for end := time.Now().Add(wait); time.Now().Before(end); {
		if n := promptsWith(d.res.Trace, needles); n > d.attemptsSeen[s.Text] {
			d.attemptsSeen[s.Text] = n
			return false, true
		}
		if !d.ready && d.c.StartTimeout > 0 {
			if stage, stuck := d.setupStalled(); stuck {
				d.a.abandon()
				d.stalled = stage
				return false, false
			}
		}
		if told, ok := d.await(s.ID, 20*time.Millisecond); told || !ok {
			return told, ok
		}
	}
	return false, true
}

// textNeedles are text as a frame inside a trace line holds it: written as
// it is (format 2, a frame that is JSON) or as an escaped string.
func textNeedles(text string) [2]string {
	n := strconv.Quote(strconv.Quote(text))
	return [2]string{strconv.Quote(text), n[1 : len(n)-1]}
}

// promptsWith counts the Client's session/prompt frames in the trace that
// hold one of needles (on its send lines, and in format 1 its deliver and
// drop lines: only a count that grows is read).
func promptsWith(trace string, needles [2]string) int {
	b, err := os.ReadFile(trace)
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"dir":"c2a"`) && strings.Contains(line, "session/prompt") && (strings.Contains(line, needles[0]) || strings.Contains(line, needles[1])) {
			n++
		}
	}
	return n
}

// drain keeps the outcomes a killed adapter printed before it died.
func (d *clientDriver) drain() {
	for line := range d.a.lines {
		if !d.line(line) {
			return
		}
	}
	d.a.wait()
}

// line takes one line the adapter printed: an outcome, its capabilities, or
// a broken contract.
func (d *clientDriver) line(l adapterLine) bool {
	if l.tooLong {
		d.a.abandon()
		d.res.Broken = fmt.Sprintf("adapter stdout line %d: %v, not read further: expected one JSON outcome a line", l.n, proc.ErrLongLine)
		return false
	}
	if cancel, ok := capabilities(l.text); ok {
		d.res.CanCancel = d.res.CanCancel || cancel
		return true
	}
	t, err := parseTold(l.text)
	if err == nil && !d.known[t.ID] {
		err = fmt.Errorf(`"id" %q names no submission acpsim made`, t.ID)
	}
	if err != nil {
		d.a.abandon()
		d.res.Broken = proc.Printable(fmt.Sprintf("adapter stdout line %d: %v: %s", l.n, err, proc.Quote([]byte(l.text))))
		return false
	}
	t.Line = l.n
	d.h.Told = append(d.h.Told, t)
	return true
}

// readTrace collects the frames of the tap's trace, and counts the Agent
// processes and the faults the tap injected.
func (d *clientDriver) readTrace() {
	log, err := traces.ReadFile(d.res.Trace)
	if os.IsNotExist(err) {
		return // the Client never started the Agent
	}
	if err != nil {
		d.res.Notes = append(d.res.Notes, "the tap's trace does not read: "+err.Error())
		return
	}
	for _, e := range log.Events {
		switch e.Kind {
		case traces.KindRestart:
			d.res.Agents++
		case traces.KindKill:
			if e.Note == sealNote {
				continue
			}
			if strings.HasPrefix(e.Note, "cut") {
				d.res.Cuts++
			} else {
				d.res.Kills++
			}
		case traces.KindSend:
			if e.Dir == traces.ClientToAgent && strings.Contains(e.Frame, `"session/prompt"`) {
				d.res.Attempts++
			}
		}
	}
	d.h.Frames = Frames(log.Events)
	d.res.Errors = clientcheck.ErrorAnswers(d.h.Frames)
}

// Frames are the frames of a check-client trace as the Client saw them:
// every frame sent, less an Agent frame the tap dropped (it never reached
// the Client). acpsim judge reads a kept trace with it, as check-client did.
func Frames(events []traces.Event) []clientcheck.Frame {
	var out []clientcheck.Frame
	for _, e := range events {
		switch e.Kind {
		case traces.KindDrop:
			if n := len(out); e.Dir == traces.AgentToClient && n > 0 && string(out[n-1].Bytes) == e.Frame {
				out = out[:n-1]
			}
		case traces.KindSend:
			out = append(out, frameOf(e))
		}
	}
	return out
}

// readTranscript reads the user messages of every session in the Agent's
// store: the final transcript, read after every Agent process is gone.
func (d *clientDriver) readTranscript(db string) {
	if _, err := os.Stat(db); err != nil {
		return
	}
	msgs, err := d.c.ReadStore(db)
	if err != nil {
		d.res.Broken = "cannot read the Agent's store: " + err.Error()
		return
	}
	d.h.Transcript = append(d.h.Transcript, msgs...)
}
