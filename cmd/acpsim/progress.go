package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
)

// progressEvery is how often a long command says how far it is when stderr
// is not a terminal (a CI log, a file, a pipe). A variable for the test.
var progressEvery = 10 * time.Second

// progress shows how far a long command (swarm, explore, matrix, mutants) is,
// on stderr and never on stdout, whose report stays the same for any --jobs.
// On a terminal it is a bar redrawn in place; elsewhere a bar cannot be
// redrawn, and minutes of silence look like a hang, so it prints a line
// every progressEvery: "acpsim matrix: seeds: 340 of 1800 runs (18%) after
// 1m10s". The wall clock is read here, in the command, never inside a run.
type progress struct {
	bar *progressbar.ProgressBar // on a terminal; nil otherwise

	w           io.Writer // for the lines, when bar is nil
	name, units string    // "acpsim matrix", "runs"
	desc        string
	done, total int
	about       bool // total is an estimate
	start, next time.Time
	now         func() time.Time
}

// newProgress shows the progress of name over total units. errOut is the
// command's stderr: the lines go there when os.Stderr is not a terminal.
func newProgress(errOut io.Writer, name, desc, units string, total int) *progress {
	p := &progress{w: errOut, name: name, desc: desc, units: units, total: total, now: time.Now}
	if isatty.IsTerminal(os.Stderr.Fd()) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription(desc), progressbar.OptionShowCount(), progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(units), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	p.start = p.now()
	p.next = p.start.Add(progressEvery)
	return p
}

// Describe changes what the units are of ("seeds (3 failed)").
func (p *progress) Describe(desc string) {
	p.desc = desc
	if p.bar != nil {
		p.bar.Describe(desc)
	}
}

// Estimate changes the total to an estimate (explore's schedules).
func (p *progress) Estimate(total int) {
	p.total, p.about = total, true
	if p.bar != nil {
		p.bar.ChangeMax(total)
	}
}

// Set records that done units are done, and prints a line when one is due.
func (p *progress) Set(done int) {
	p.done = done
	if p.bar != nil {
		_ = p.bar.Set(done)
		return
	}
	if now := p.now(); !now.Before(p.next) {
		// The next line is due at the next multiple of progressEvery, however
		// long this one was in coming.
		p.next = p.next.Add((now.Sub(p.next)/progressEvery + 1) * progressEvery)
		p.line(now)
	}
}

func (p *progress) line(now time.Time) {
	of := "of"
	if p.about {
		of = "of about"
	}
	pct := ""
	if p.total > 0 {
		pct = fmt.Sprintf(" (%d%%)", 100*p.done/p.total)
	}
	fmt.Fprintf(p.w, "%s: %s: %d %s %d %s%s after %s\n", p.name, p.desc, p.done, of, p.total, p.units, pct, now.Sub(p.start).Round(time.Second))
}

// Finish clears the bar; the lines need no end.
func (p *progress) Finish() {
	if p.bar != nil {
		_ = p.bar.Finish()
	}
}
