package matrix

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/acpsim/acpsim/properties"
)

// Percent renders the fraction n/of of a cell: "·" for none, "<1%" for a
// fraction that would round to 0, ">99%" for one that would round to 100
// without being all, the rounded percentage otherwise.
func Percent(n, of int) string {
	if n == 0 || of == 0 {
		return "·"
	}
	p := 100 * float64(n) / float64(of)
	switch {
	case p < 1:
		return "<1%"
	case n < of && p > 99:
		return ">99%"
	}
	return fmt.Sprintf("%.0f%%", math.Round(p))
}

// AnyColumn is the name of the column after the kinds: the seeds with any
// anomaly.
const AnyColumn = "any"

// checkerLimits are the kinds that say what the checker could not settle
// (two same-text submissions the frames cannot tell apart), not what a
// policy or a design did: the tables show them after any, apart.
var checkerLimits = []string{properties.Unattributable}

// columns are the kinds the tables show: those some seed of some row showed
// (a column empty on every link says nothing), the checker's limits apart;
// none lists the kinds no seed showed.
func (r *Report) columns() (shown, limits, none []string) {
	for _, k := range r.Kinds {
		seen := false
		for i := range r.Rows {
			seen = seen || r.Rows[i].Failing[k] > 0
		}
		switch {
		case !seen:
			none = append(none, k)
		case slices.Contains(checkerLimits, k):
			limits = append(limits, k)
		default:
			shown = append(shown, k)
		}
	}
	return shown, limits, none
}

// header is a table's kind columns: the shown kinds, any, then the
// checker's limits marked with a dagger (limitNote).
func (r *Report) header() []string {
	shown, limits, _ := r.columns()
	out := append(slices.Clone(shown), AnyColumn)
	for _, k := range limits {
		out = append(out, k+"†")
	}
	return out
}

// cells are a row's rendered cells, in header's order.
func (r *Report) cells(row *Row) []string {
	shown, limits, _ := r.columns()
	out := make([]string, 0, len(shown)+len(limits)+1)
	for _, k := range shown {
		out = append(out, Percent(row.Failing[k], row.Seeds))
	}
	out = append(out, Percent(row.Failed, row.Seeds))
	for _, k := range limits {
		out = append(out, Percent(row.Failing[k], row.Seeds))
	}
	return out
}

// limitNote explains the columns left out and the checker's limits.
func (r *Report) limitNote() []string {
	_, limits, none := r.columns()
	var out []string
	if len(none) > 0 {
		out = append(out, "no seed showed "+strings.Join(none, ", ")+" (columns left out)")
	}
	if len(limits) > 0 {
		out = append(out, "† a limit of the checker, not an anomaly a policy causes: same-text submissions the frames cannot tell apart (any counts them too)")
	}
	var judgedNot []string
	for _, row := range r.Rows {
		if row.Inconclusive > 0 && row.Failed < row.Seeds {
			judgedNot = append(judgedNot, fmt.Sprintf("%s × %s on %s %s", row.Policy, row.Design, row.Link, Percent(row.Inconclusive, row.Seeds)))
		}
	}
	if len(judgedNot) > 0 {
		out = append(out, "inconclusive seeds (no anomaly, yet no pass: a cap hit, or never silently lost judged for none of their submissions; a \"·\" there is no clean bill): "+strings.Join(judgedNot, ", "))
	}
	return out
}

func (r *Report) rowsOf(link string) []*Row {
	var out []*Row
	for i := range r.Rows {
		if r.Rows[i].Link == link {
			out = append(out, &r.Rows[i])
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

func (r *Report) title() string {
	last := r.FirstSeed + uint64(r.Seeds) - 1
	return fmt.Sprintf("%s × %s × %s · seeds %d…%d (%d per row) · %s × %d prompts",
		plural(len(r.Policies), "policy", "policies"), plural(len(r.Designs), "Agent design", "Agent designs"),
		plural(len(r.Links), "link", "links"), r.FirstSeed, last, r.Seeds, plural(r.Clients, "Client", "Clients"), r.Prompts)
}

func (r *Report) shrinkNote() string {
	switch r.Shrink {
	case 0:
		return "each failing cell's smallest failing seed (fewest faults, then events), unshrunk"
	case 1:
		return "each failing cell's smallest failing seed (fewest faults, then events), shrunk for the cell's kind"
	}
	return fmt.Sprintf("the smallest result of shrinking each failing cell's %d smallest failing seeds (fewest faults, then events) for the cell's kind", r.Shrink)
}

func (s Size) String() string {
	return fmt.Sprintf("%s, %s, %d events", plural(s.Faults, "fault", "faults"), plural(s.Prompts, "prompt", "prompts"), s.Events)
}

func (c *Counterexample) sizeText() string {
	s := fmt.Sprintf("seed %d (%s)", c.Seed, c.SeedSize)
	if c.Shrunk {
		s += " shrunk to " + c.Size.String()
	}
	return s
}

// WriteText writes the terminal table: for each link, rows policy × design
// and a column per kind (then any), aligned with text/tabwriter, then the
// counterexamples of its failing cells; last the designs.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "matrix: %s\ncells: the fraction of seeds that showed the kind (· none)\n", r.title())
	hint := false
	for _, link := range r.Links {
		rows := r.rowsOf(link)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\nlink %s\n", link)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  policy\tagent\t%s\n", strings.Join(r.header(), "\t"))
		for _, row := range rows {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", row.Policy, row.Design, strings.Join(r.cells(row), "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		first := true
		for _, row := range rows {
			for i := range row.Counterexamples {
				if first {
					fmt.Fprintf(w, "counterexamples (%s):\n", r.shrinkNote())
					first = false
				}
				ce := &row.Counterexamples[i]
				fmt.Fprintf(w, "  %s × %s · %s (%s of seeds): %s\n", row.Policy, row.Design, ce.Kind,
					Percent(row.Failing[ce.Kind], row.Seeds), ce.sizeText())
				fmt.Fprintf(w, "    run:    %s\n", ce.Run)
				if ce.Replay != "" {
					fmt.Fprintf(w, "    replay: %s\n", ce.Replay)
				} else if ce.Shrunk {
					hint = true
				}
				if ce.Note != "" {
					fmt.Fprintf(w, "    not shrunk: %s\n", ce.Note)
				}
			}
		}
	}
	if notes := r.limitNote(); len(notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range notes {
			fmt.Fprintln(w, n)
		}
	}
	if hint {
		fmt.Fprintln(w, "\n(--traces DIR writes each counterexample's trace; acpsim replay reruns it as shrunk, which the run command alone cannot)")
	}
	for _, n := range r.NotRun {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintln(w, "\nagent designs:")
	for _, d := range r.Designs {
		flags := strings.Join(d.Flags, " ")
		if flags == "" {
			flags = "(defaults)"
		}
		fmt.Fprintf(w, "  %-17s %s, on %s: %s\n", d.Name, flags, strings.Join(d.Links, ", "), d.Why)
	}
	return nil
}

// WriteMarkdown writes the same as WriteText as Markdown: a table per link
// and a list of counterexamples with their commands in code spans.
func (r *Report) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "## acpsim matrix\n\n%s. Cells: the fraction of seeds that showed the kind (· none).\n", r.title())
	for _, link := range r.Links {
		rows := r.rowsOf(link)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n### link %s\n\n| policy | agent | %s |\n|---|---|%s\n", link, strings.Join(r.header(), " | "),
			strings.Repeat("---:|", len(r.header())))
		for _, row := range rows {
			fmt.Fprintf(w, "| %s | %s | %s |\n", row.Policy, row.Design, strings.Join(r.cells(row), " | "))
		}
		first := true
		for _, row := range rows {
			for i := range row.Counterexamples {
				if first {
					fmt.Fprintf(w, "\nCounterexamples (%s):\n\n", r.shrinkNote())
					first = false
				}
				ce := &row.Counterexamples[i]
				fmt.Fprintf(w, "- **%s × %s · %s** (%s of seeds): %s  \n  `%s`", row.Policy, row.Design, ce.Kind,
					Percent(row.Failing[ce.Kind], row.Seeds), ce.sizeText(), ce.Run)
				if ce.Replay != "" {
					fmt.Fprintf(w, "  \n  `%s`", ce.Replay)
				}
				fmt.Fprintln(w)
			}
		}
	}
	for _, n := range r.limitNote() {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	for _, n := range r.NotRun {
		fmt.Fprintf(w, "\n%s\n", n)
	}
	fmt.Fprintf(w, "\n### Agent designs\n\n| agent | flags | links | why |\n|---|---|---|---|\n")
	for _, d := range r.Designs {
		flags := "`" + strings.Join(d.Flags, " ") + "`"
		if len(d.Flags) == 0 {
			flags = "(defaults)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", d.Name, flags, strings.Join(d.Links, ", "), strings.ReplaceAll(d.Why, "|", `\|`))
	}
	return nil
}

// WriteJSON writes the report as indented JSON (the field names are those
// of Report, Row and Counterexample).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// heat is a cell's fill: light grey for none, then from pale orange to dark
// red with the square root of the fraction (so a few percent still shows).
func heat(n, of int) (fill, ink string) {
	if n == 0 || of == 0 {
		return "#f4f4f4", "#999999"
	}
	t := math.Sqrt(float64(n) / float64(of))
	lerp := func(a, b float64) int { return int(math.Round(a + (b-a)*t)) }
	fill = fmt.Sprintf("#%02x%02x%02x", lerp(0xfe, 0x99), lerp(0xe0, 0x00), lerp(0xb6, 0x0d))
	ink = "#222222"
	if t > 0.55 {
		ink = "#ffffff"
	}
	return fill, ink
}

// WriteSVG writes the heat-map: a panel per link, a row per policy × design,
// a column per kind (then any), each cell coloured by its failing fraction
// and labelled with it. Plain rects and text, no script.
func (r *Report) WriteSVG(w io.Writer) error {
	const (
		labelW = 220
		cellW  = 96
		cellH  = 20
		pad    = 16
		headH  = 52
	)
	cols := append(append([]string{}, r.Kinds...), AnyColumn)
	width := pad*2 + labelW + cellW*len(cols) + 6
	y := pad + 24
	var b strings.Builder
	esc := html.EscapeString
	for _, link := range r.Links {
		rows := r.rowsOf(link)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14" font-weight="bold">link %s</text>`+"\n", pad, y+18, esc(link))
		for i, c := range cols {
			x := pad + labelW + i*cellW + cellW/2
			if i == len(r.Kinds) {
				x += 6
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="middle">%s</text>`+"\n", x, y+headH-6, esc(c))
		}
		y += headH
		for i, row := range rows {
			if i > 0 && row.Policy != rows[i-1].Policy {
				y += 4 // a gap between policies
			}
			fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11">%s × %s</text>`+"\n", pad, y+cellH-6, esc(row.Policy), esc(row.Design))
			counts := make([]int, 0, len(cols))
			for _, k := range r.Kinds {
				counts = append(counts, row.Failing[k])
			}
			counts = append(counts, row.Failed)
			for i, n := range counts {
				fill, ink := heat(n, row.Seeds)
				x := pad + labelW + i*cellW
				if i == len(r.Kinds) {
					x += 6 // any stands apart from the kinds
				}
				fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s" stroke="#ffffff"/>`+"\n", x, y, cellW, cellH, fill)
				fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="middle" fill="%s">%s</text>`+"\n", x+cellW/2, y+cellH-6, ink, esc(Percent(n, row.Seeds)))
			}
			y += cellH
		}
		y += pad
	}
	height := y + pad
	if _, err := fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">`+"\n"+
		`<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n"+
		`<text x="%d" y="%d" font-size="13">acpsim matrix: %s</text>`+"\n",
		width, height, width, height, pad, pad+10, esc(r.title())); err != nil {
		return err
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	_, err := io.WriteString(w, "</svg>\n")
	return err
}
