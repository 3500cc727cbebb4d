#!/usr/bin/env node
// acpx-client-adapter.mjs: acpx (a published headless ACP v1 Client, npm
// acpx 0.19.1) driven as a script drives it, for acpsim check-client
// (docs/client-adapter.md): each submission is one `acpx --format json
// PROMPT` run against the Agent in $ACPSIM_AGENT, with acpx's session state
// (~/.acpx) kept in $ACPSIM_STATE_DIR so it survives the adapter's restarts.
// The outcome is read from the JSON-RPC frames acpx prints: the prompt's
// stopReason (inserted), its error (failed), or neither (unknown).
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { loadState, runForgetful, saveState } from "./client-adapter-common.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const acpx = path.join(here, "node_modules", ".bin", "acpx");
const cwd = process.env.ACPSIM_CWD ?? "/tmp";
const home = path.join(process.env.ACPSIM_STATE_DIR ?? "/tmp", "home");
fs.mkdirSync(home, { recursive: true });
const state = loadState(true);

// acpxRun runs acpx with args and resolves with its exit code.
function acpxRun(args) {
  return new Promise((resolve) => {
    const child = spawn(acpx, ["--agent", process.env.ACPSIM_AGENT, "--cwd", cwd, ...args], { stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, HOME: home } });
    child.on("close", resolve);
  });
}

// run sends one prompt with acpx and reads its outcome from the frames. acpx
// wants the session made first, once: `acpx sessions new`.
async function run(m) {
  if (!state.sessionId) {
    await acpxRun(["sessions", "new"]);
    state.sessionId = "made";
    saveState(true, state);
  }
  return prompt(m);
}

function prompt(m) {
  return new Promise((resolve) => {
    const child = spawn(acpx, ["--agent", process.env.ACPSIM_AGENT, "--cwd", cwd, "--format", "json", m.submit], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HOME: home },
    });
    let promptID = null;
    let outcome = null;
    const lines = readline.createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      let f;
      try {
        f = JSON.parse(line);
      } catch {
        return;
      }
      if (f.method === "session/prompt") promptID = f.id;
      else if (promptID !== null && f.id === promptID && f.result?.stopReason) {
        outcome = { id: m.id, outcome: "inserted", stopReason: f.result.stopReason };
      } else if (promptID !== null && f.id === promptID && f.error) {
        outcome = { id: m.id, outcome: "failed", error: `${f.error.code} ${f.error.message}` };
      }
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => {
      resolve(outcome ?? { id: m.id, outcome: "unknown", error: `acpx exited ${code} without an answer to the prompt: ${stderr.trim().split("\n").pop() ?? ""}` });
    });
  });
}

await runForgetful(state, run, "the script restarted while acpx ran");
