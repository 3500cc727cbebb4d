package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/traces"
)

func newEventsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "events TRACE [SEQ | FROM-TO | FROM-]...",
		Short: "Print a trace's events by their numbers, each whole on a line: what a report's \"events 34, 35\" names",
		Long: `Print the events of a trace a report cites ("events 34, 35, 36"), or a
range of them, one JSON object a line, each whole: its seq, its link, ends
and direction, its frame written out (a JSON value under "msg", or an escaped
string under "frame" for bytes that are not JSON) and, for a delivery or a
drop in a format-2 trace, the seq of the send it delivers. Format 2 leaves most of that out of
the file itself (an event's seq is its line's number less one; a delivery
names its send instead of repeating the frame), so a line of the file may
not read alone; these do, and jq reads them.

With no numbers, every event is printed. A number past the trace's last
event (a range's end, an open range's start) is an error, after the ones
that exist are printed. The trace is read to its end, so one with a line
removed or added is refused there, as acpsim judge refuses it.

Exit codes: 0 printed, 2 bad usage or a trace that cannot be read
(reported as file:line: what was expected).`,
		Example: `  acpsim events run.ndjson 34 35 36
  acpsim events run.ndjson 100-120
  acpsim events run.ndjson 400- | jq -c 'select(.kind=="send") | .msg.method'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sel, err := parseEventSelection(args[1:])
			if err != nil {
				return err
			}
			return printEvents(cmd.OutOrStdout(), args[0], sel)
		},
	}
}

// eventRange is FROM-TO, inclusive; TO is 0 for no end.
type eventRange struct{ from, to int64 }

// eventSelection is the events asked for: all of them when empty.
type eventSelection []eventRange

// parseEventSelection reads the numbers and ranges of acpsim events.
func parseEventSelection(args []string) (eventSelection, error) {
	var sel eventSelection
	for _, a := range args {
		from, to, isRange := strings.Cut(a, "-")
		r := eventRange{}
		var err error
		switch r.from, err = eventNumber(from); {
		case err != nil && !isRange:
			err = errors.New("not an event's number")
		case err != nil:
		case !isRange:
			r.to = r.from
		case to == "":
		default:
			if r.to, err = eventNumber(to); err == nil && r.to < r.from {
				err = errors.New("the range ends before it starts")
			}
		}
		if err != nil {
			return nil, fmt.Errorf("%q: %v; expected an event's number (34), a range (30-40) or a range to the end (400-)", a, err)
		}
		sel = append(sel, r)
	}
	return sel, nil
}

// eventNumber reads an event's number: its seq, from 1.
func eventNumber(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%q is not an event's number", s)
	}
	return n, nil
}

// has says whether event seq is asked for.
func (sel eventSelection) has(seq int64) bool {
	if len(sel) == 0 {
		return true
	}
	for _, r := range sel {
		if seq >= r.from && (r.to == 0 || seq <= r.to) {
			return true
		}
	}
	return false
}

// need is the highest event a number asks for: a range's end, an open
// range's start.
func (sel eventSelection) need() int64 {
	need := int64(0)
	for _, r := range sel {
		need = max(need, r.from, r.to)
	}
	return need
}

// printEvents streams the trace at path and prints the events sel asks for.
// It reads the trace to its end, even past the last event asked, so that a
// trace with a line removed or added is refused (at its end event) rather
// than printed as other events.
func printEvents(w io.Writer, path string, sel eventSelection) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	d := traces.NewDecoder(f, path)
	d.Checks = traceChecks()
	if _, err := d.Header(); err != nil {
		return err
	}
	out := bufio.NewWriter(w)
	var e traces.Event
	var line []byte
	for {
		if err := d.Next(&e); err == io.EOF {
			break
		} else if err != nil {
			out.Flush()
			return err
		}
		if sel.has(e.Seq) {
			line = append(traces.AppendEventWhole(line[:0], &e), '\n')
			if _, err := out.Write(line); err != nil {
				return err
			}
		}
	}
	if err := out.Flush(); err != nil {
		return err
	}
	if need := sel.need(); d.Events() < need {
		return fmt.Errorf("%s has %d events: event %d is past its end", path, d.Events(), need)
	}
	return nil
}
