package world

// Merging the summary files of a sharded swarm into the file of the
// unsharded run.

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/acpsim/acpsim/properties"
)

// MergeSummaryFiles combines the shards of one run, named by names (for
// errors), into the summary file of the unsharded run: the same counts, the
// kinds in the order one swarm would have seen them, the first failing
// seeds. It refuses files of different configurations, a shard given
// twice, a shard missing, and a shard whose seeds are not its block.
func MergeSummaryFiles(files []*SummaryFile, names []string) (*SummaryFile, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no summary to merge")
	}
	first := files[0]
	n := first.Shard.Count
	byIndex := make([]int, n)
	for i := range byIndex {
		byIndex[i] = -1
	}
	commit := first.Config.Commit
	for i, f := range files {
		// A commit nobody knows matches nothing and contradicts nothing:
		// it is left out of the comparison, and the merge's commit is
		// unknown too (acpsim merge says so).
		a, b := first.Config, f.Config
		if !CommitKnown(a.Commit) || !CommitKnown(b.Commit) {
			a.Commit, b.Commit, commit = "", "", UnknownCommit
		}
		if diff := configDiff(a, b); diff != "" {
			return nil, fmt.Errorf("%s and %s come from different configurations: %s", names[0], names[i], diff)
		}
		if f.Shard.Count != n {
			return nil, fmt.Errorf("%s is shard %d/%d, %s shard %d/%d: the shards of one run share their count",
				names[0], first.Shard.Index, n, names[i], f.Shard.Index, f.Shard.Count)
		}
		if j := byIndex[f.Shard.Index]; j >= 0 {
			return nil, fmt.Errorf("%s and %s are both shard %d/%d (overlapping shards)", names[j], names[i], f.Shard.Index, n)
		}
		byIndex[f.Shard.Index] = i
		lo, seeds := ShardRange(f.Config.FirstSeed, f.Config.Seeds, f.Shard.Index, n)
		if f.FirstSeed != lo || f.Seeds != seeds {
			return nil, fmt.Errorf("%s: shard %d/%d counts seeds %d…%d, expected %d…%d", names[i], f.Shard.Index, n,
				f.FirstSeed, f.FirstSeed+uint64(f.Seeds)-1, lo, lo+uint64(seeds)-1)
		}
	}
	var missing []int
	for i, j := range byIndex {
		if j < 0 {
			missing = append(missing, i)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("shard(s) %v of %d missing: merge needs every shard of the run exactly once", missing, n)
	}
	m := &SummaryFile{Schema: SummarySchema, Config: first.Config, Shard: ShardInfo{Index: 0, Count: 1},
		FirstSeed: first.Config.FirstSeed, Anomalies: []AnomalyCount{}, Faults: []FaultCount{}, Failures: []FailureEntry{}}
	m.Config.Commit = commit
	anomalies := map[string]*AnomalyCount{}
	faults := map[string]*FaultCount{}
	for _, j := range byIndex { // in shard order, so in seed order
		f := files[j]
		if n > 1 {
			m.MergedFrom = append(m.MergedFrom, f.Shard)
		} else {
			m.MergedFrom = f.MergedFrom
		}
		m.Shard.ElapsedSeconds = max(m.Shard.ElapsedSeconds, f.Shard.ElapsedSeconds)
		m.Shard.Jobs += f.Shard.Jobs
		m.Seeds += f.Seeds
		m.Failed += f.Failed
		m.Inconclusive += f.Inconclusive
		m.JudgedNone += f.JudgedNone
		if m.JudgedNoneWhy == "" {
			m.JudgedNoneWhy = f.JudgedNoneWhy
		}
		m.Events += f.Events
		m.NotDeterministic += f.NotDeterministic
		st := properties.Stats(m.Stats)
		st.Add(properties.Stats(f.Stats))
		m.Stats = StatsCount(st)
		for _, a := range f.Anomalies {
			if t, ok := anomalies[a.Kind]; ok {
				t.Count += a.Count
				t.Seeds += a.Seeds
			} else {
				anomalies[a.Kind] = &a
			}
		}
		for _, k := range f.Faults {
			if t, ok := faults[k.Kind]; ok {
				t.Injected += k.Injected
				t.Asked += k.Asked
			} else {
				faults[k.Kind] = &k
			}
		}
		if err := mergeClasses(&m.Classes, f.Classes, "fault", names[j], names[0]); err != nil {
			return nil, err
		}
		if err := mergeClasses(&m.ActionClasses, f.ActionClasses, "action", names[j], names[0]); err != nil {
			return nil, err
		}
		if (f.Coverage == nil) != (first.Coverage == nil) {
			return nil, fmt.Errorf("%s and %s: one counts coverage, the other not", names[0], names[j])
		}
		if c := f.Coverage; c != nil {
			if m.Coverage == nil {
				m.Coverage = &CoverageCounts{GuidedBatches: c.GuidedBatches, Raised: maps.Clone(c.Raised)}
				for _, p := range c.Pairs {
					m.Coverage.Pairs = append(m.Coverage.Pairs, PairCount{Pair: p.Pair, Applicable: p.Applicable})
				}
			}
			if len(c.Pairs) != len(m.Coverage.Pairs) {
				return nil, fmt.Errorf("%s: %d coverage pairs, %s %d", names[j], len(c.Pairs), names[0], len(m.Coverage.Pairs))
			}
			for i, p := range c.Pairs {
				q := &m.Coverage.Pairs[i]
				if p.Pair != q.Pair || p.Applicable != q.Applicable {
					return nil, fmt.Errorf("%s: coverage pair %d is %q, in %s %q", names[j], i, p.Pair, names[0], q.Pair)
				}
				q.Hits += p.Hits
				q.Seeds += p.Seeds
			}
		}
		m.Failures = append(m.Failures, f.Failures...)
		m.Nondeterministic = append(m.Nondeterministic, f.Nondeterministic...)
	}
	if k := first.Config.MaxFailures; k >= 0 {
		m.Failures = m.Failures[:min(k, len(m.Failures))]
		m.Nondeterministic = m.Nondeterministic[:min(k, len(m.Nondeterministic))]
	}
	for _, a := range anomalies {
		m.Anomalies = append(m.Anomalies, *a)
	}
	slices.SortFunc(m.Anomalies, func(a, b AnomalyCount) int {
		return cmpFirst(FirstSeen{a.FirstSeed, a.FirstRank}, FirstSeen{b.FirstSeed, b.FirstRank})
	})
	for _, k := range faults {
		m.Faults = append(m.Faults, *k)
	}
	slices.SortFunc(m.Faults, func(a, b FaultCount) int {
		return cmpFirst(FirstSeen{a.FirstSeed, a.FirstRank}, FirstSeen{b.FirstSeed, b.FirstRank})
	})
	m.Shard.FirstSeed, m.Shard.Seeds = m.FirstSeed, m.Seeds
	return m, nil
}

// classCounts are a summary's class totals as a file's (nil stays nil).
func classCounts(ts []ClassTotal) []ClassCount {
	if ts == nil {
		return nil
	}
	out := make([]ClassCount, 0, len(ts))
	for _, c := range ts {
		out = append(out, ClassCount(c))
	}
	return out
}

// classTotals are a file's class counts as a summary's (nil stays nil).
func classTotals(cs []ClassCount) []ClassTotal {
	if cs == nil {
		return nil
	}
	out := make([]ClassTotal, 0, len(cs))
	for _, c := range cs {
		out = append(out, ClassTotal(c))
	}
	return out
}

// mergeClasses adds a shard's class counts (of kind what: fault or action)
// to the merge's, which the first shard shapes.
func mergeClasses(m *[]ClassCount, f []ClassCount, what, name, first string) error {
	if *m == nil && f != nil {
		*m = make([]ClassCount, len(f))
		for i, c := range f {
			(*m)[i].Class = c.Class
		}
	}
	if len(f) != len(*m) {
		return fmt.Errorf("%s: %d %s classes, %s %d", name, len(f), what, first, len(*m))
	}
	for i, c := range f {
		if c.Class != (*m)[i].Class {
			return fmt.Errorf("%s: %s class %d is %s, in %s %s", name, what, i, c.Class, first, (*m)[i].Class)
		}
		(*m)[i].On += c.On
		(*m)[i].Failed += c.Failed
	}
	return nil
}

func cmpFirst(a, b FirstSeen) int {
	switch {
	case a.Before(b):
		return -1
	case b.Before(a):
		return 1
	}
	return 0
}

// UnknownCommit is a summary's commit when the acpsim that wrote it could
// not name one: a build without a VCS stamp run outside a git checkout.
const UnknownCommit = "unknown"

// CommitKnown reports whether a summary's commit names one: not "",
// UnknownCommit, or "(devel)", the Go toolchain's word for a build it
// cannot version. Two unknown commits are not the same commit.
func CommitKnown(c string) bool {
	return c != "" && c != UnknownCommit && c != "(devel)"
}

// configDiff names the first field in which two configs differ ("" if none).
func configDiff(a, b SummaryConfig) string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	t := va.Type()
	for i := range t.NumField() {
		if !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			ja, _ := json.Marshal(va.Field(i).Interface())
			jb, _ := json.Marshal(vb.Field(i).Interface())
			return fmt.Sprintf("%s %s vs %s", name, ja, jb)
		}
	}
	return ""
}
