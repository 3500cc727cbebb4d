package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// Off a terminal, progress is a line every ten seconds however often it is
// told, each saying how far and how long; nothing before the first ten.
func TestProgressPrintsALineEveryTenSecondsOffATerminal(t *testing.T) {
	var out bytes.Buffer
	clock := time.Unix(0, 0)
	p := &progress{w: &out, name: "acpsim matrix", desc: "seeds", units: "runs", total: 1800,
		now: func() time.Time { return clock }}
	p.start, p.next = clock, clock.Add(progressEvery)
	for done := 1; done <= 300; done++ {
		clock = clock.Add(100 * time.Millisecond) // 30 s in all
		p.Set(done)
	}
	p.Estimate(2000)
	clock = clock.Add(25 * time.Second) // one line, not two, after a long wait
	p.Set(301)
	want := "acpsim matrix: seeds: 100 of 1800 runs (5%) after 10s\n" +
		"acpsim matrix: seeds: 200 of 1800 runs (11%) after 20s\n" +
		"acpsim matrix: seeds: 300 of 1800 runs (16%) after 30s\n" +
		"acpsim matrix: seeds: 301 of about 2000 runs (15%) after 55s\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// The commands that can run for minutes print those lines on their stderr
// when it is not a terminal (here a buffer), never on stdout. Not
// parallel: it shortens progressEvery for its own runs.
func TestLongCommandsReportProgressOffATerminal(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		args []string
		line string
	}{
		{[]string{"swarm", "--seeds", "30"}, "acpsim swarm: seeds"},
		{[]string{"explore", "--prompts", "1", "--faults", "1"}, "acpsim explore: schedules: "},
		{[]string{"matrix", "--seeds", "2", "--links", "stdio", "--policies", "keyed"}, "acpsim matrix: seeds: "},
		{[]string{"mutants", "--runs", "1", "memory-keys"}, "acpsim mutants: mutant runs: "},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			progressEvery = time.Nanosecond
			defer func() { progressEvery = 10 * time.Second }()
			_, out, errOut := run(t, tc.args...)
			if !strings.Contains(errOut, tc.line) || !strings.Contains(errOut, " after ") {
				t.Errorf("stderr has no progress line %q:\n%s", tc.line, errOut)
			}
			if strings.Contains(out, tc.line) {
				t.Errorf("a progress line on stdout:\n%s", out)
			}
		})
	}
}
