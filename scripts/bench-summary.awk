# Prints the DESIGN.md §7 throughput figures from `go test -bench` output as
# means over the runs, each with its target and the ratio to it.
{
	for (i = 3; i < NF; i += 2) {
		key = $1 " " $(i + 1)
		sum[key] += $i
		n[key]++
	}
}
function show(label, key, target) {
	if (n[key] == 0) { printf "%-48s (no runs)\n", label; return }
	v = sum[key] / n[key]
	printf "%-48s %12.0f   target %9d   ratio %.2f\n", label, v, target, v / target
}
END {
	show("frame deliveries per core-second (stdio)", "BenchmarkSeed/stdio deliveries/s", 300000)
	show("ten-prompt seeds per core-second (stdio)", "BenchmarkSeed/stdio seeds/s", 2000)
	show("ten-prompt seeds per core-second (http)", "BenchmarkSeed/http seeds/s", 2000)
	show("ten-prompt seeds per core-second (ws)", "BenchmarkSeed/ws seeds/s", 2000)
	show("checker submissions per core-second", "BenchmarkCheck submissions/s", 1000000)
	show("prompt frame round trips per core-second", "BenchmarkPromptRoundTrip frames/s", 0 + 1 / (2.2e-6))
}
