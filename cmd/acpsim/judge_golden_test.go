package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpsim/acpsim/sim/bench"
	"github.com/acpsim/acpsim/sim/mutation"
	"github.com/acpsim/acpsim/traces"
	"github.com/acpsim/acpsim/traces/golden"
)

var updateJudgeGolden = flag.Bool("update-judge-golden", false, "rewrite testdata/judge-hashes.txt from this build")

// judgeRun is one trace and how it is judged: the `acpsim run` flags that
// write it (or a generated bench history when bench is set), and the flags
// given to `acpsim judge`.
type judgeRun struct {
	name  string
	run   []string
	judge []string
	bench *bench.Config
}

// judgeGoldenRuns are the traces whose judge reports are pinned: every
// policy on every link, fault rates raised, each mutant at its first dozen
// seeds (where they are caught), the Agent variants, runs that hit the cap,
// the session contract forced either way, and generated bench histories.
// A change of the checker that claims the same verdicts must leave every
// hash as it is.
func judgeGoldenRuns() []judgeRun {
	var runs []judgeRun
	add := func(name string, judge []string, args ...string) {
		runs = append(runs, judgeRun{name: name, run: args, judge: judge})
	}
	for _, link := range []string{"stdio", "http", "ws"} {
		for _, policy := range []string{"none", "naive", "keyed", "bounded", "stale", "lookup"} {
			for seed := 1; seed <= 3; seed++ {
				add(fmt.Sprintf("%s/%s/%d", link, policy, seed), nil, "--seed", fmt.Sprint(seed), "--link", link, "--policy", policy)
			}
			add(fmt.Sprintf("%s/%s/rough", link, policy), nil, "--seed", "4", "--link", link, "--policy", policy,
				"--cancels", "2", "--closes", "1", "--forks", "1", "--fault-rates", "cut=0.03,kill=0.03,reject=0.1,delay=0.1,client-restart=0.01")
		}
	}
	add("mixed/1", nil, "--seed", "1", "--link", "mixed", "--clients", "3")
	for _, m := range mutation.All() {
		for seed := 1; seed <= 12; seed++ {
			add(fmt.Sprintf("mutant/%s/%s/%d", m.Actor, m.Name, seed), nil, append([]string{"--seed", fmt.Sprint(seed)}, m.Setup.Flags()...)...)
		}
	}
	for seed := 1; seed <= 3; seed++ {
		s := fmt.Sprint(seed)
		add("adapter/"+s, nil, "--seed", s, "--agent", "adapter")
		add("retain/"+s, nil, "--seed", s, "--retain", "3", "--prompts", "12")
		add("live-only/"+s, nil, "--seed", s, "--live-only", "/", "--cancels", "1")
		add("nodes-http/"+s, nil, "--seed", s, "--link", "http", "--nodes", "3")
		add("nodes-ws-memory/"+s, nil, "--seed", s, "--link", "ws", "--nodes", "3", "--keys", "memory")
		add("sessions-in-memory/"+s, nil, "--seed", s, "--sessions-in", "memory")
		add("proxies/"+s, nil, "--seed", s, "--proxies", "2")
		add("fresh-connection/"+s, nil, "--seed", s, "--link", "ws", "--fresh-connection")
		add("cap/"+s, nil, "--seed", s, "--timeout", "1ns", "--prompts", "3")
		add("durable/"+s, []string{"--session-contract", "durable"}, "--seed", s, "--sessions-in", "memory")
		add("process/"+s, []string{"--session-contract", "process"}, "--seed", s)
	}
	// Cut in chaos at the event budget: the heal and the observer still run
	// (a plain run of 2,000 prompts is no longer cut: the cap grows with
	// the prompts; ignore-key inserting every retry of a 3 ms timeout is).
	add("cap-chaos/1", nil, "--seed", "1", "--agent", "ignore-key", "--timeout", "3ms", "--prompts", "2000")
	for _, dups := range []int{0, 2} {
		cfg := bench.Defaults(3000)
		cfg.Duplicates = dups
		runs = append(runs, judgeRun{name: fmt.Sprintf("bench/3000/dups=%d", dups), bench: &cfg})
	}
	return runs
}

// judgeReport writes r's trace into the current directory as t.ndjson and
// returns the exit code and output of `acpsim judge` on it.
func judgeReport(t *testing.T, r judgeRun) string {
	t.Helper()
	const path = "t.ndjson"
	if r.bench != nil {
		h := bench.Generate(*r.bench)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := traces.NewWriter(f)
		if err := w.WriteHeader(h.Header); err != nil {
			t.Fatal(err)
		}
		for i := range h.Events {
			if err := w.WriteEvent(&h.Events[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	} else if code, out, errOut := run(t, append([]string{"run", "--trace", path}, r.run...)...); code == exitUsage {
		t.Fatalf("%s: run %v: exit %d\n%s%s", r.name, r.run, code, out, errOut)
	}
	code, out, errOut := run(t, append(append([]string{"judge"}, r.judge...), path)...)
	return fmt.Sprintf("exit %d\n%s%s", code, out, errOut)
}

// TestJudgeReportsMatchTheRecordedHashes pins the judge's report, byte for
// byte, on every trace of judgeGoldenRuns. Re-pinned in the eleventh session
// when a failing verdict's footer gained its "events: acpsim events …"
// line: with that line taken out, every report was the recorded one (the
// 271 failing ones changed, no other).
func TestJudgeReportsMatchTheRecordedHashes(t *testing.T) {
	file, err := filepath.Abs("testdata/judge-hashes.txt")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	var entries []golden.Entry
	for _, r := range judgeGoldenRuns() {
		entries = append(entries, golden.Entry{Name: r.name, Bytes: []byte(judgeReport(t, r))})
	}
	golden.Compare(t, file, "update-judge-golden", "judge report", *updateJudgeGolden, entries)
}
