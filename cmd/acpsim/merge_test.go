package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/acpsim/acpsim/sim/world"
)

// The summary does not depend on --jobs: seeds are folded in seed order.
// The timing goes to stderr, so the whole stdout compares.
func TestSwarmJobsPrintTheSameSummary(t *testing.T) {
	t.Chdir(t.TempDir())
	args := []string{"swarm", "--seeds", "300", "--policy", "naive", "--coverage"}
	code1, out1, err1 := run(t, append(args, "--jobs", "1")...)
	code3, out3, err3 := run(t, append(args, "--jobs", "3")...)
	if code1 != exitAnomaly || code3 != exitAnomaly {
		t.Fatalf("exit %d and %d:\n%s\n%s", code1, code3, out1, out3)
	}
	if out1 != out3 {
		t.Fatalf("--jobs 1 and --jobs 3 differ:\n%s\n---\n%s", out1, out3)
	}
	for _, e := range []string{err1, err3} {
		if !regexp.MustCompile(`^swarm: 300 seeds in \S+ \(\d+ seeds/s\) on [13] jobs\n$`).MatchString(e) {
			t.Errorf("stderr %q: want the timing line alone", e)
		}
	}
	// --workers still works, deprecated, and says so on stderr only.
	_, want, _ := run(t, "swarm", "--seeds", "20", "--jobs", "2")
	code, out, errs := run(t, "swarm", "--seeds", "20", "--workers", "2")
	if code != exitOK || out != want || !strings.Contains(errs, "--workers has been deprecated, use --jobs") || !strings.Contains(errs, "on 2 jobs") {
		t.Fatalf("--workers: exit %d, stderr %q, same output %v", code, errs, out == want)
	}
}

// Shards 0/3, 1/3 (--shard) and 2/3 (--shard-count and the Indexed Job's
// JOB_COMPLETION_INDEX) merged print what the unsharded run prints, and
// merge --format json is the unsharded run's JSON but for the shard.
func TestMergedShardsEqualTheUnshardedRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	args := []string{"swarm", "--seeds", "241", "--first-seed", "5", "--policy", "naive", "--check-determinism", "--coverage", "--show", "3"}
	code, whole, _ := run(t, append(args, "--jobs", "2", "--summary-json", "whole.json")...)
	if code != exitAnomaly || !strings.Contains(whole, "failing seeds (3 of ") {
		t.Fatalf("exit %d:\n%s", code, whole)
	}
	wholeJSON, err := os.ReadFile("whole.json")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := range 3 {
		path := filepath.Join(dir, "shard-"+strconv.Itoa(i)+".json")
		shardArgs := append(args, "--shard", strconv.Itoa(i)+"/3", "--summary-json", path, "--jobs", strconv.Itoa(i+1))
		if i == 2 {
			t.Setenv("JOB_COMPLETION_INDEX", "2")
			shardArgs = append(args, "--shard-count", "3", "--summary-json", path)
		}
		code, out, errs := run(t, shardArgs...)
		if code != exitAnomaly && code != exitOK {
			t.Fatalf("shard %d: exit %d:\n%s%s", i, code, out, errs)
		}
		if !strings.Contains(errs, "(shard "+strconv.Itoa(i)+"/3: seeds ") {
			t.Errorf("shard %d: stderr %q", i, errs)
		}
		paths = append(paths, path)
	}
	// Any order of the files.
	code, merged, errs := run(t, "merge", paths[2], paths[0], paths[1])
	if code != exitAnomaly {
		t.Fatalf("merge: exit %d:\n%s%s", code, merged, errs)
	}
	if merged != whole {
		t.Fatalf("merged shards differ from the unsharded run:\n%s\n---\n%s", merged, whole)
	}
	code, mergedJSON, errs := run(t, "merge", "--format", "json", paths[0], paths[1], paths[2])
	if code != exitAnomaly {
		t.Fatalf("merge --format json: exit %d: %s", code, errs)
	}
	a, b := withoutShard(t, string(wholeJSON)), withoutShard(t, mergedJSON)
	if a != b {
		t.Fatalf("merged JSON differs from the unsharded run's:\n%s\n---\n%s", b, a)
	}
	// A merged file merges (alone) into the same report.
	if err := os.WriteFile("merged.json", []byte(mergedJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, again, _ := run(t, "merge", "merged.json"); again != whole {
		t.Fatalf("merging the merged file:\n%s", again)
	}
}

// withoutShard is a summary file without what differs between a run and
// its merged shards: the shard and its timing.
func withoutShard(t *testing.T, doc string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("%v:\n%s", err, doc)
	}
	if m["schema"] != world.SummarySchema {
		t.Fatalf("schema %v", m["schema"])
	}
	delete(m, "shard")
	delete(m, "merged_from")
	b, _ := json.MarshalIndent(m, "", "  ")
	return string(b)
}

// merge refuses what would not add up to one run.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	swarm := func(name string, args ...string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		code, out, errs := run(t, append([]string{"swarm", "--seeds", "6", "--summary-json", path}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d:\n%s%s", args, code, out, errs)
		}
		return path
	}
	s0, s1 := swarm("s0.json", "--shard", "0/2"), swarm("s1.json", "--shard", "1/2")
	other := swarm("other.json", "--shard", "1/2", "--prompts", "3")
	third := swarm("third.json", "--shard", "1/3")
	if err := os.WriteFile("bad.json", []byte(`{"schema": "something-else/9"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files []string
		want  string
	}{
		{[]string{s0}, "shard(s) [1] of 2 missing"},
		{[]string{s0, s0, s1}, "are both shard 0/2 (overlapping shards)"},
		{[]string{s0, other}, "come from different configurations: args"},
		{[]string{s0, third}, "the shards of one run share their count"},
		{[]string{s0, "bad.json"}, `schema "something-else/9", expected "` + world.SummarySchema + `"`},
		{[]string{s0, "missing.json"}, "missing.json"},
	} {
		code, _, errs := run(t, append([]string{"merge"}, tc.files...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("merge %v: exit %d, stderr %q, want %q", tc.files, code, errs, tc.want)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "2/2"}, "expected i/n with 0 ≤ i < n"},
		{[]string{"--shard", "x"}, "expected i/n"},
		{[]string{"--shard", "0/2", "--shard-count", "3"}, "disagree"},
		{[]string{"--shard-count", "2"}, "JOB_COMPLETION_INDEX is not set"},
		{[]string{"--shard", "0/2", "--guided"}, "--guided cannot be sharded"},
		{[]string{"--format", "yaml"}, `--format "yaml"`},
		{[]string{"--jobs", "-1"}, "--jobs -1"},
		{[]string{"--summary-json", "/out/shard-$(JOB_COMPLETION_INDEX).json"}, "an unexpanded $(…)"},
	} {
		code, _, errs := run(t, append([]string{"swarm", "--seeds", "2"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("swarm %v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	t.Setenv("JOB_COMPLETION_INDEX", "5")
	if code, _, errs := run(t, "swarm", "--seeds", "2", "--shard-count", "2"); code != exitUsage || !strings.Contains(errs, `JOB_COMPLETION_INDEX="5": expected 0 … 1`) {
		t.Errorf("index out of range: exit %d, stderr %q", code, errs)
	}
}

// The shards tile the seeds in order, differing in size by one at most,
// empty when there are more shards than seeds.
func TestShardRangeTiles(t *testing.T) {
	for _, tc := range []struct{ seeds, n int }{{10, 3}, {1, 4}, {20000, 2}, {7, 7}, {5, 1}} {
		next, sizes := uint64(3), map[int]bool{}
		for i := range tc.n {
			lo, n := world.ShardRange(3, tc.seeds, i, tc.n)
			if lo != next {
				t.Fatalf("%d seeds, shard %d/%d starts at %d, want %d", tc.seeds, i, tc.n, lo, next)
			}
			next += uint64(n)
			sizes[n] = true
		}
		if next != 3+uint64(tc.seeds) || len(sizes) > 2 {
			t.Fatalf("%d seeds in %d shards: end %d, sizes %v", tc.seeds, tc.n, next, sizes)
		}
	}
}

// deploy/swarm-job.yaml is an Indexed Job whose completions and
// parallelism are its --shard-count, writing one summary per index on a
// mounted volume; its args, run as the pods would run them (on fewer
// seeds), give shards that merge.
func TestDeployJobManifest(t *testing.T) {
	raw, err := os.ReadFile("../../deploy/swarm-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type container struct {
		Command      []string `yaml:"command"`
		Args         []string `yaml:"args"`
		VolumeMounts []struct {
			Name      string `yaml:"name"`
			MountPath string `yaml:"mountPath"`
		} `yaml:"volumeMounts"`
	}
	type doc struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct{ Name string }
		Spec       struct {
			CompletionMode string `yaml:"completionMode"`
			Completions    *int   `yaml:"completions"`
			Parallelism    *int   `yaml:"parallelism"`
			Template       struct {
				Spec struct {
					RestartPolicy string      `yaml:"restartPolicy"`
					Containers    []container `yaml:"containers"`
					Volumes       []struct {
						Name string
						PVC  *struct {
							ClaimName string `yaml:"claimName"`
						} `yaml:"persistentVolumeClaim"`
					}
				}
			}
		}
	}
	var docs []doc
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(false)
	for {
		var d doc
		if err := dec.Decode(&d); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			t.Fatalf("swarm-job.yaml: %v", err)
		}
		docs = append(docs, d)
	}
	var job *doc
	claims := map[string]bool{}
	for i := range docs {
		switch docs[i].Kind {
		case "Job":
			job = &docs[i]
		case "PersistentVolumeClaim":
			claims[docs[i].Metadata.Name] = true
		}
	}
	if job == nil {
		t.Fatalf("no Job in swarm-job.yaml")
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || s.CompletionMode != "Indexed" || s.Completions == nil || s.Parallelism == nil || s.Template.Spec.RestartPolicy != "Never" {
		t.Fatalf("want apiVersion batch/v1, completionMode Indexed, completions, parallelism, restartPolicy Never: %+v", job)
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	var shards int
	var out string
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--shard-count="); ok {
			shards, _ = strconv.Atoi(v)
		}
		if v, ok := strings.CutPrefix(a, "--summary-json="); ok {
			out = v
		}
	}
	if c.Args[0] != "swarm" || shards < 1 || *s.Completions != shards || *s.Parallelism != shards {
		t.Fatalf("completions %d, parallelism %d, args %q: want swarm and all three equal", *s.Completions, *s.Parallelism, c.Args)
	}
	if !strings.Contains(out, "$(JOB_COMPLETION_INDEX)") {
		t.Fatalf("--summary-json=%q: want one file per index", out)
	}
	mounted := false
	for _, m := range c.VolumeMounts {
		for _, v := range s.Template.Spec.Volumes {
			if v.Name == m.Name && v.PVC != nil && claims[v.PVC.ClaimName] && strings.HasPrefix(out, m.MountPath+"/") {
				mounted = true
			}
		}
	}
	if !mounted {
		t.Fatalf("%s is not on a volume of a claim the manifest declares", out)
	}
	if len(c.Command) < 3 || !strings.Contains(c.Command[2], `acpsim "$@"`) {
		t.Fatalf("command %q: want the sh wrapper around acpsim", c.Command)
	}
	// The pods' args, on 40 seeds, into a scratch directory.
	dir := t.TempDir()
	t.Chdir(dir)
	var paths []string
	for i := range shards {
		t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(i))
		var args []string
		for _, a := range c.Args {
			switch {
			case strings.HasPrefix(a, "--seeds="):
				a = "--seeds=40"
			case strings.HasPrefix(a, "--summary-json="):
				path := filepath.Join(dir, strings.ReplaceAll(filepath.Base(out), "$(JOB_COMPLETION_INDEX)", strconv.Itoa(i)))
				a, paths = "--summary-json="+path, append(paths, path)
			}
			args = append(args, a)
		}
		if code, stdout, errs := run(t, args...); code != exitOK {
			t.Fatalf("pod %d: acpsim %q: exit %d:\n%s%s", i, args, code, stdout, errs)
		}
	}
	if code, stdout, errs := run(t, append([]string{"merge"}, paths...)...); code != exitOK || !strings.Contains(stdout, "PASS: 40 seeds") {
		t.Fatalf("merge: exit %d:\n%s%s", code, stdout, errs)
	}
}

// A commit nobody knows ("unknown", as a build without a VCS stamp outside
// a git checkout records it, or the toolchain's "(devel)") is neither a
// match nor a mismatch: merge leaves it out of the comparison and says the
// commit is unknown. Two commits it knows are still compared.
func TestMergeSaysTheCommitIsUnknown(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var shards [2][]byte
	for i := range shards {
		path := filepath.Join(dir, "s"+strconv.Itoa(i)+".json")
		if code, out, errs := run(t, "swarm", "--seeds", "6", "--shard", strconv.Itoa(i)+"/2", "--summary-json", path); code != exitOK {
			t.Fatalf("shard %d: exit %d:\n%s%s", i, code, out, errs)
		}
		var err error
		if shards[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	// withCommit writes shard i with its config's commit set to c.
	withCommit := func(i int, c string) string {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(shards[i], &m); err != nil {
			t.Fatal(err)
		}
		m["config"].(map[string]any)["commit"] = c
		b, _ := json.Marshal(m)
		path := filepath.Join(dir, "c"+strconv.Itoa(i)+"-"+strings.Trim(c, "()")+".json")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const unknownNote = "merge: the commit is unknown in "
	for _, tc := range []struct {
		c0, c1     string
		code       int
		stderr     string // wanted in stderr; "" wants no unknown-commit note
		mergedInto string // the merged file's commit
	}{
		{"(devel)", "(devel)", exitOK, unknownNote, "unknown"},
		{"unknown", "unknown", exitOK, unknownNote, "unknown"},
		{"abcdef123456", "(devel)", exitOK, unknownNote, "unknown"},
		{"unknown", "abcdef123456", exitOK, unknownNote, "unknown"},
		{"abcdef123456", "abcdef123456", exitOK, "", "abcdef123456"},
		{"abcdef123456", "0123456789ab", exitUsage, `come from different configurations: commit "abcdef123456" vs "0123456789ab"`, ""},
	} {
		p0, p1 := withCommit(0, tc.c0), withCommit(1, tc.c1)
		code, out, errs := run(t, "merge", "--format", "json", p0, p1)
		if code != tc.code {
			t.Errorf("commits %q and %q: exit %d, want %d: %s", tc.c0, tc.c1, code, tc.code, errs)
			continue
		}
		if tc.stderr == "" && strings.Contains(errs, unknownNote) || !strings.Contains(errs, tc.stderr) {
			t.Errorf("commits %q and %q: stderr %q, want %q", tc.c0, tc.c1, errs, tc.stderr)
		}
		if tc.stderr == unknownNote && !strings.Contains(errs, "not compared by commit") {
			t.Errorf("commits %q and %q: stderr %q does not say the commits were not compared", tc.c0, tc.c1, errs)
		}
		if code != exitOK {
			continue
		}
		var m world.SummaryFile
		if err := json.Unmarshal([]byte(out), &m); err != nil {
			t.Fatalf("commits %q and %q: %v:\n%s", tc.c0, tc.c1, err, out)
		}
		if m.Config.Commit != tc.mergedInto || m.Seeds != 6 {
			t.Errorf("commits %q and %q: merged commit %q over %d seeds, want %q over 6", tc.c0, tc.c1, m.Config.Commit, m.Seeds, tc.mergedInto)
		}
	}
}
