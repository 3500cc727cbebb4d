# acpsim: `make test` is what CI runs (.ci/run). `make bench` prints the
# figures of docs/design.md#performance-targets and acpsim's checker beside porcupine.

GO ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
BENCHSTAT ?= golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
BENCHCOUNT ?= 6

.PHONY: test lint unit race race-real bench bench-quick bench-pair bench-ir run

test: deps lint unit race-real fuzz

# What the tests need beyond Go and Node, installed when missing so that
# make test runs on a bare Debian machine: the interop tests' npm packages
# (interop/node_modules, from the committed lockfile), Debian's chromium,
# in which traces/view renders its page headless, and python3 for the
# Agent and Client templates. As root (CI)
# apt-get installs it; otherwise through sudo, and a machine with neither
# is told what to install.
.PHONY: deps chromium python3
deps: interop/node_modules chromium python3

# The Agent and Client templates of interop/ are Python 3, standard library
# only (the Node port of the Agent, template-agent.mjs, needs only node).
python3:
	@if command -v python3 >/dev/null 2>&1; then exit 0; fi; \
	echo "make test: installing Debian's python3 (the interop/template-*.py are tested)"; \
	if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y --no-install-recommends python3; \
	elif command -v sudo >/dev/null 2>&1; then sudo apt-get update && sudo apt-get install -y --no-install-recommends python3; \
	else echo "make test: python3 is missing and neither root nor sudo is here: install Debian's python3 package, then run make test again"; exit 1; fi

chromium:
	@if command -v chromium >/dev/null 2>&1; then exit 0; fi; \
	echo "make test: installing Debian's chromium (the view's headless test renders in it)"; \
	if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y --no-install-recommends chromium; \
	elif command -v sudo >/dev/null 2>&1; then sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium; \
	else echo "make test: chromium is missing and neither root nor sudo is here: install Debian's chromium package, then run make test again"; exit 1; fi

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

unit: interop/node_modules
	$(GO) test -count=1 -timeout 25m ./...

# The interop tests (cmd/acpsim/interop_test.go) run Node programs written against the
# official TypeScript SDK, and published ACP software (acpx, @thinkwell/conductor),
# installed at the versions of the committed lockfile. npm install, not npm ci: acpx's
# @openclaw/fs-safe 0.12.0 names optional platform packages that were never published at
# that version, which npm ci reads as a lockfile out of sync; npm install skips them and
# leaves the lockfile as it is.
interop/node_modules: interop/package-lock.json
	npm install --prefix interop --no-audit --no-fund
	touch $@

race:
	$(GO) test -race -count=1 ./...

# The real-process and socket code under the race detector, in every run of
# make test: every package of netfault/realmode (child processes, acpsim
# agent on stdio and --listen, the dialers, the tap, the stdio proxy, the
# drivers of check, check-client and conform), and acpsim judge's decoding
# goroutine.
race-real:
	$(GO) test -race -count=1 ./netfault/realmode/...
	$(GO) test -race -count=1 -run 'Listen|AgentExits|CheckPassesTheReferenceAgentThrough|CheckGivesBroken|CheckRemote|CheckJobs|JudgeReadsAhead|JudgeAgreesWithRun|CheckClientPassesTheKeyed|CheckClientBroken|TwoTapsShareATrace|TapKills|CheckEndsWhen|AnInterruptedCheck' ./cmd/acpsim/

run:
	$(GO) run ./cmd/acpsim run

# Every fuzz target of the repo for FUZZTIME each, one run per target (go
# test -fuzz takes one target at a time): the trace reader, the codec, the
# checker's readers, the Agent's stdin. Their seed corpora (testdata/fuzz/)
# also run in make unit as plain tests, and a failing input lands there.
# A Fuzz function missing from FUZZ_TARGETS fails the target. The first run
# on a cold build cache compiles everything instrumented, minutes more.
# A target may give its own -fuzztime after a second colon: FuzzServeStdio
# runs a count, as an input that waits for the Agent's timers can outlast a
# time budget, which go test then reports as "context deadline exceeded".
# go1.26's fuzz coordinator can report the same at the end of any time
# budget on a busy machine, with no failing input (golang/go#75804, fixed in
# go1.27): such a run is repeated once; a failing input, or a second
# failure, fails the target.
.PHONY: fuzz
FUZZTIME ?= 7s
FUZZ_TARGETS = \
	./actors/acp:FuzzParseLine \
	./actors/acp:FuzzParseLineReadsAsTheCodec \
	./traces:FuzzRead \
	./traces:FuzzScanMatchesJSON \
	./traces:FuzzFrameRoundTrip \
	./properties:FuzzViewMatchesParseLine \
	./properties:FuzzReadersMatchCodec \
	./netfault/realmode/stdinfuzz:FuzzServeStdio:15000x

fuzz:
	@for f in $$(git grep -h -o '^func Fuzz[A-Za-z0-9_]*' -- '*_test.go' | sed 's/^func //'); do \
		case " $(FUZZ_TARGETS) " in *":$$f "*|*":$$f:"*) ;; *) echo "fuzz: $$f is not in FUZZ_TARGETS"; exit 1;; esac; \
	done
	@set -e; log=$$(mktemp); trap 'rm -f "$$log"' EXIT; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; time=$(FUZZTIME); \
		case "$$name" in *:*) time=$${name#*:}; name=$${name%%:*};; esac; \
		echo "fuzz $$name in $$pkg for $$time"; \
		if $(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime "$$time" "$$pkg" > "$$log" 2>&1; then cat "$$log"; else \
			cat "$$log"; \
			if grep -q 'context deadline exceeded' "$$log" && ! grep -q 'Failing input written' "$$log"; then \
				echo "fuzz $$name: no failing input, only go1.26's race at the end of -fuzztime (golang/go#75804, fixed in go1.27): once more"; \
				$(GO) test -run '^$$' -fuzz "^$$name$$" -fuzztime "$$time" "$$pkg"; \
			else exit 1; fi; \
		fi; \
	done

# Per-core figures: -cpu 1, rates per CPU-second of the process (the machine
# may be shared), BENCHCOUNT runs of each, means in the summary. The million-
# submission history is generated once per run of package bench (about 20 s;
# the benchmark takes up to 12 GB: CHECK_SUBS=200000 needs a fifth). The
# porcupine comparison runs once: a search that times out takes its whole
# limit, PORCUPINE_LIMIT (wall time). bench.txt keeps the raw runs for
# benchstat comparisons between commits. acpsim judge streams the same
# history from an ndjson file in a process of its own, once: its wall and
# CPU time and max RSS at 10,000, 100,000 and CHECK_SUBS submissions
# (issue 13: linear, and a million in at most 1.5 GB).
PORCUPINE_LIMIT ?= 60s
CHECK_SUBS ?= 1000000

bench:
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1 -count $(BENCHCOUNT) ./sim/world/ ./properties/ ./actors/acp/ > bench.txt
	$(GO) test -run '^$$' -bench 'CheckMillion|CheckFloor|CheckCore$$|CheckCoreNames|Intern' -benchmem -cpu 1 -count $(BENCHCOUNT) -timeout 60m ./sim/bench/ -args -check.subs=$(CHECK_SUBS) >> bench.txt
	$(GO) test -run '^$$' -bench 'JudgeFile' -cpu 1 -count 1 -timeout 60m ./cmd/acpsim/ -args -judge.subs=10000,100000,$(CHECK_SUBS) >> bench.txt
	$(GO) test -run '^$$' -bench 'Porcupine|TraceBytes|CheckCoreFromDisk' -cpu 1 -count 1 -timeout 60m ./sim/bench/ -args -porcupine.limit=$(PORCUPINE_LIMIT) >> bench.txt
	$(GO) run $(BENCHSTAT) bench.txt > benchstat.txt
	@awk -f scripts/bench-summary.awk bench.txt
	@echo "(benchstat of every metric: benchstat.txt; raw runs: bench.txt)"

# The same summary at a glance, in a few minutes: one run of each benchmark,
# a 200,000-submission checker history, porcupine cut off after 10 s. For a
# comparison between commits use make bench (BENCHCOUNT runs, benchstat).
bench-quick:
	$(GO) test -run '^$$' -bench . -benchmem -cpu 1 -count 1 ./sim/world/ ./properties/ ./actors/acp/ > bench-quick.txt
	$(GO) test -run '^$$' -bench 'CheckMillion|CheckFloor|CheckCore$$|CheckCoreNames|Intern' -benchmem -cpu 1 -count 1 -timeout 20m ./sim/bench/ -args -check.subs=200000 >> bench-quick.txt
	$(GO) test -run '^$$' -bench 'Porcupine|TraceBytes|CheckCoreFromDisk' -cpu 1 -count 1 -timeout 20m ./sim/bench/ -args -porcupine.limit=10s >> bench-quick.txt
	$(GO) test -run '^$$' -bench 'JudgeFile' -cpu 1 -count 1 -timeout 20m ./cmd/acpsim/ -args -judge.subs=10000,100000,200000 >> bench-quick.txt
	@awk -f scripts/bench-summary.awk bench-quick.txt
	@echo "(raw runs: bench-quick.txt)"

# A change measured as the speed log measures it: the benchmark BENCH of
# package PKG at BASE and at the working tree, run at the same time on two
# cores, PAIRS times, and benchstat of the two (scripts/bench-pair). ARGS go
# to the test binaries: -test.benchtime, and a benchmark's own flags after.
BASE ?= HEAD
PKG ?= sim/bench
BENCH ?= CheckMillionSteps$$
PAIRS ?= 3
ARGS ?= -test.benchtime 5x -check.subs=100000
bench-pair:
	BENCHSTAT=$(BENCHSTAT) scripts/bench-pair '$(BASE)' '$(PKG)' '$(BENCH)' '$(PAIRS)' $(ARGS)

# The same comparison in instructions, which the machine's load cannot move:
# one iteration of BENCH at BASE and at the working tree under valgrind's
# cachegrind, the collector off (scripts/bench-ir; needs valgrind). Sizes
# small, as a run is 50 times slower: IR_ARGS go to the test binaries.
IR_ARGS ?= -check.subs=5000
bench-ir:
	scripts/bench-ir '$(BASE)' '$(PKG)' '$(BENCH)' $(IR_ARGS)

# A page of a duplicate and its screenshot, artifacts to look at: the
# browser test of package view leaves its page as view-demo.html (after
# checking it in headless Chromium), then Chromium shoots view-demo.png.
.PHONY: view-demo
view-demo:
	$(GO) test -count=1 -run '^TestChromiumMarksTheDuplicateAndTheLostResponse$$' ./traces/view/ -args -demo=$(CURDIR)
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --screenshot=$(CURDIR)/view-demo.png --window-size=1400,900 file://$(CURDIR)/view-demo.html
