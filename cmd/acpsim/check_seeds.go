// The seeds of one acpsim check: run side by side (--jobs), each with its
// own scratch store and Agent processes, and reported in seed order, so
// that what is printed does not depend on --jobs.

package main

import (
	"fmt"
	"github.com/acpsim/acpsim/actors/acp"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault/realmode/check"
	"github.com/acpsim/acpsim/netfault/realmode/tap"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/users"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/shell"
)

// checkSeed is one seed's verdict.
type checkSeed struct {
	seed   uint64
	res    *check.Result
	report *properties.Report
	trace  string
	// procs Agent processes started; kills of them by SIGKILL; crashes
	// exited on their own while the run still needed them.
	procs, kills, crashes int
	conns, cuts           int // remote
	redrive               func(trace string) string
	// actions is what the seed's action draw gave (nil with --actions off).
	actions *users.ActionDraw
	// wire is what the trace shows each action class did; lint, the
	// frames that break the ACP v2 schema or the RFD's key rules.
	wire map[string]*classUse
	lint seedLint
	took time.Duration // how long the seed ran, for --junit
	// hop is the proxy→Agent hop under --via --record-hop (nil: not asked).
	hop *seedHop
}

// checkOutcome is what running one seed gave: a verdict, or why acpsim
// could not run it at all.
type checkOutcome struct {
	seed checkSeed
	err  error
}

// checkTally is the summary of the seeds reported so far, folded in seed
// order.
type checkTally struct {
	out                  io.Writer
	remote               bool
	traceDir             string
	reported             int
	failed               []checkSeed
	written              []string // the traces of the failing seeds
	kinds                map[string]int
	faults               map[string]*sim.KindCount
	broken, inconclusive int
	// judgedNone are the inconclusive seeds that only judged a property
	// for none of their submissions (Report.Verdict): the run as a whole
	// may still have judged it.
	judgedNone    []uint64
	contracts     contractTally
	accounts      accountTally
	actionClasses []checkClassTotal // nil with --actions off
	lint          lintTally
	v1            string // the v1 line of the first seed judged under v1
	hops          hopTally
	junit         *checkJUnit // nil without --junit
}

// draw, when set, is the base of each seed's user action draw.
func runCheck(cmd *cobra.Command, cfg check.Config, agentWords []string, first uint64, seeds, jobs int, traceDir string, show int, draw *users.Actions) error {
	out := cmd.OutOrStdout()
	defer exitOnInterrupt(cmd.ErrOrStderr(), "check")()
	target := strings.Join(agentWords, " ")
	if via, _ := cmd.Flags().GetString("via"); via != "" {
		target += " via " + via
	}
	if len(cfg.URLs) > 0 {
		target = strings.Join(cfg.URLs, " ")
	}
	mode := ""
	skip := []string{"seeds", "first-seed", "jobs", "trace-dir", "junit", "show", "schedule", "url", "restart", "repeat"}
	t := &checkTally{out: out, remote: len(cfg.URLs) > 0, traceDir: traceDir, kinds: map[string]int{}, faults: map[string]*sim.KindCount{}}
	if path, _ := cmd.Flags().GetString("junit"); path != "" {
		t.junit = &checkJUnit{path: path, target: target}
	}
	if draw != nil {
		mode = " · action classes"
		skip = append(skip, actionFlags...) // each seed's rerun states its own
		for _, c := range users.PresentActionClasses(*draw) {
			t.actionClasses = append(t.actionClasses, checkClassTotal{class: c})
		}
	}
	fmt.Fprintf(out, "checking %q: %d seed(s) from %d · policy %s · %d Client(s) × %d prompts%s\n",
		target, seeds, first, cfg.Policy, cfg.Clients, cfg.Prompts, mode)
	flags := rerunFlags(cmd.Flags(), skip...)
	if repeat, _ := cmd.Flags().GetInt("repeat"); repeat > 0 {
		return runRepeat(cmd, cfg, agentWords, first, repeat, jobs, flags, draw, traceDir)
	}
	start := time.Now()

	// A seed whose Agent is broken (or that cannot be run) stops the run:
	// seeds after it are not started, and only seeds up to it are
	// reported. Seeds are handed out in order, so every seed before the
	// first such one has started and is waited for.
	var stopAt atomic.Int64
	stopAt.Store(int64(seeds))
	stop := func(i int) {
		for {
			cur := stopAt.Load()
			if int64(i) >= cur || stopAt.CompareAndSwap(cur, int64(i)) {
				return
			}
		}
	}
	outcomes := make([]*checkOutcome, seeds) // written by seed i's worker, read after it is done
	done := make([]bool, seeds)              // on this goroutine only
	next, ended, rerunV1 := 0, false, false
	var runErr error
	parallel.ForEach(seeds, jobs, func(i int) {
		if int64(i) > stopAt.Load() {
			return
		}
		s, err := runCheckSeed(cfg, agentWords, first+uint64(i), flags, draw)
		outcomes[i] = &checkOutcome{seed: s, err: err}
		if err != nil || s.res.Broken != nil {
			stop(i)
		}
	}, func(i int) {
		done[i] = true
		for ; !ended && next < seeds && done[next]; next++ {
			o := outcomes[next]
			if o.err == nil && v1Rerun(cfg, o.seed.res) {
				rerunV1, ended = true, true // nothing of this v2 attempt is reported
				break
			}
			if o.err == nil {
				o.err = t.add(&o.seed)
			}
			switch {
			case o.err != nil:
				runErr, ended = o.err, true
				stop(next)
			case o.seed.res.Broken != nil:
				fmt.Fprintf(out, "stopped after seed %d: %s\n", o.seed.seed, brokenStop(o.seed.res.Broken))
				ended = true
			}
		}
	})
	if runErr != nil {
		return runErr
	}
	if rerunV1 {
		fmt.Fprintf(out, "the Agent answered initialize in ACP v1: checking again under v1 (--protocol 1), with Clients that never resend a prompt (policy %s unless --policy says otherwise)\n", checkV1Policy)
		cfg.Protocol = acp.ProtocolV1
		if err := useV1Policy(cmd.Flags(), &cfg); err != nil {
			return err
		}
		if !cmd.Flags().Changed("protocol") {
			_ = cmd.Flags().Set("protocol", "1") // in every rerun command
		}
		draw = v1Actions(cfg, draw)
		return runCheck(cmd, cfg, agentWords, first, seeds, jobs, traceDir, show, draw)
	}
	verdict := t.summary(start, show)
	if err := t.junit.write(); err != nil {
		return err
	}
	return verdict
}

// add reports one seed: its trace written, its verdict line printed, its
// faults and anomalies counted.
func (t *checkTally) add(s *checkSeed) error {
	if err := saveCheckTrace(s, t.traceDir); err != nil {
		return err
	}
	t.reported++
	if s.report != nil && s.report.V1 != "" && t.v1 == "" {
		t.v1, t.lint.v1 = s.report.V1, true
	}
	t.lint.add(s)
	t.hops.add(s)
	t.junit.add(s)
	for _, f := range s.res.Faults {
		if t.faults[f.Kind] == nil {
			t.faults[f.Kind] = &sim.KindCount{Kind: f.Kind}
		}
		t.faults[f.Kind].Asked += f.Asked
		t.faults[f.Kind].Faults += f.Faults
	}
	status := "pass"
	switch {
	case s.res.Broken != nil:
		var v1 bool
		if status, v1 = brokenStatus(s.res.Broken); v1 {
			t.inconclusive++
		} else {
			t.broken++
		}
	case !s.report.OK():
		status = "FAIL: " + strings.Join(anomalyKinds(s.report), ", ")
		for _, k := range anomalyKinds(s.report) {
			t.kinds[k]++
		}
	case s.report.NothingJudged != "":
		status = "inconclusive: nothing judged: " + s.report.NothingJudged
		t.inconclusive++
	case s.report.Inconclusive:
		status = fmt.Sprintf("inconclusive (hit --cap; %d submission(s) not judged)", len(s.report.Unjudged))
		t.inconclusive++
	default:
		if v, line := s.report.Verdict(); v == properties.VerdictInconclusive {
			status = "inconclusive: " + strings.TrimPrefix(line, "INCONCLUSIVE: ")
			t.inconclusive++
			t.judgedNone = append(t.judgedNone, s.seed)
		}
	}
	if s.res.Broken == nil {
		t.accounts.add(s.report)
	}
	if status != "pass" {
		t.failed = append(t.failed, *s)
		if s.trace != "" {
			t.written = append(t.written, s.trace)
		}
	}
	actions := ""
	// A v1 Agent's seed ran no class: it is not counted as one failing.
	if s.actions != nil && (s.res.Broken == nil || !s.res.Broken.Inconclusive()) {
		t.countActions(s.actions.On, s.wire, s.res.Broken != nil, !s.report.OK())
	}
	if s.actions != nil {
		actions = " · actions: none"
		if len(s.actions.On) > 0 {
			actions = " · actions: " + strings.Join(s.actions.On, ", ")
		}
	}
	if s.res.Broken == nil {
		t.contracts.add(s.report.Sessions)
	}
	agents := fmt.Sprintf("%d Agent processes: %d SIGKILLed, %d exited on their own", s.procs, s.kills, s.crashes)
	if t.remote {
		agents = fmt.Sprintf("%d connections, %d broken by the proxy", s.conns, s.cuts)
	}
	fmt.Fprintf(t.out, "seed %d: %s%s%s · %d submissions · %s · %d events · sessions %s\n",
		s.seed, status, hopCause(s), actions, s.report.Stats.Submissions, agents, len(s.res.Log.Events), s.report.Sessions.Chosen)
	return nil
}

// summary prints the totals and the first failing seeds in full, and gives
// the exit code.
func (t *checkTally) summary(start time.Time, show int) error {
	out, failed := t.out, len(t.failed)
	fmt.Fprintf(out, "\n%d seed(s) in %v: %d passed, %d failed, %d broken Agent, %d inconclusive\n",
		t.reported, time.Since(start).Round(time.Millisecond), t.reported-failed, failed-t.broken-t.inconclusive, t.broken, t.inconclusive)
	var ks []string
	for k := range t.kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for _, k := range ks {
		fmt.Fprintf(out, "  %-15s %d seed(s)\n", k, t.kinds[k])
	}
	if len(t.written) > 0 {
		fmt.Fprintf(out, "traces of the failing seeds: %s\n", strings.Join(t.written, " "))
	}
	writeFaults(out, t.faultTally())
	writeCheckActionClasses(out, t.actionClasses)
	t.contracts.write(out)
	if t.v1 != "" {
		fmt.Fprintln(out, "protocol: "+t.v1)
	}
	t.accounts.write(out)
	t.lint.write(out)
	t.hops.write(out)
	for i, s := range t.failed {
		if i == show {
			break
		}
		writeCheckFailure(out, s)
	}
	switch {
	case t.broken > 0 || failed > t.inconclusive:
		return exitError{exitAnomaly}
	case t.inconclusive > len(t.judgedNone) || t.inconclusive > 0 && !t.accounts.judgedSome():
		return exitError{exitInconclusive}
	case t.inconclusive > 0:
		// Seeds whose sessions all ended with their processes (a contract
		// that lets them) judged no submission for never silently lost;
		// the run judged it on the others, and its PASS says how many.
		their := "their"
		if len(t.judgedNone) == 1 {
			their = "its"
		}
		fmt.Fprintf(out, "%s judged none of %s submissions for never silently lost, which the other seeds judged\n", seedList(t.judgedNone), their)
	}
	fmt.Fprintln(out, t.accounts.pass()+notExercisedNote(t.actionClasses)+t.hops.passNote())
	return nil
}

// faultTally lists the fault kinds in the order of check.Faults
// (any other kind after them, by name), not in the order the proxy first
// asked them: that order is the OS's.
func (t *checkTally) faultTally() []sim.KindCount {
	rank := func(kind string) int {
		for i, f := range check.Faults {
			if f.Kind == kind {
				return i
			}
		}
		return len(check.Faults)
	}
	var out []sim.KindCount
	for _, c := range t.faults {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b sim.KindCount) int {
		if ra, rb := rank(a.Kind), rank(b.Kind); ra != rb {
			return ra - rb
		}
		return strings.Compare(a.Kind, b.Kind)
	})
	return out
}

// runCheckSeed runs one seed in a scratch directory of its own ($ACPSIM_STORE
// for its Agent processes) and judges its trace. It touches nothing another
// seed uses, so seeds can run side by side.
// agentWords is the Agent's command as the user gave it (after --), which
// reruns repeat; cfg.Agent is what is started: the proxy's under --via.
// draw, when set, is the base of the seed's user action draw: the actions
// drawn are stated in its rerun command with --actions=off.
func runCheckSeed(cfg check.Config, agentWords []string, seed uint64, flags string, draw *users.Actions) (checkSeed, error) {
	started := time.Now()
	var acts *users.ActionDraw
	if draw != nil {
		d := users.DrawActionsOn(seed, *draw, checkActionOn)
		cfg.Cancels, cfg.Closes, cfg.Forks, cfg.CancelBy = d.Cancels, d.Closes, d.Forks, d.CancelBy
		if d.Timeout > 0 {
			cfg.Timeout = d.Timeout // impatient users
		}
		flags = strings.TrimSpace(flags + " --actions=off" + actionArgs(d.Actions))
		acts = &d
	}
	scratch, err := makeScratch(fmt.Sprintf("acpsim-check-%d-", seed))
	if err != nil {
		return checkSeed{}, err
	}
	defer removeScratch(scratch)
	cfg.Seed = seed
	env := cfg.Env
	if env == nil {
		env = os.Environ()
	}
	cfg.Env = append(slices.Clip(env), storeEnv+"="+scratch)
	cfg.AgentLabel = shell.Join(cfg.Agent)
	target := " -- " + shell.Join(agentWords)
	if len(cfg.URLs) > 0 {
		target = ""
		for _, u := range cfg.URLs {
			target += " --url " + shell.Quote(u)
		}
		if cfg.Restart != "" {
			target += " --restart " + shell.Quote(cfg.Restart)
		}
	}
	if flags != "" {
		flags = " " + flags
	}
	cfg.Command = fmt.Sprintf("acpsim check --first-seed %d --seeds 1%s%s", seed, flags, target)
	if cfg.Hop != nil {
		cfg.HopTrace = filepath.Join(scratch, "hop.ndjson")
	}
	res, err := check.Run(cfg)
	if err != nil {
		return checkSeed{}, err
	}
	s := checkSeed{seed: seed, res: res, report: properties.Check(res.Log.Header, res.Log.Events), actions: acts}
	if cfg.HopTrace != "" {
		if s.hop, err = readSeedHop(cfg.HopTrace, res.Log); err != nil {
			return checkSeed{}, err
		}
	}
	s.wire, s.lint = classesOnWire(res.Log.Events), lintSeed(res.Log.Events)
	s.took = time.Since(started)
	s.redrive = func(trace string) string {
		return fmt.Sprintf("acpsim check --schedule %s%s%s", shell.Quote(trace), flags, target)
	}
	for _, e := range res.Log.Events {
		if e.Kind == traces.KindConnect && e.From != traces.Observer {
			s.conns++
		}
		if e.Kind == traces.KindDisconnect && (e.Note == "cut" || e.Note == "kill") {
			s.cuts++
		}
		if !strings.HasPrefix(e.From, tap.AgentName+"#") {
			continue
		}
		switch {
		case e.Kind == traces.KindRestart:
			s.procs++
		case e.Kind == traces.KindKill && strings.HasPrefix(e.Note, "SIGKILL"):
			s.kills++
		case e.Kind == traces.KindKill && !strings.HasPrefix(e.Note, "exited: exit status 0"):
			s.crashes++
		}
	}
	return s, nil
}

// saveCheckTrace writes s's trace to traceDir as check-seed-N.ndjson, or
// for a failing seed to acpsim-failures/check-RUNID-seed-N.ndjson; never
// over a file that exists (a -2, -3, … suffix then), so neither an earlier
// run's traces nor the --schedule being re-driven are overwritten. It runs
// as the seed is reported, so a seed after the one that stopped the run
// leaves no file.
func saveCheckTrace(s *checkSeed, traceDir string) error {
	verdict, _ := s.report.Verdict()
	failing := s.res.Broken != nil || verdict != properties.VerdictPass || s.lint.frames > 0 || hopCause(s) != "" // lint and the hop need the file
	var f *os.File
	var err error
	switch {
	case traceDir != "":
		f, err = createNew(traceDir, fmt.Sprintf("check-seed-%d", s.seed))
	case failing:
		f, err = createNew(failuresDir, failureName("check", fmt.Sprintf("seed-%d", s.seed)))
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("writing seed %d's trace: %v", s.seed, err)
	}
	s.trace = f.Name()
	if err := writeTrace(f, s.res.Log); err != nil {
		return err
	}
	return saveHopTrace(s)
}

// countActions adds a seed's action classes to the summary's lines.
func (t *checkTally) countActions(on []string, wire map[string]*classUse, broken, failed bool) {
	for i := range t.actionClasses {
		if c := &t.actionClasses[i]; slices.Contains(on, c.class) {
			c.add(wire[c.class], broken || failed, broken)
		}
	}
}
