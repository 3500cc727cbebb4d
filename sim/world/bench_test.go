package world

import (
	"strconv"
	"testing"
	"time"

	"github.com/acpsim/acpsim/properties"
	"github.com/acpsim/acpsim/sim/bench"
	"github.com/acpsim/acpsim/sim/parallel"
	"github.com/acpsim/acpsim/traces"
)

// BenchmarkSeed measures whole ten-prompt seeds with the default faults on,
// run one after another on one Runner and judged as they run, keeping no
// trace, as a swarm's worker runs them (JudgeOnly), per link: seeds/s and
// frame deliveries/s on one core (run with -cpu 1), per second of wall
// time and per CPU-second of the process (bench.CPUTime: what make bench
// prints, since a shared machine's wall time counts waiting for a core).
// It runs under the collector settings the swarm sets (parallel.TuneGC);
// GOGC=100 in the environment measures Go's default instead.
func BenchmarkSeed(b *testing.B) { benchSeeds(b, (*Runner).JudgeOnly) }

// BenchmarkSeedTrace is BenchmarkSeed keeping each seed's trace (Judge), as
// a run that writes it, the determinism check and coverage do.
func BenchmarkSeedTrace(b *testing.B) { benchSeeds(b, (*Runner).Judge) }

func benchSeeds(b *testing.B, judge func(*Runner, Config) (*Verdict, error)) {
	defer parallel.TuneGC()()
	for _, link := range []string{LinkStdio, LinkHTTP, LinkWS} {
		b.Run(link, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Link = link
			cfg.EnableLinkFaults()
			frames := 0
			cpu := judgeSeeds(b, cfg, judge, func(v *Verdict) { frames += v.Result.Delivers })
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
			b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "deliveries/s")
			b.ReportMetric(float64(b.N)/cpu, "seeds/cpu-s")
			b.ReportMetric(float64(frames)/cpu, "deliveries/cpu-s")
		})
	}
}

// BenchmarkSeedPrompts is the scaling of a seed with its length: stdio
// seeds with the default faults at 10, 100 and 1,000 prompts per Client.
// cpu-us/prompt is a seed's CPU time over its prompts (linear cost keeps it
// flat), events/prompt the trace events the simulated work takes per
// prompt (frames sent, delivered and dropped, timers: the scenario's
// growth, not the simulator's) and cpu-us/event what each costs. make
// bench prints them as ratios to the ten-prompt seed.
//
// It runs at two paces. "steady" has each user pause up to steadyMaxGap
// between submissions, a pace the Agent keeps up with, so a prompt takes
// the same simulated work in a long run as in a short one and the cost per
// prompt measures the simulator alone: that is the figure held to 1.5×.
// "default" is DefaultConfig's pace, a submission every 60 ms on average
// while a prompt's work (three chunks 20 ms apart, plus the round trips)
// takes longer: held prompts pile up over a long run, every Client timeout
// resends each of them, and the work per prompt grows with the run.
func BenchmarkSeedPrompts(b *testing.B) {
	for _, pace := range []string{"steady", "default"} {
		for _, prompts := range []int{10, 100, 1000} {
			b.Run(pace+"/prompts="+strconv.Itoa(prompts), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Prompts = prompts
				if pace == "steady" {
					cfg.MaxGap = steadyMaxGap
				}
				cfg.EnableLinkFaults()
				events := 0
				cpu := judgeSeeds(b, cfg, (*Runner).JudgeOnly, func(v *Verdict) { events += v.Result.Events })
				b.ReportMetric(float64(b.N)/cpu, "seeds/cpu-s")
				b.ReportMetric(cpu*1e6/float64(b.N*prompts), "cpu-us/prompt")
				b.ReportMetric(float64(events)/float64(b.N*prompts), "events/prompt")
				b.ReportMetric(cpu*1e6/float64(max(events, 1)), "cpu-us/event")
			})
		}
	}
}

// steadyMaxGap is BenchmarkSeedPrompts' steady pace: at this longest pause
// (150 ms on average) the trace events per prompt stay flat from 10 to
// 1,000 prompts (35, 32 and 34 over seeds 1–3), where the default 120 ms
// gives 40, 42 and 157.
const steadyMaxGap = 300 * time.Millisecond

// judgeSeeds judges seeds 1, 2, … of cfg for b.Loop on one Runner with
// judge, as a swarm's worker runs them, handing each verdict to seen, and
// returns the CPU-seconds they took.
func judgeSeeds(b *testing.B, cfg Config, judge func(*Runner, Config) (*Verdict, error), seen func(*Verdict)) float64 {
	var r Runner
	b.ReportAllocs()
	cpu0 := bench.CPUTime()
	for i := 0; b.Loop(); i++ {
		cfg.Seed = uint64(i + 1)
		v, err := judge(&r, cfg)
		if err != nil {
			b.Fatal(err)
		}
		seen(v)
	}
	return (bench.CPUTime() - cpu0).Seconds()
}

// BenchmarkRunPrompts is `acpsim run --prompts N` at its defaults (seed 1,
// the trace kept, judged as it runs) at 2,000 and 20,000 prompts: the CPU
// time of the whole run, the events each prompt took and whether the run
// stopped at its cap (capped 1) instead of finishing its work. make bench
// prints the ratio of the two runs' CPU time: at most 15 for ten times the
// prompts (issue 18, where a fixed cap stopped both runs at the same
// 254,118 events, and without it 20,000 prompts took 75× the time).
func BenchmarkRunPrompts(b *testing.B) {
	for _, prompts := range []int{2000, 20000} {
		b.Run("prompts="+strconv.Itoa(prompts), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Prompts = prompts
			events, capped := 0, 0
			cpu0 := bench.CPUTime()
			for b.Loop() {
				v, err := Judge(cfg)
				if err != nil {
					b.Fatal(err)
				}
				events += v.Result.Events
				if v.Report.End == traces.EndCap {
					capped++
				}
			}
			cpu := (bench.CPUTime() - cpu0).Seconds()
			b.ReportMetric(cpu/float64(b.N), "cpu-s/run")
			b.ReportMetric(float64(events)/float64(b.N*prompts), "events/prompt")
			b.ReportMetric(float64(capped)/float64(b.N), "capped")
		})
	}
}

// BenchmarkCheckFailing is the checker on failing runs, where its healthy
// benchmarks never go: a known-bad Agent's run at 2,000 and 20,000 prompts
// (key-length-in-utf16: thousands of legal keys refused; newest-id-on-retry:
// thousands of wrong ids), checked from the kept trace as acpsim judge
// checks a file. make bench prints each mutant's ratio of the two, which a
// checker linear in its anomalies keeps near 10 (target: at most 15); a
// judgement that walked every submission for each anomaly made it 24 and
// more, and hours at a million.
func BenchmarkCheckFailing(b *testing.B) {
	for _, agent := range []string{"key-length-in-utf16", "newest-id-on-retry"} {
		for _, prompts := range []int{2000, 20000} {
			b.Run(agent+"/prompts="+strconv.Itoa(prompts), func(b *testing.B) {
				cfg := DefaultConfig()
				cfg.Agent, cfg.Prompts = agent, prompts
				v, err := Judge(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if v.Report.OK() {
					b.Fatalf("%s passed at %d prompts: nothing to judge", agent, prompts)
				}
				log := v.Result.Log
				cpu0 := bench.CPUTime()
				for b.Loop() {
					properties.Check(log.Header, log.Events)
				}
				b.ReportMetric((bench.CPUTime()-cpu0).Seconds()/float64(b.N), "cpu-s/check")
				b.ReportMetric(float64(len(v.Report.Anomalies)), "anomalies")
			})
		}
	}
}
