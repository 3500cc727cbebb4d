package world

import (
	"testing"

	"github.com/acpsim/acpsim/sim/bench"
)

// BenchmarkSeed measures whole ten-prompt seeds with the default faults on,
// per link: seeds/s and frame deliveries/s on one core (run with -cpu 1),
// per second of wall time and per CPU-second of the process (bench.CPUTime:
// what make bench prints, since a shared machine's wall time counts waiting
// for a core).
func BenchmarkSeed(b *testing.B) {
	for _, link := range []string{LinkStdio, LinkHTTP, LinkWS} {
		b.Run(link, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Link = link
			cfg.EnableLinkFaults()
			frames := 0
			b.ReportAllocs()
			cpu0 := bench.CPUTime()
			for i := 0; b.Loop(); i++ {
				cfg.Seed = uint64(i + 1)
				v, err := Judge(cfg)
				if err != nil {
					b.Fatal(err)
				}
				for _, e := range v.Result.Log.Events {
					if e.Kind == "deliver" {
						frames++
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "seeds/s")
			b.ReportMetric(float64(frames)/b.Elapsed().Seconds(), "deliveries/s")
			cpu := (bench.CPUTime() - cpu0).Seconds()
			b.ReportMetric(float64(b.N)/cpu, "seeds/cpu-s")
			b.ReportMetric(float64(frames)/cpu, "deliveries/cpu-s")
		})
	}
}
