package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/acpsim/acpsim/actors/agent"
	"github.com/acpsim/acpsim/actors/agent/store"
	"github.com/acpsim/acpsim/actors/agent/store/sqlitestore"
	"github.com/acpsim/acpsim/netfault"
	"github.com/acpsim/acpsim/netfault/realmode/serve"
	"github.com/acpsim/acpsim/netfault/realmode/tap"
	"github.com/acpsim/acpsim/sim"
	"github.com/acpsim/acpsim/sim/world"
	"github.com/google/uuid"
)

func newAgentCmd() *cobra.Command {
	var af agentFlags
	var dbPath, storeDir, listen string
	var promptErrors float64
	var seed uint64
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run a model Agent as an executable: ACP over stdin/stdout (ndjson), or over HTTP and WebSocket (--listen)",
		Long: `Run the reference Agent (or any model Agent: --agent) as a real process that
speaks ACP v2 as ndjson on stdin and stdout; logs go to stderr. It is the same
state machine the simulator runs, so the executable and the model cannot
drift apart. The Agent knobs are flags, as for run and swarm. A stdin line over
16 MiB without a newline is not read: the Agent stops with an error saying so.

With --listen ADDR it serves remote Clients instead, on one endpoint /acp:
Streamable HTTP (POST, GET for SSE streams, DELETE; Acp-Connection-Id and
Acp-Session-Id headers) and WebSocket (GET with Upgrade; text frames), plain
HTTP/1.1. The first line on stdout is the endpoint's URL, e.g.
http://127.0.0.1:7070/acp (with port 0 the system picks one: read that line);
nothing else goes to stdout. WebSocket Clients dial the same URL with ws://.
A POST whose body breaks off (fewer bytes than its Content-Length, broken
chunked encoding) is answered 400, one over 16 MiB 413. All connections feed the one Agent state machine; SIGTERM or SIGINT stops it
after closing the streams.

Crash points: GO_FAILPOINTS="acpsim/agent/<step>=return(true)" makes the
process exit (code 137, as if killed) right before the output of that
protocol step, e.g. acpsim/agent/respond-prompt: after the message and its
key binding are stored, before the response is written. The steps are the
simulator's crash sites (sync-insert, respond-prompt, update-user-message,
update-running, …).

With --db its store is a SQLite file (WAL: several processes may share it):
the session, the message and the key binding are written in one transaction,
and the binding's primary key is the insert-if-absent on (session, key).
--store DIR puts that file in DIR (acpsim check gives each seed a fresh DIR
through the env twin ACPSIM_STORE). Without either the store is in memory
and a restart forgets everything; --sessions-in memory keeps it there even
with --store or --db: a correct Agent whose sessions end with its process
(its next process answers session/resume of them -32002).

--prompt-errors P refuses a share P of the prompts it would insert (never a
retry of a key it recorded) with an error the v2 schema allows: -32603 or
429, a code of the schema's Other kind. Nothing is inserted and the
key stays unused, as the RFD has it. The draws come from
--prompt-errors-seed, per request site; acpsim check-client puts such an
Agent behind its tap.`,
		Example: `  acpsim agent
  acpsim agent --db /tmp/agent.db
  acpsim agent --listen 127.0.0.1:7070 --db /tmp/agent.db
  acpsim agent --busy breakpoint --agent memory-keys
  acpsim agent --sessions-in memory
  acpsim agent --protocol 1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := world.DefaultConfig()
			cfg.Policy = "none" // no model Client here: nothing for a policy to ask of the protocol
			if err := af.apply(&cfg); err != nil {
				return err
			}
			if err := cfg.Validate(); err != nil { // the knobs' combinations, as run checks them
				return err
			}
			f, err := agent.Lookup(cfg.Agent)
			if err != nil {
				return err
			}
			var st store.Store = store.NewDisk()
			if cfg.Knobs.SessionsIn == agent.SessionsMemory {
				// Sessions live and die with this process: no file is
				// opened, whatever --store (or ACPSIM_STORE) says.
				storeDir, dbPath = "", ""
			}
			if storeDir != "" && dbPath == "" {
				// --store is a directory, so that acpsim check can hand every
				// seed a fresh one through the env twin ACPSIM_STORE.
				if err := os.MkdirAll(storeDir, 0o755); err != nil {
					return fmt.Errorf("--store: %v", err)
				}
				dbPath = filepath.Join(storeDir, "agent.db")
			}
			if dbPath != "" {
				if fi, err := os.Stat(dbPath); err == nil && fi.IsDir() {
					return fmt.Errorf("--db %s: is a directory, expected a database file", dbPath)
				}
				db, err := sqlitestore.Open(dbPath)
				if err != nil {
					return fmt.Errorf("--db: %v", err)
				}
				defer db.Close()
				st = db
			}
			if !(promptErrors >= 0 && promptErrors <= 1) {
				return fmt.Errorf("--prompt-errors %g: expected a number between 0 and 1", promptErrors)
			}
			m := f(cfg.Knobs, func() store.Store { return st }, promptErrorsEnv(promptErrors, seed))
			if listen != "" {
				err = serveListen(cmd, m, st, listen, cfg.Agent, cfg.Knobs.Protocol)
			} else {
				fmt.Fprintf(os.Stderr, "acpsim agent %s: serving ACP v%s on stdin/stdout\n", cfg.Agent, cfg.Knobs.Protocol)
				err = serve.Stdio(m, st, os.Stdin, os.Stdout)
			}
			var fp *serve.FailpointError
			if errors.As(err, &fp) {
				fmt.Fprintf(os.Stderr, "acpsim agent: %v: exiting as if killed\n", fp)
				return exitError{exitFailpoint}
			}
			return err
		},
	}
	af.register(cmd.Flags())
	cmd.Flags().StringVar(&dbPath, "db", "", "SQLite file for sessions, messages and key bindings (created if missing; default: in memory)")
	cmd.Flags().StringVar(&storeDir, "store", "", "directory for the SQLite file DIR/agent.db; --db wins (check sets ACPSIM_STORE per seed)")
	cmd.Flags().StringVar(&listen, "listen", "", "serve HTTP and WebSocket on this address (127.0.0.1:0: any port) instead of stdio; prints the URL")
	cmd.Flags().Float64Var(&promptErrors, "prompt-errors", 0, "share of new prompts refused with an error before insertion (the key stays unused)")
	cmd.Flags().Uint64Var(&seed, "prompt-errors-seed", 1, "the seed --prompt-errors draws from (acpsim check-client gives its seed's)")
	withCatalogues(cmd, "agents")
	return cmd
}

// promptErrorsEnv is the Agent's Env: no fault of its own unless
// --prompt-errors asks for refusals. Each refusal is drawn by its site (the
// prompt's connection and request id) from a stream of the seed named by it
// (sim.BySite), so that the draws do not depend on the order things happen
// in. Behind acpsim tap the site holds the Agent process's number in the
// tap's trace ($ACPSIM_TAP_PROCESS): without it every process of a seed
// would refuse the same requests, as a Client numbers its requests afresh
// on each connection.
func promptErrorsEnv(rate float64, seed uint64) agent.Env {
	env := agent.Env{Name: "acpsim-agent", Choose: sim.Healthy{}.Choose, NewID: uuid.NewString}
	if rate > 0 {
		if n := os.Getenv(tap.ProcessEnv); n != "" {
			env.Name += "#" + n
		}
		env.Choose = sim.BySite{Seed: seed, Rates: map[string]float64{netfault.Reject: rate}}.Choose
		env.Draw = sim.NamedDraws(seed)
	}
	return env
}

// serveListen serves m on addr until SIGTERM or SIGINT, after printing the
// endpoint's URL as the first line on stdout: stdio carries no ACP in this
// mode, and a script or test that asked for port 0 learns the port there.
func serveListen(cmd *cobra.Command, m agent.Machine, st store.Store, addr, name, version string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--listen: %v", err)
	}
	url := serve.URL(l.Addr())
	fmt.Fprintln(cmd.OutOrStdout(), url)
	fmt.Fprintf(os.Stderr, "acpsim agent %s: serving ACP v%s on %s (Streamable HTTP; WebSocket at ws://%s%s)\n", name, version, url, l.Addr(), serve.Path)
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return serve.Remote(ctx, m, st, l)
}
