package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/check"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/acpsim/acpsim/traces"
)

func newJudgeCmd() *cobra.Command {
	var contract string
	cmd := &cobra.Command{
		Use:   "judge TRACE",
		Short: "Check a trace file with the property checkers and print the verdict",
		Long: `Read a trace (ndjson, as run --trace writes it) and judge it from its frames
alone, as a stream: memory grows with the trace's submissions and sessions,
not its length. A malformed trace is rejected with file:line and what was
expected. On a terminal a bar on stderr shows how much of the file is read.

A trace acpsim check-client kept (acpsim-failures/check-client-…-seed-N.ndjson)
has NAME.client.json beside it: the user's submissions, what the user was
told and the Agent's final transcript. With it judge also judges the Client
as check-client did (duplicate, lost, phantom, unresolved, wrong-id, and its
keys), so a failing seed's verdict comes back from the files alone. A trace
acpsim check --via kept has NAME.hop.ndjson beside it, the proxy→Agent hop:
judge pairs the two hops and names what the proxy did before the report,
as check did.`,
		Example: "  acpsim judge a.ndjson\n  acpsim judge --session-contract durable a.ndjson",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var progress io.Writer
			if isatty.IsTerminal(os.Stderr.Fd()) {
				progress = os.Stderr
			}
			h, rep, events, err := judgeFile(args[0], contract, progress)
			if err != nil {
				return err
			}
			// A trace check-client kept has its user side beside it, one
			// check --via kept its hop: either is judged with the trace's
			// events, read once more here (such traces are a seed's).
			rec, err := readClientRecord(args[0])
			if err != nil {
				return err
			}
			_, hopErr := os.Stat(hopTraceBeside(args[0]))
			var outer *traces.Log
			if rec != nil || hopErr == nil {
				if outer, err = readTrace(args[0]); err != nil {
					return err
				}
			}
			var hopped *seedHop
			if hopErr == nil {
				if hopped, err = hopBeside(args[0], outer); err != nil {
					return err
				}
			}
			out := cmd.OutOrStdout()
			seed := fmt.Sprintf("seed %d · policy %s", h.Seed, h.Policy)
			if rec != nil {
				seed = fmt.Sprintf("check-client seed %d", rec.Seed) // a tap's header knows no seed
			}
			fmt.Fprintf(out, "%s · %s · agent %s · %d events\n\n", args[0], seed, h.Agent, events)
			if hopped != nil {
				writeHop(out, hopped) // the cause, before the symptom
				fmt.Fprintln(out)
			}
			shown, fromRecord := rec.judgesWhatTheTapCannot(rep)
			shown.WriteText(out)
			if len(fromRecord) > 0 {
				fmt.Fprintf(out, "judged from %s, below: %s (check-client judges none of the others)\n", clientRecordPath(args[0]), strings.Join(fromRecord, ", "))
			}
			fmt.Fprintln(out)
			if rec != nil {
				j := judgeClientRecord(out, args[0], rec, outer.Events)
				fmt.Fprintln(out)
				switch code, done := j.verdict(out, args[0], rec.Rerun, rep); {
				case done && code != 0:
					return exitError{code}
				case done:
					return nil
				}
			}
			note := proxyNote(findingKinds(hopped.firstFindings()))
			return verdict(out, rep, reproduceCommand(h, args[0]), func() string { return args[0] }, note)
		},
	}
	cmd.Flags().StringVar(&contract, "session-contract", "", sessionContractDoc+"; empty: as the trace header says")
	return cmd
}

// judgeFile judges the trace at path as it reads it, one event at a time,
// holding the Agent to contract when it is not "" (the header's otherwise).
// It returns the header, the report and how many events the trace has. A
// malformed trace is told before a bad contract, as when the whole file was
// read first. With progress not nil, a bar of the bytes read is drawn there
// (a trace of a million submissions takes most of a minute) and cleared at
// the end.
func judgeFile(path, contract string, progress io.Writer) (traces.Header, *properties.Report, int64, error) {
	var contractErr error
	if contract != "" {
		if err := traces.CheckSessionContract(contract); err != nil {
			contractErr = fmt.Errorf("--session-contract: %v", err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return traces.Header{}, nil, 0, err
	}
	defer f.Close()
	fi, statErr := f.Stat()
	if statErr == nil && fi.IsDir() {
		return traces.Header{}, nil, 0, &traces.ReadError{Name: path, Msg: "is a directory, expected a trace file"}
	}
	var r io.Reader = f
	if statErr == nil && progress != nil {
		bar := progressbar.NewOptions64(fi.Size(), progressbar.OptionSetWriter(progress),
			progressbar.OptionSetDescription("judging"), progressbar.OptionShowBytes(true),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish())
		defer bar.Finish()
		pr := progressbar.NewReader(f, bar)
		r = &pr
	}
	d := traces.NewDecoder(r, path)
	d.Checks = traceChecks()
	h, err := d.Header()
	if err != nil {
		return h, nil, 0, err
	}
	if contract != "" {
		h.Contract.Sessions = contract
	}
	// The checker's tables sized from the file, not grown from empty as
	// the trace is read (with an ended link's queues let go, 6% less CPU
	// judging 100,000 submissions, in pairs). The ids' maps are left to
	// grow: sized ahead they held more memory for no time.
	var events int
	if statErr == nil && fi.Mode().IsRegular() {
		events = traces.EstimateEvents(f, fi.Size())
	}
	c := properties.NewCheckerSized(h, events)
	full, free := decodeAhead(d)
	for {
		b := <-full // decodeAhead's last batch carries the error that ends the trace
		if contractErr == nil {
			for i := range b.events {
				c.Add(&b.events[i])
			}
		}
		err := b.err
		free <- b
		switch err {
		case nil:
		case io.EOF:
			if contractErr != nil {
				return h, nil, 0, contractErr
			}
			return h, c.Finish(), d.Events(), nil
		default:
			return h, nil, 0, err
		}
	}
}

// eventBatch is events decoded in a row; err, on the last batch only, is
// what ended the trace (io.EOF when it ended cleanly).
type eventBatch struct {
	events []traces.Event
	err    error
}

// decodeAhead decodes d's events on a goroutine of its own, a batch at a
// time, while the caller checks the batch before: reading a trace is two
// thirds of judging it, and the two then run on two cores. Batches come in
// order on full, the caller hands each back on free, and only three are
// ever allocated, so memory stays bounded by three batches of lines. The
// goroutine ends after the batch that carries an error (io.EOF at the
// end): the caller must read full up to it, and nothing after.
func decodeAhead(d *traces.Decoder) (full <-chan *eventBatch, free chan<- *eventBatch) {
	const batches, size = 3, 256
	fullc, freec := make(chan *eventBatch, batches), make(chan *eventBatch, batches)
	for range batches {
		freec <- &eventBatch{events: make([]traces.Event, 0, size)}
	}
	go func() {
		for {
			b := <-freec
			b.events = b.events[:0]
			for len(b.events) < size {
				b.events = append(b.events, traces.Event{})
				if err := d.Next(&b.events[len(b.events)-1]); err != nil {
					b.events, b.err = b.events[:len(b.events)-1], err
					fullc <- b
					return
				}
			}
			fullc <- b
		}
	}()
	return fullc, freec
}

// readTrace reads the trace at path whole, held to what the tool that made
// it accepts (traceChecks).
func readTrace(path string) (*traces.Log, error) {
	return traces.ReadFileChecked(path, traceChecks())
}

// traceChecks hold a trace's header to the flags it stands for and its
// recorded faults to the fault table of the tool that made it: acpsim
// check's for a real Agent's trace, the simulator's otherwise.
func traceChecks() traces.Checks {
	return world.TraceChecks(func(h *traces.Header) []netfault.Fault {
		if world.OfRealAgent(h) {
			return check.Faults
		}
		return netfault.Faults
	})
}
