package matrix

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteAlternatives prints a matrix of the RFD's alternatives (Pairs from
// AlternativePairs): per link, what each costs on the same seeds — the
// seeds with an anomaly and its kinds, the submissions whose user was left
// not knowing, the prompt requests per submission, what a Client stores —
// then each alternative's RFD passage and its shortest counterexample.
// markdown writes the same as Markdown tables.
func (r *Report) WriteAlternatives(w io.Writer, markdown bool) error {
	return r.WritePreset(w, Presets[0], markdown)
}

// WritePreset prints a matrix of a preset's rows as WriteAlternatives
// does the alternatives'.
func (r *Report) WritePreset(w io.Writer, p Preset, markdown bool) error {
	fmt.Fprintf(w, "%s: %s\n", p.Title, r.title())
	fmt.Fprintf(w, "any: seeds with an anomaly (its kinds after it); unknown: submissions per 100 whose user was told the outcome is unknown or nothing; requests: prompt requests per submission; unused sessions: of the sessions the Agent made for session/new, those no Client used\n")
	for _, link := range r.Links {
		rows := r.rowsOf(link)
		if len(rows) == 0 {
			continue
		}
		if markdown {
			fmt.Fprintf(w, "\n**%s**\n\n| alternative | policy × design | any | unknown | requests | unused sessions | a Client stores |\n|---|---|---|---|---|---|---|\n", link)
		} else {
			fmt.Fprintf(w, "\nlink %s\n", link)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if !markdown {
			fmt.Fprintln(tw, "  alternative\tpolicy × design\tany\tunknown\trequests\tunused sessions\ta Client stores")
		}
		for _, row := range rows {
			cells := []string{row.Alternative, row.Policy + " × " + row.Design, r.anyKinds(row), perHundred(row.ToldUnknown, row.Submissions), perSubmission(row.PromptRequests, row.Submissions), unusedOf(row), storesOf(p.Rows, row.Alternative)}
			if markdown {
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			} else {
				fmt.Fprintf(tw, "  %s\n", strings.Join(cells, "\t"))
			}
		}
		tw.Flush()
	}
	fmt.Fprintf(w, "\nwhat each measures, and its shortest counterexample:\n")
	for _, a := range p.Rows {
		fmt.Fprintf(w, "- %s: %s\n", a.Name, a.RFD)
		for _, link := range r.Links {
			for _, row := range r.rowsOf(link) {
				if row.Alternative != a.Name || len(row.Counterexamples) == 0 {
					continue
				}
				ce := smallest(row.Counterexamples)
				fmt.Fprintf(w, "    %s, %s: %s\n", link, ce.Kind, ce.Run)
			}
		}
	}
	return nil
}

// anyKinds is a row's "any" cell: the fraction of seeds with an anomaly
// and its kinds, each with its own fraction.
func (r *Report) anyKinds(row *Row) string {
	inconclusive := ""
	if row.Inconclusive > 0 {
		inconclusive = "; " + Percent(row.Inconclusive, row.Seeds) + " inconclusive"
	}
	if row.Failed == 0 {
		return "·" + inconclusive
	}
	var kinds []string
	for _, k := range r.Kinds {
		if n := row.Failing[k]; n > 0 {
			kinds = append(kinds, k+" "+Percent(n, row.Seeds))
		}
	}
	return Percent(row.Failed, row.Seeds) + " (" + strings.Join(kinds, ", ") + ")" + inconclusive
}

func perHundred(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", 100*float64(n)/float64(of))
}

func perSubmission(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(n)/float64(of))
}

// unusedOf is a row's unused sessions: how many of those made, and the share.
func unusedOf(row *Row) string {
	if row.Sessions == 0 {
		return "-"
	}
	if row.UnusedSessions == 0 {
		return fmt.Sprintf("0 of %d", row.Sessions)
	}
	return fmt.Sprintf("%d of %d (%s)", row.UnusedSessions, row.Sessions, Percent(row.UnusedSessions, row.Sessions))
}

func storesOf(rows []Alternative, name string) string {
	for _, a := range rows {
		if a.Name == name {
			return a.Stores
		}
	}
	return ""
}

// smallest is the counterexample of the fewest faults, then events.
func smallest(ces []Counterexample) Counterexample {
	best := ces[0]
	for _, ce := range ces[1:] {
		if ce.Size.Faults < best.Size.Faults || ce.Size.Faults == best.Size.Faults && ce.Size.Events < best.Size.Events {
			best = ce
		}
	}
	return best
}
