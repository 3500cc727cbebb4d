#!/usr/bin/env node
// bad-client-adapter.mjs MODE: Client adapters (docs/client-adapter.md)
// that acpsim check-client must not pass, with no SDK: each speaks raw
// ndjson JSON-RPC to the Agent behind $ACPSIM_AGENT. MODE is one of
//   v1                   asks initialize in ACP v1's shape (as acpx does),
//                        then tells its user the error: never prompts
//   no-prompt            sets up a session, then tells "failed" without
//                        ever sending session/prompt
//   stuck                initialize answered, then waits forever, as a
//                        Client behind a proxy that hangs after initialize
//   failed-then-unknown  prompts (no key) and, once the Agent inserted the
//                        message, tells "failed", then "unknown": the user
//                        saw a failure that was not one
import { spawn } from "node:child_process";
import readline from "node:readline";

const mode = process.argv[2];
const modes = ["v1", "no-prompt", "stuck", "failed-then-unknown"];
if (!modes.includes(mode)) {
  process.stderr.write(`bad-client-adapter.mjs: MODE must be one of ${modes.join(", ")}\n`);
  process.exit(2);
}

const tell = (o) => process.stdout.write(JSON.stringify(o) + "\n");

// agent is the one Agent process, spoken to request by request.
let agent = null;
let nextId = 0;
const waiting = new Map(); // request id → resolve

function startAgent() {
  const child = spawn("sh", ["-c", `exec ${process.env.ACPSIM_AGENT}`], { stdio: ["pipe", "pipe", "inherit"] });
  child.stdin.on("error", () => {});
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.id !== undefined && !m.method && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  });
  child.on("exit", () => {
    for (const resolve of waiting.values()) resolve({ error: { code: 0, message: "the Agent process exited" } });
    waiting.clear();
  });
  return child;
}

function request(method, params) {
  const id = ++nextId;
  return new Promise((resolve) => {
    waiting.set(id, resolve);
    agent.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  });
}

const errorOf = (m) => `${m.error.code} ${m.error.message}`;
const cwd = process.env.ACPSIM_CWD ?? "/tmp";
let sessionId = null;

// setUp runs initialize (in the mode's shape) and session/new once; it
// returns an error string when the set-up failed.
async function setUp() {
  if (agent) return sessionId ? null : "no session";
  agent = startAgent();
  const init =
    mode === "v1"
      ? { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } }, clientInfo: { name: "bad-client-adapter", version: "0" } }
      : { protocolVersion: 2, info: { name: "bad-client-adapter", version: "0" }, capabilities: {} };
  const answer = await request("initialize", init);
  if (answer.error) return errorOf(answer);
  if (mode === "stuck") await new Promise(() => {}); // never goes on
  const created = await request("session/new", { cwd, mcpServers: [] });
  if (created.error) return errorOf(created);
  sessionId = created.result.sessionId;
  return null;
}

async function submit(m) {
  const err = await setUp();
  if (err) return tell({ id: m.id, outcome: "failed", error: err });
  if (mode === "v1" || mode === "no-prompt") return tell({ id: m.id, outcome: "failed", error: "declined without sending" });
  const answer = await request("session/prompt", { sessionId, prompt: [{ type: "text", text: m.submit }] });
  if (answer.error) return tell({ id: m.id, outcome: "failed", error: errorOf(answer) });
  tell({ id: m.id, outcome: "failed", error: "told failed although the Agent answered" });
  tell({ id: m.id, outcome: "unknown", error: "on second thought" });
}

for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const m = JSON.parse(line);
  if (m.submit !== undefined) await submit(m);
}
agent?.stdin.end();
agent?.kill("SIGKILL");
