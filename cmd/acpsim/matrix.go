package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/sim/design"
	"github.com/acpsim/acpsim/sim/matrix"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/sim/world"
)

// matrixDefaultSeeds is --seeds' default. The default matrix has 144 rows
// (6 policies × 24 designs and links); --seeds 1000 took 540 CPU-seconds
// (144,000 seeds and 330 shrinks; 15 minutes on a two-core machine shared
// with other work, about 4½ on two idle cores), --seeds 200 about 235
// (about 2 minutes on two idle cores). Shrinking costs about 160 of them
// whatever the seeds.
const matrixDefaultSeeds = 200

func newMatrixCmd() *cobra.Command {
	var seeds, jobs, shrinkN int
	var first uint64
	var policies, designs, links []string
	var format, plot, traceDir string
	var prompts, sessions, clients int
	var timeout time.Duration
	var faults string
	var custom designFlags
	var alternatives, statusQuo bool
	cmd := &cobra.Command{
		Use:   "matrix",
		Short: "Every Client policy against every Agent design over each link: anomaly fractions and shortest counterexamples",
		Long: `Run the same seeds (--first-seed … --first-seed+--seeds-1) for every Client
retry policy against every Agent design that matters for retry semantics,
over each link, and print a table per link: rows policy × Agent design,
columns the anomaly kinds (README.md#what-is-checked) and "any", each cell the fraction of
seeds that showed the kind ("·" for none).

For each failing cell, its --shrink smallest failing seeds (fewest faults,
then events) are shrunk for the cell's kind (as acpsim shrink does) and the
smallest result is its counterexample: the command that reruns the whole seed and, with --traces
DIR, the small trace and the acpsim replay command that reruns it as shrunk.

Every seed runs at the base fault rates (--fault-rates over the defaults; no
per-seed fault classes), so a cell's rerun command is an ordinary acpsim run.
Seeds run on every core (--jobs); the output is the same for every --jobs.
The designs (--designs) are listed with their flags and why each is in after
the tables; acpsim run reproduces each with those flags.

--alternatives and --status-quo run named rows instead of the product: the
RFD's alternatives, or ACP v1 (no key, the status quo) with today's Clients
beside v2 with the RFD; each row with what it costs and the passage of the
RFD it measures.

Exit codes: 0 the matrix ran (failing cells are its result, not an error),
2 bad usage.`,
		Example: `  acpsim matrix
  acpsim matrix --seeds 1000 --traces matrix-traces
  acpsim matrix --seeds 50 --links stdio --policies naive,keyed --format md
  acpsim matrix --format json > matrix.json
  acpsim matrix --plot matrix.svg
  acpsim matrix --alternatives --seeds 100
  acpsim matrix --status-quo --seeds 200 --format md`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer parallel.TuneGC()() // many seeds, each a small heap
			mine, err := custom.all()
			if err != nil {
				return err
			}
			if len(mine) > 0 && !cmd.Flags().Changed("designs") {
				designs = []string{"reference"} // the control beside yours
			}
			mc, err := matrixConfig(policies, designs, links)
			if err != nil {
				return err
			}
			var preset *matrix.Preset
			for i, on := range []bool{alternatives, statusQuo} {
				if !on {
					continue
				}
				if preset != nil {
					return fmt.Errorf("--%s and --%s: each runs its own rows; give one", preset.Flag, matrix.Presets[i].Flag)
				}
				preset = &matrix.Presets[i]
			}
			if preset != nil {
				for _, f := range []string{"policies", "designs", "design", "design-file"} {
					if cmd.Flags().Changed(f) {
						return fmt.Errorf("--%s runs its own rows; --%s picks rows of a product matrix: give one or the other", preset.Flag, f)
					}
				}
				mc.Pairs, mine = preset.Pairs(), nil
			}
			for _, d := range mine {
				if _, clash := matrix.LookupDesign(d.Name); clash && slices.Contains(designs, d.Name) {
					continue // a built-in named again with --design
				}
				mc.Designs = append(mc.Designs, d)
			}
			if format != "text" && format != "md" && format != "json" {
				return fmt.Errorf("--format %q: expected text, md or json", format)
			}
			if plot != "" && !strings.EqualFold(filepath.Ext(plot), ".svg") {
				return fmt.Errorf("--plot %s: only SVG is written (FILE.svg); convert it, e.g. rsvg-convert -o matrix.png %s", plot, plot)
			}
			if jobs, err = resolveJobs(jobs, 0); err != nil {
				return err
			}
			base := world.DefaultConfig()
			base.Prompts, base.Sessions, base.Clients, base.Timeout = prompts, sessions, clients, timeout
			mc.Base, mc.FaultRates = base, faults
			mc.Flags = strings.Fields(rerunFlags(cmd.Flags(), "seeds", "first-seed", "jobs", "policies", "designs", "design", "design-file", "alternatives", "status-quo", "links", "format", "plot", "traces", "shrink"))
			mc.Bin = binName()
			mc.FirstSeed, mc.Seeds, mc.Jobs, mc.Shrink, mc.TraceDir = first, seeds, jobs, shrinkN, traceDir
			var bar *progress
			var phase string
			var phases []string // "seeds 1m2s", "shrink 10s" for the closing line
			start := time.Now()
			at := start
			mc.Progress = func(p string, done, total int) {
				if p != phase {
					if phase != "" {
						phases = append(phases, fmt.Sprintf("%s %v", phase, time.Since(at).Round(time.Millisecond)))
						at = time.Now()
					}
					if bar != nil {
						bar.Finish()
					}
					phase = p
					bar = newProgress(cmd.ErrOrStderr(), "acpsim matrix", p, "runs", total)
				}
				bar.Set(done)
			}
			rep, err := matrix.Run(mc)
			if bar != nil {
				bar.Finish()
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			switch {
			case preset != nil && format != "json":
				err = rep.WritePreset(out, *preset, format == "md")
			case format == "md":
				err = rep.WriteMarkdown(out)
			case format == "json":
				err = rep.WriteJSON(out)
			default:
				err = rep.WriteText(out)
			}
			if err != nil {
				return err
			}
			if plot != "" {
				if err := writeMatrixPlot(plot, rep); err != nil {
					return err
				}
			}
			if phase != "" {
				phases = append(phases, fmt.Sprintf("%s %v", phase, time.Since(at).Round(time.Millisecond)))
			}
			took := time.Since(start)
			fmt.Fprintf(cmd.ErrOrStderr(), "matrix: %d rows × %d seeds in %v (%s; %.0f seeds/s on %d jobs)\n",
				len(rep.Rows), rep.Seeds, took.Round(time.Millisecond), strings.Join(phases, ", "), float64(len(rep.Rows)*rep.Seeds)/took.Seconds(), jobs)
			return nil
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&seeds, "seeds", matrixDefaultSeeds, "seeds per row (policy × design × link)")
	fs.Uint64Var(&first, "first-seed", 1, "first seed")
	registerJobs(fs, &jobs, "seeds")
	fs.StringSliceVar(&policies, "policies", matrix.Policies(), "Client policies (NAME:PARAM=VALUE:…), rows in this order (acpsim knobs)")
	custom.register(fs, true)
	fs.BoolVar(&alternatives, "alternatives", false, "rows: the RFD's alternatives (each a policy with a design), with their costs and RFD passages")
	fs.BoolVar(&statusQuo, "status-quo", false, "rows: ACP v1 with today's Clients beside v2 with the RFD, on the same seeds")
	fs.StringSliceVar(&designs, "designs", matrixDesignNames(), "Agent designs, rows in this order (default: all; listed with their flags after the tables)")
	fs.Lookup("designs").DefValue = "[]" // all: the list is in the output, and too long for one line of --help
	fs.StringSliceVar(&links, "links", matrix.Links, "links, one table each (stdio, http, ws, mixed)")
	fs.StringVar(&format, "format", "text", "output: text (aligned table), md (Markdown) or json (counts and counterexamples)")
	fs.StringVar(&plot, "plot", "", "also write the heat-map to this file (SVG: FILE.svg)")
	fs.StringVar(&traceDir, "traces", "", "write each counterexample's trace to this directory, with its acpsim replay command")
	fs.IntVar(&shrinkN, "shrink", 3, "shrink this many of a failing cell's smallest failing seeds (0: the smallest, unshrunk)")
	fs.IntVar(&prompts, "prompts", 10, "submissions per Client")
	fs.IntVar(&sessions, "sessions", 2, "sessions per Client")
	fs.IntVar(&clients, "clients", 1, "Clients, each with its own Agent installation")
	fs.DurationVar(&timeout, "timeout", 250*time.Millisecond, "Client timeout waiting for a prompt's response (virtual time)")
	fs.StringVar(&faults, "fault-rates", "", "fault probabilities as kind=rate,… over the defaults (acpsim help faults)")
	withCatalogues(cmd, "policies")
	return cmd
}

// matrixConfig checks the lists of policies, designs and links.
func matrixConfig(policies, designs, links []string) (matrix.Config, error) {
	var mc matrix.Config
	for _, p := range policies {
		if _, err := design.ParsePolicy(p); err != nil {
			return mc, fmt.Errorf("--policies: %v", err)
		}
	}
	for _, name := range designs {
		d, ok := matrix.LookupDesign(name)
		if !ok {
			return mc, fmt.Errorf("--designs %q: expected any of %s", name, strings.Join(matrixDesignNames(), ", "))
		}
		mc.Designs = append(mc.Designs, d)
	}
	for _, l := range links {
		if l != world.LinkStdio && l != world.LinkHTTP && l != world.LinkWS && l != world.LinkMixed {
			return mc, fmt.Errorf("--links %q: expected any of stdio, http, ws, mixed", l)
		}
	}
	if len(policies) == 0 || len(designs) == 0 || len(links) == 0 {
		return mc, fmt.Errorf("--policies, --designs and --links must each name at least one")
	}
	mc.Policies, mc.Links = policies, links
	return mc, nil
}

func matrixDesignNames() []string {
	names := make([]string, 0, len(matrix.Designs))
	for _, d := range matrix.Designs {
		names = append(names, d.Name)
	}
	return names
}

func writeMatrixPlot(path string, rep *matrix.Report) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--plot: %v", err)
	}
	if err := rep.WriteSVG(f); err != nil {
		f.Close()
		return fmt.Errorf("--plot %s: %v", path, err)
	}
	return f.Close()
}
