package world

import (
	"testing"
)

// BenchmarkSeed measures whole ten-prompt seeds with the default faults on,
// per link: seeds/s and frame deliveries/s on one core (run with -cpu 1).
func BenchmarkSeed(b *testing.B) {
	for _, link := range []string{LinkStdio, LinkHTTP, LinkWS} {
		b.Run(link, func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Link = link
			cfg.EnableLinkFaults()
			frames := 0
			b.ReportAllocs()
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
		})
	}
}
