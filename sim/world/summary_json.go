package world

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim"
)

// SummarySchema names the format of a swarm summary file (acpsim swarm
// --summary-json, acpsim merge --format json). A change that breaks readers
// gets a new name; merge refuses a file of another schema.
const SummarySchema = "acpsim-swarm-summary/1"

// SummaryFile is a swarm's summary as JSON: every count of the text
// summary, the flags that produced it and the shard it covers. Shards of
// one run merge (MergeSummaryFiles) into the file of the unsharded run.
type SummaryFile struct {
	Schema string        `json:"schema"`
	Config SummaryConfig `json:"config"`
	// Shard is the part of the run this file covers: index 0 of count 1
	// for a whole run or a merge.
	Shard ShardInfo `json:"shard"`
	// MergedFrom lists, in a merged file, the shards it was made of.
	MergedFrom []ShardInfo `json:"merged_from,omitempty"`

	// FirstSeed and Seeds are the seeds this file counts.
	FirstSeed    uint64 `json:"first_seed"`
	Seeds        int    `json:"seeds"`
	Failed       int    `json:"failed"`
	Inconclusive int    `json:"inconclusive"`
	// JudgedNone and JudgedNoneWhy are Summary's.
	JudgedNone    int            `json:"judged_none"`
	JudgedNoneWhy string         `json:"judged_none_why,omitempty"`
	Anomalies     []AnomalyCount `json:"anomalies"`
	Stats         StatsCount     `json:"stats"`
	Faults        []FaultCount   `json:"faults"`
	// Classes is null without fault classes, ActionClasses without action
	// classes.
	Classes       []ClassCount    `json:"classes"`
	ActionClasses []ClassCount    `json:"action_classes"`
	Coverage      *CoverageCounts `json:"coverage,omitempty"`
	Events        int             `json:"events"`
	// Failures are the first failing seeds in seed order, at most
	// config.max_failures of them; Failed counts them all.
	Failures []FailureEntry `json:"failures"`
	// NotDeterministic counts the seeds whose two runs differed (with
	// config.check_determinism); Nondeterministic lists the first ones.
	NotDeterministic int               `json:"nondeterministic"`
	Nondeterministic []DivergenceEntry `json:"nondeterministic_seeds,omitempty"`
}

// SummaryConfig is what produced a summary. Two files merge only when
// their configs are equal.
type SummaryConfig struct {
	// Args are the flags that shape the result, as --name=value, sorted:
	// those set away from their default, less the ones that may differ
	// between shards (--jobs, --shard, --shard-count, --summary-json,
	// --format, --ledger).
	Args   []string `json:"args"`
	Commit string   `json:"commit"`
	// FirstSeed and Seeds are the whole run's, whatever the shard.
	FirstSeed uint64 `json:"first_seed"`
	Seeds     int    `json:"seeds"`
	Policy    string `json:"policy"`
	Agent     string `json:"agent"`
	Link      string `json:"link"`
	Clients   int    `json:"clients"`
	Prompts   int    `json:"prompts"`
	// Rates are the base fault rates (each seed's own, with classes, are
	// drawn from them).
	Rates            map[string]float64 `json:"rates"`
	Classes          bool               `json:"classes"`
	Actions          bool               `json:"actions"`
	Coverage         bool               `json:"coverage"`
	Guided           bool               `json:"guided"`
	CheckDeterminism bool               `json:"check_determinism"`
	// Show is how many failing seeds the text lists, MaxFailures how many
	// the file keeps.
	Show        int `json:"show"`
	MaxFailures int `json:"max_failures"`
}

// ShardInfo is a shard of a run: Index of Count, its block of seeds and,
// informational (never compared), how long it took on how many jobs.
type ShardInfo struct {
	Index          int     `json:"index"`
	Count          int     `json:"count"`
	FirstSeed      uint64  `json:"first_seed"`
	Seeds          int     `json:"seeds"`
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Jobs           int     `json:"jobs"`
}

// AnomalyCount is an anomaly kind: how many, in how many seeds, and where
// it was first seen (the order of the text summary).
type AnomalyCount struct {
	Kind      string `json:"kind"`
	Count     int    `json:"count"`
	Seeds     int    `json:"seeds"`
	FirstSeed uint64 `json:"first_seed"`
	FirstRank int    `json:"first_rank"`
}

// FaultCount is a fault kind: faults injected of decisions asked, and where
// it was first asked.
type FaultCount struct {
	Kind      string `json:"kind"`
	Injected  int    `json:"injected"`
	Asked     int    `json:"asked"`
	FirstSeed uint64 `json:"first_seed"`
	FirstRank int    `json:"first_rank"`
}

// StatsCount is properties.Stats: the interesting events.
type StatsCount struct {
	RespLostAfterInsert int `json:"responses_lost_after_insertion"`
	RetriesFromBinding  int `json:"retries_answered_from_a_binding"`
	RetriesWhilePending int `json:"retries_of_still_pending_prompts"`
	RetriesAfterRestart int `json:"keyed_retries_after_an_agent_restart"`
	ExpectedForgotten   int `json:"keys_forgotten_by_contract"`
	Submissions         int `json:"submissions"`
	Prompts             int `json:"prompts"`
	Frames              int `json:"frames"`
	Sessions            int `json:"sessions"`
	UnusedSessions      int `json:"unused_sessions"`
}

// CoverageCounts is CoverageTotal by pair name.
type CoverageCounts struct {
	// Pairs are every pair of CoveragePairs, in its order.
	Pairs []PairCount `json:"pairs"`
	// GuidedBatches and Raised are a guided swarm's batches and, per kind,
	// the batches its rate was raised in.
	GuidedBatches int            `json:"guided_batches"`
	Raised        map[string]int `json:"raised,omitempty"`
}

// PairCount is one (fault point × protocol state) pair.
type PairCount struct {
	Pair       string `json:"pair"`
	Applicable bool   `json:"applicable"`
	Hits       int    `json:"hits"`
	Seeds      int    `json:"seeds"`
}

// ClassCount is a fault class: the seeds it was on in, and how many of
// those failed.
type ClassCount struct {
	Class  string `json:"class"`
	On     int    `json:"on"`
	Failed int    `json:"failed"`
}

// FailureEntry is a failing seed.
type FailureEntry struct {
	Seed         uint64             `json:"seed"`
	Kinds        []string           `json:"kinds"`
	Inconclusive bool               `json:"inconclusive"`
	First        string             `json:"first"`
	Rates        map[string]float64 `json:"rates,omitempty"`
	ClassesOn    []string           `json:"classes_on,omitempty"`
	ActionsOn    []string           `json:"actions_on,omitempty"`
	Rerun        string             `json:"rerun"`
}

// DivergenceEntry is a seed whose two runs differed.
type DivergenceEntry struct {
	Seed   uint64 `json:"seed"`
	Seq    int64  `json:"seq"`
	Run1   string `json:"run1"`
	Run2   string `json:"run2"`
	Events [2]int `json:"events"`
}

// NewSummaryFile is sum as a file; rerun gives each failing seed's command.
func NewSummaryFile(sum *Summary, cfg SummaryConfig, shard ShardInfo, rerun func(SeedFailure) string) *SummaryFile {
	f := &SummaryFile{Schema: SummarySchema, Config: cfg, Shard: shard, FirstSeed: sum.FirstSeed, Seeds: sum.Seeds,
		Failed: sum.Failed, Inconclusive: sum.Inconclusive, JudgedNone: sum.JudgedNone, JudgedNoneWhy: sum.JudgedNoneWhy, Stats: StatsCount(sum.Stats),
		Events: sum.Events, NotDeterministic: sum.NotDeterministic,
		Anomalies: []AnomalyCount{}, Faults: []FaultCount{}, Failures: []FailureEntry{}}
	f.Classes, f.ActionClasses = classCounts(sum.Classes), classCounts(sum.ActionClasses)
	for _, a := range sum.Anomalies {
		f.Anomalies = append(f.Anomalies, AnomalyCount{a.Kind, a.Count, a.Seeds, a.First.Seed, a.First.Rank})
	}
	for i, k := range sum.Faults {
		first := FirstSeen{}
		if i < len(sum.FaultsFirst) {
			first = sum.FaultsFirst[i]
		}
		f.Faults = append(f.Faults, FaultCount{k.Kind, k.Faults, k.Asked, first.Seed, first.Rank})
	}
	if c := sum.Coverage; c != nil {
		f.Coverage = &CoverageCounts{GuidedBatches: c.Batches, Raised: c.Raised}
		for i, p := range CoveragePairs {
			f.Coverage.Pairs = append(f.Coverage.Pairs, PairCount{p.Name(), c.Applicable[i], c.Hits[i], c.Seeds[i]})
		}
	}
	for _, fl := range sum.Failures {
		f.Failures = append(f.Failures, FailureEntry{Seed: fl.Seed, Kinds: fl.Kinds, Inconclusive: fl.Inconclusive,
			First: fl.First, Rates: fl.Rates, ClassesOn: fl.On, ActionsOn: fl.ActionsOn, Rerun: rerun(fl)})
	}
	for _, d := range sum.Nondeterministic {
		f.Nondeterministic = append(f.Nondeterministic, DivergenceEntry{d.Seed, d.Seq, d.A, d.B, d.Runs})
	}
	return f
}

// Summary is the file as a Summary (for printing), with each listed
// failure's rerun command.
func (f *SummaryFile) Summary() (*Summary, []string, error) {
	sum := &Summary{FirstSeed: f.FirstSeed, Seeds: f.Seeds, Failed: f.Failed, Inconclusive: f.Inconclusive, JudgedNone: f.JudgedNone, JudgedNoneWhy: f.JudgedNoneWhy,
		Stats: properties.Stats(f.Stats), Events: f.Events, NotDeterministic: f.NotDeterministic}
	sum.Classes, sum.ActionClasses = classTotals(f.Classes), classTotals(f.ActionClasses)
	for _, a := range f.Anomalies {
		sum.Anomalies = append(sum.Anomalies, KindTotal{a.Kind, a.Count, a.Seeds, FirstSeen{a.FirstSeed, a.FirstRank}})
	}
	for _, k := range f.Faults {
		sum.Faults = append(sum.Faults, sim.KindCount{Kind: k.Kind, Asked: k.Asked, Faults: k.Injected})
		sum.FaultsFirst = append(sum.FaultsFirst, FirstSeen{k.FirstSeed, k.FirstRank})
	}
	if c := f.Coverage; c != nil {
		if len(c.Pairs) != len(CoveragePairs) {
			return nil, nil, fmt.Errorf("coverage: %d pairs, this acpsim knows %d (a summary from another version?)", len(c.Pairs), len(CoveragePairs))
		}
		n := len(CoveragePairs)
		t := &CoverageTotal{Hits: make([]int, n), Seeds: make([]int, n), Applicable: make([]bool, n), Raised: c.Raised, Batches: c.GuidedBatches}
		for i, p := range c.Pairs {
			if p.Pair != CoveragePairs[i].Name() {
				return nil, nil, fmt.Errorf("coverage: pair %d is %q, this acpsim's is %q (a summary from another version?)", i, p.Pair, CoveragePairs[i].Name())
			}
			t.Hits[i], t.Seeds[i], t.Applicable[i] = p.Hits, p.Seeds, p.Applicable
		}
		sum.Coverage = t
	}
	reruns := make([]string, 0, len(f.Failures))
	for _, fl := range f.Failures {
		sum.Failures = append(sum.Failures, SeedFailure{Seed: fl.Seed, Kinds: fl.Kinds, Inconclusive: fl.Inconclusive,
			First: fl.First, Rates: fl.Rates, On: fl.ClassesOn, ActionsOn: fl.ActionsOn})
		reruns = append(reruns, fl.Rerun)
	}
	for _, d := range f.Nondeterministic {
		sum.Nondeterministic = append(sum.Nondeterministic, SeedDivergence{d.Seed, &Divergence{Seq: d.Seq, A: d.Run1, B: d.Run2, Runs: d.Events}})
	}
	return sum, reruns, nil
}

// WriteJSON writes f, indented, with a final newline.
func (f *SummaryFile) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadSummaryFile reads a summary file and checks its schema.
func ReadSummaryFile(path string) (*SummaryFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f SummaryFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%s: not a swarm summary: %v", path, err)
	}
	if f.Schema != SummarySchema {
		return nil, fmt.Errorf("%s: schema %q, expected %q (acpsim swarm --summary-json writes it)", path, f.Schema, SummarySchema)
	}
	if f.Shard.Count < 1 || f.Shard.Index < 0 || f.Shard.Index >= f.Shard.Count {
		return nil, fmt.Errorf("%s: shard %d/%d: expected 0 ≤ index < count", path, f.Shard.Index, f.Shard.Count)
	}
	return &f, nil
}
