package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/traces/view"
)

func newViewCmd() *cobra.Command {
	var out string
	var all bool
	var maxEvents int
	cmd := &cobra.Command{
		Use:   "view [flags] TRACE",
		Short: "Write a trace as one self-contained HTML page: a sequence diagram with the anomalies marked",
		Long: `Read a trace (ndjson, as run --trace writes it) and write one HTML page that
needs no network: a lane per Client, per link and per Agent process, frames as
arrows from sender to receiver (a dropped frame ends in a cross on its link),
faults, kills and restarts on their lanes, each submission's life coloured by
its outcome with its retries grouped by key, and the anomalies the checker
finds marked on the events they cite (click an event or an anomaly for the
full text).

A trace longer than --max-events is cut to the window around the first
anomaly's events; the page says what was cut.

Exit codes: 0 the page was written (whatever the verdict), 2 bad usage or a
trace that cannot be read (reported as file:line: what was expected).`,
		Example: `  acpsim view seed1.ndjson -o run.html
  acpsim view --all acpsim-failures/run-20261204T152824-seed-16.ndjson -o seed16.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxEvents < 0 {
				return fmt.Errorf("--max-events %d: expected 0 (no cap) or more", maxEvents)
			}
			if all {
				maxEvents = 0
			}
			if out == "" {
				out = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + ".html"
			}
			if filepath.Clean(out) == filepath.Clean(args[0]) {
				return fmt.Errorf("-o %s: is the trace itself; name another file", out)
			}
			if err := checkOutput(out); err != nil {
				return err
			}
			log, err := readTrace(args[0])
			if err != nil {
				return err
			}
			var page bytes.Buffer
			sum, err := view.Render(&page, log, view.Options{Name: filepath.Base(args[0]), MaxEvents: maxEvents, Reproduce: reproduceCommand(log.Header, args[0])})
			if err != nil {
				return err
			}
			if out == "-" {
				_, err := cmd.OutOrStdout().Write(page.Bytes())
				return err
			}
			if err := os.WriteFile(out, page.Bytes(), 0o644); err != nil {
				return fmt.Errorf("-o %s: %v", out, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s: %d of %d events of %s; %s\n", out, sum.Shown, sum.Total, args[0], sum.Verdict)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", `the HTML file to write (default: TRACE with .html for its extension; "-" for stdout)`)
	cmd.Flags().BoolVar(&all, "all", false, "show every event, however long the trace (same as --max-events 0)")
	cmd.Flags().IntVar(&maxEvents, "max-events", view.DefaultMaxEvents, "show at most N events: a longer trace is cut to the window around the first anomaly (0: no cap)")
	return cmd
}

// checkOutput refuses an output path that cannot be written before the trace
// is read: its directory is missing or is not one, or the path is a directory.
func checkOutput(out string) error {
	if out == "-" {
		return nil
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return fmt.Errorf("-o %s: is a directory, expected an HTML file name", out)
	}
	dir := filepath.Dir(out)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-o %s: directory %s does not exist", out, dir)
	case err != nil:
		return fmt.Errorf("-o %s: %v", out, err)
	case !fi.IsDir():
		return fmt.Errorf("-o %s: %s is not a directory", out, dir)
	}
	return nil
}
