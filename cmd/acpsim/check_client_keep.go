// What check-client keeps of a seed: the tap's trace, and beside it what
// the trace cannot hold (the user's submissions and cancels, what the user
// was told, the Agent's final transcript), so acpsim judge gives the seed's
// verdict again from the files, without running the Client.

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/netfault/realmode/checkclient"
	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/properties/clientcheck"
	"github.com/acpsim/acpsim/traces"
)

// clientRecordFormat is the version of NAME.client.json.
const clientRecordFormat = 1

// clientRecord is NAME.client.json: one check-client seed's user side.
type clientRecord struct {
	Format int    `json:"checkClientRecord"`
	Seed   uint64 `json:"seed"`
	Rerun  string `json:"rerun"`
	Broken string `json:"broken,omitempty"`
	// Inconclusive is why check-client judged the seed to no verdict.
	Inconclusive string                   `json:"inconclusive,omitempty"`
	Subs         []clientcheck.Submission `json:"submissions"`
	Cancelled    []string                 `json:"cancelled"`
	Told         []clientcheck.Told       `json:"told"`
	Transcript   []clientcheck.Message    `json:"transcript"`
}

// clientRecordPath is the record beside the trace at trace.
func clientRecordPath(trace string) string {
	return strings.TrimSuffix(trace, ".ndjson") + ".client.json"
}

// keepClientTrace copies a seed's trace to acpsim-failures/, named by the
// run so later runs do not overwrite it, and writes its record beside it.
// It returns the trace's path, "" if it could not be kept (a trace without
// its record is not kept: judge would judge less than check-client did).
func keepClientTrace(r *checkclient.Result, rerun string) string {
	b, err := os.ReadFile(r.Trace)
	if err != nil {
		return ""
	}
	f, err := createNew(failuresDir, failureName("check-client", fmt.Sprintf("seed-%d", r.Seed)))
	if err != nil {
		return ""
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return ""
	}
	if f.Close() != nil {
		return ""
	}
	h := r.History // the lists are written as [] when empty, never null
	rec := clientRecord{Format: clientRecordFormat, Seed: r.Seed, Rerun: rerun, Broken: r.Broken, Inconclusive: r.Inconclusive,
		Subs: append([]clientcheck.Submission{}, h.Subs...), Cancelled: append([]string{}, h.Cancelled...),
		Told: append([]clientcheck.Told{}, h.Told...), Transcript: append([]clientcheck.Message{}, h.Transcript...)}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err == nil {
		err = os.WriteFile(clientRecordPath(f.Name()), append(data, '\n'), 0o644)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return ""
	}
	return f.Name()
}

// readClientRecord reads the record beside trace; nil without error when
// there is none (the trace is not a kept check-client seed's).
func readClientRecord(trace string) (*clientRecord, error) {
	path := clientRecordPath(trace)
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec clientRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("%s: %v (want check-client's record of a seed, as it keeps beside the trace)", path, err)
	}
	if rec.Format != clientRecordFormat {
		return nil, fmt.Errorf("%s: field \"checkClientRecord\": %d, want %d", path, rec.Format, clientRecordFormat)
	}
	return &rec, nil
}

// judgesWhatTheTapCannot is rep as judge prints it beside the record,
// with the kinds a tap's trace cannot show (Report.NotJudged) that the
// record judges taken out of its unjudged list, and those kinds: a record
// of a seed check-client judged holds the user's outcomes and the final
// transcript the tap did not see. rep itself, which the verdict reads, is
// left as it is.
func (rec *clientRecord) judgesWhatTheTapCannot(rep *properties.Report) (*properties.Report, []string) {
	if rec == nil || rec.Broken != "" || rec.Inconclusive != "" {
		return rep, nil // check-client judged nothing of this seed's Client
	}
	var judged, rest []string
	for _, k := range rep.NotJudged {
		if slices.Contains(clientcheck.Kinds, k) {
			judged = append(judged, k)
		} else {
			rest = append(rest, k)
		}
	}
	if len(rest) == 0 {
		return rep, nil // the report's line would go, and its accounts say otherwise
	}
	shown := *rep
	shown.NotJudged = rest
	return &shown, judged
}

// history is the record and the trace's frames, as check-client judged them.
func (rec *clientRecord) history(events []traces.Event) clientcheck.History {
	return clientcheck.History{Frames: checkclient.Frames(events), Subs: rec.Subs, Told: rec.Told, Transcript: rec.Transcript, Cancelled: rec.Cancelled}
}

// clientJudgement is what judge makes of a kept check-client seed's Client.
type clientJudgement struct {
	found []clientcheck.Anomaly
	// broken and inconclusive are check-client's own word on the seed,
	// kept in the record: nothing to judge again.
	broken, inconclusive string
}

// judgeClientRecord judges the Client of a kept check-client seed from its
// trace's events and its record, as check-client did, and prints what it
// finds.
func judgeClientRecord(w io.Writer, trace string, rec *clientRecord, events []traces.Event) clientJudgement {
	h := rec.history(events)
	fmt.Fprintf(w, "the Client, as check-client judged it (from %s: %d submissions, %d outcomes told, %d user messages in the final transcript):\n",
		clientRecordPath(trace), len(h.Subs), len(h.Told), len(h.Transcript))
	switch {
	case rec.Broken != "":
		fmt.Fprintf(w, "  the adapter broke its contract (docs/client-adapter.md): %s\n", rec.Broken)
		return clientJudgement{broken: rec.Broken}
	case rec.Inconclusive != "":
		fmt.Fprintf(w, "  nothing judged: %s\n", rec.Inconclusive)
		return clientJudgement{inconclusive: rec.Inconclusive}
	}
	found := clientcheck.Check(h)
	if len(found) == 0 {
		fmt.Fprintln(w, "  nothing found: every submission inserted at most once and never silently lost, every outcome told true, keys kept on resend")
	}
	for _, a := range found {
		printClientAnomaly(w, a)
	}
	return clientJudgement{found: found}
}

// verdict prints judge's last line for a kept check-client seed and
// returns the exit code; done is false when the trace's own verdict is the
// last word (the Client passed and the frames failed).
func (j clientJudgement) verdict(w io.Writer, trace, rerun string, frames *properties.Report) (code int, done bool) {
	onFrames := ""
	if !frames.OK() {
		onFrames = "; on the frames: " + strings.Join(anomalyKinds(frames), ", ")
	}
	switch {
	case j.broken != "":
		fmt.Fprintf(w, "FAIL: the Client's adapter broke its contract%s\n", onFrames)
	case len(j.found) > 0:
		fmt.Fprintf(w, "FAIL: the Client (%s)%s\n", clientKinds(j.found), onFrames)
	case !frames.OK():
		return 0, false // the frames' own FAIL is the last word
	case j.inconclusive != "":
		fmt.Fprintf(w, "INCONCLUSIVE: check-client judged nothing of the Client: %s\n  rerun: %s\n", j.inconclusive, rerun)
		return exitInconclusive, true
	default:
		// What a tap's trace alone leaves unjudged, the record judged.
		fmt.Fprintln(w, "PASS: the Client, judged from the trace and its record as check-client judged it: every submission inserted at most once and never silently lost, every outcome told true")
		return 0, true
	}
	fmt.Fprintf(w, "  trace: %s\n  rerun: %s\n%s", trace, rerun, eventsLine(trace, frames))
	return exitAnomaly, true
}

func printClientAnomaly(w io.Writer, a clientcheck.Anomaly) {
	sub := ""
	if a.Sub != "" {
		sub = " " + a.Sub
	}
	fmt.Fprintf(w, "  %s%s: %s\n    RFD: %s\n", a.Kind, sub, a.Explanation, a.Rule())
}

// clientKinds names the kinds among found, each once, in order.
func clientKinds(found []clientcheck.Anomaly) string {
	var kinds []string
	for _, a := range found {
		if !contains(kinds, a.Kind) {
			kinds = append(kinds, a.Kind)
		}
	}
	return strings.Join(kinds, ", ")
}
