// The proxy→Agent hop of acpsim check --via: an acpsim tap between the
// proxy and each Agent process records what the proxy made of the Clients'
// frames, so a failing seed's report names what the proxy did (the cause)
// before the anomaly the Clients saw (the symptom), and shows each frame it
// cites on both hops.

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsim/acpsim/netfault/realmode/tap"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/properties/hop"
	"github.com/acpsim/acpsim/traces"
)

// hopClient is the name a hop's trace gives the proxy, its Client.
const hopClient = "proxy"

// proxyClean is what a report says of a proxy the two hops found nothing
// wrong with.
const proxyClean = "the proxy, from both hops: nothing found (ids mapped, keys kept, answers routed, no prompt of its own)"

// hopCommand is check.Config.Hop for --via: the proxy's command with, as
// its Agent, acpsim tap recording to where in front of the Agent's words.
// The tap's flags are all given, so no $ACPSIM_… twin of check's own
// environment changes what it does, and it has no -- (the tap takes its
// Agent from the first word that is no flag): a proxy that looks for the
// first -- in its arguments finds the user's.
func hopCommand(via string, agentWords []string) (func(n int, where string) ([]string, string), error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--record-hop: cannot find acpsim's own executable for the tap: %v", err)
	}
	return func(n int, where string) ([]string, string) {
		tap := []string{exe, "tap", "--trace", where, "--client", hopClient, "--process", strconv.Itoa(n), "--fault-rates=", "--seed=1"}
		argv, env, _ := throughProxy(via, append(tap, agentWords...)) // via was checked at the start
		return resolveAgent(argv), env
	}, nil
}

// seedHop is what a seed's hop showed.
type seedHop struct {
	log     *traces.Log // nil: no tap started
	pairing *hop.Pairing
	trace   string // where a failing seed's hop trace was written
}

// readSeedHop reads the hop a seed recorded at where and pairs it with the
// seed's trace.
func readSeedHop(where string, outer *traces.Log) (*seedHop, error) {
	log, err := tap.ReadHopTrace(where)
	if err != nil || log == nil {
		return &seedHop{}, err
	}
	return &seedHop{log: log, pairing: hop.Pair(outer.Events, log.Events)}, nil
}

// saveHopTrace writes a failing seed's hop beside its trace: NAME.hop.ndjson.
func saveHopTrace(s *checkSeed) error {
	h := s.hop
	if h == nil || h.log == nil || s.trace == "" {
		return nil
	}
	name := hopTraceBeside(s.trace)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("writing seed %d's proxy→Agent hop: %v", s.seed, err)
	}
	h.trace = filepath.ToSlash(name)
	return writeTrace(f, h.log)
}

// hopTraceBeside is where check --via saves a failing seed's hop: beside
// its trace, as NAME.hop.ndjson.
func hopTraceBeside(trace string) string {
	return strings.TrimSuffix(trace, ".ndjson") + ".hop.ndjson"
}

// hopBeside reads the hop check --via saved beside a failing seed's trace
// and pairs it with that trace (outer, read by the caller), so judge names
// what the proxy did as check did; nil when there is none.
func hopBeside(trace string, outer *traces.Log) (*seedHop, error) {
	path := hopTraceBeside(trace)
	inner, err := readTrace(path)
	if err != nil {
		return nil, err
	}
	return &seedHop{log: inner, pairing: hop.Pair(outer.Events, inner.Events), trace: filepath.ToSlash(path)}, nil
}

// firstFindings is the first finding of each kind the hop showed, in the
// order they were found; none without a paired hop.
func (h *seedHop) firstFindings() []hop.Finding {
	if h == nil || h.pairing == nil {
		return nil
	}
	var first []hop.Finding
	for _, f := range h.pairing.Findings {
		if !slices.ContainsFunc(first, func(g hop.Finding) bool { return g.Kind == f.Kind }) {
			first = append(first, f)
		}
	}
	return first
}

// findingKinds is the kinds of findings, in their order.
func findingKinds(findings []hop.Finding) []string {
	kinds := make([]string, len(findings))
	for i, f := range findings {
		kinds[i] = f.Kind
	}
	return kinds
}

// hopCause is the seed line's note of what the proxy did, "" for nothing.
func hopCause(s *checkSeed) string {
	first := s.hop.firstFindings()
	if len(first) == 0 {
		return ""
	}
	return " (the proxy: " + strings.Join(findingKinds(first), ", ") + ")"
}

// writeHop prints, before a failing seed's anomalies, what the hop shows:
// how much of it was paired, the hop judged alone, and what the proxy did.
func writeHop(out io.Writer, h *seedHop) {
	if h == nil {
		return
	}
	if h.log == nil {
		fmt.Fprintf(out, "proxy→Agent hop: not recorded: the proxy started no Agent through {agent} or $%s\n", agentEnv)
		return
	}
	p := h.pairing
	fmt.Fprintf(out, "proxy→Agent hop (acpsim tap between the proxy and each Agent process): %d frames, %d paired with the Clients' frames", p.Frames, p.Paired)
	if h.trace != "" {
		fmt.Fprintf(out, "; trace %s", h.trace)
	}
	fmt.Fprintln(out)
	alone := properties.Check(h.log.Header, h.log.Events) // as acpsim judge judges a tap's trace; only a failing seed's report shows it
	if alone.OK() {
		fmt.Fprintf(out, "  the Agent, judged on what the proxy sent it (as acpsim judge judges a tap's trace): no anomaly\n")
	} else {
		fmt.Fprintf(out, "  the Agent, judged on what the proxy sent it (as acpsim judge judges a tap's trace): %s\n", strings.Join(anomalyKinds(alone), ", "))
		for _, a := range alone.Anomalies {
			fmt.Fprintf(out, "  - %s: %s\n", a.Kind, a.Explanation)
		}
	}
	if len(p.Findings) == 0 {
		fmt.Fprintf(out, "  %s\n", proxyClean)
		return
	}
	fmt.Fprintf(out, "the proxy, from both hops (the cause):\n")
	for _, f := range p.Findings {
		fmt.Fprintf(out, "- %s: %s\n  rule: %s\n  events %s; hop events %s\n", f.Kind, f.Text, hop.Rule(f.Kind), seqList(f.Outer), seqList(f.Inner))
	}
}

func seqList(seqs []int64) string {
	if len(seqs) == 0 {
		return "-"
	}
	parts := make([]string, len(seqs))
	for i, s := range seqs {
		parts[i] = strconv.FormatInt(s, 10)
	}
	return strings.Join(parts, ", ")
}

// hopLine is the line under an excerpt's event that shows the same frame
// on the hop, once per hop event; "" when it has none or was shown.
func hopLine(h *seedHop, e *traces.Event, shown map[int64]bool) string {
	if h == nil || h.pairing == nil {
		return ""
	}
	in := h.pairing.Inner[e.Seq]
	if in == nil || shown[in.Seq] {
		return ""
	}
	shown[in.Seq] = true
	arrow := "  ↳ hop"
	if in.Dir == traces.AgentToClient {
		arrow = "  ↰ hop"
	}
	return arrow + " " + excerptLine(in)
}

// hopTally is the summary's line on the hop: in how many seeds it was
// recorded, and the seeds where the proxy did something wrong, by kind.
type hopTally struct {
	asked, recorded int
	kinds           []string
	seeds           map[string][]uint64
	first           map[string]string // each kind's first finding, in full
	traces          []string          // the traces of the seeds with findings
}

func (t *hopTally) add(s *checkSeed) {
	if s.hop == nil {
		return
	}
	t.asked++
	if s.hop.log == nil {
		return
	}
	t.recorded++
	if len(s.hop.pairing.Findings) > 0 && s.trace != "" {
		t.traces = append(t.traces, s.trace)
	}
	for _, f := range s.hop.pairing.Findings {
		if t.seeds == nil {
			t.seeds, t.first = map[string][]uint64{}, map[string]string{}
		}
		if !contains(t.kinds, f.Kind) {
			t.kinds = append(t.kinds, f.Kind)
			t.first[f.Kind] = fmt.Sprintf("seed %d: %s", s.seed, f.Text)
		}
		if l := t.seeds[f.Kind]; len(l) == 0 || l[len(l)-1] != s.seed {
			t.seeds[f.Kind] = append(l, s.seed)
		}
	}
}

// passNote is what the PASS line adds when the hop showed the proxy doing
// something wrong: a finding is beside the verdict, and a reader of the
// last line alone must not take the path for clean.
func (t *hopTally) passNote() string {
	var parts []string
	for _, k := range t.kinds {
		parts = append(parts, fmt.Sprintf("%s in %d seed(s)", k, len(t.seeds[k])))
	}
	return proxyNote(parts)
}

// proxyNote is what a PASS or INCONCLUSIVE line adds of the proxy's
// findings (parts: each kind, as the line tells it); "" for none.
func proxyNote(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return "; beside the verdict, the proxy: " + strings.Join(parts, ", ") + " (proxy→Agent hop, above)"
}

func (t *hopTally) write(out io.Writer) {
	if t.asked == 0 {
		return
	}
	if t.recorded == 0 {
		fmt.Fprintf(out, "proxy→Agent hop: not recorded in any seed: the proxy started no Agent through {agent} or $%s (--record-hop=false stops trying)\n", agentEnv)
		return
	}
	fmt.Fprintf(out, "proxy→Agent hop: recorded in %d of %d seeds (acpsim tap between the proxy and each Agent process)", t.recorded, t.asked)
	if len(t.kinds) == 0 {
		fmt.Fprintf(out, "; %s\n", proxyClean)
		return
	}
	fmt.Fprintf(out, "; the proxy, from both hops:\n")
	for _, k := range t.kinds {
		seeds := make([]string, len(t.seeds[k]))
		for i, s := range t.seeds[k] {
			seeds[i] = strconv.FormatUint(s, 10)
		}
		fmt.Fprintf(out, "  %-16s in %d seed(s): %s\n    the first, %s\n    rule: %s\n", k, len(seeds), strings.Join(seeds, " "), t.first[k], hop.Rule(k))
	}
	fmt.Fprintf(out, "  a finding is beside the verdict, as a schema problem is; the traces of those seeds, each with its NAME.hop.ndjson: %s\n", strings.Join(t.traces, " "))
}
