#!/usr/bin/env node
// acpx-client-adapter.mjs: acpx (npm acpx, a headless ACP Client) as a
// script drives it, for acpsim check-client (docs/client-adapter.md): one
// `acpx exec` per submission, the Agent given as `--agent "$ACPSIM_AGENT"`,
// its JSON output read for the answer to session/prompt. acpx speaks ACP v1,
// so the outcome told is "inserted" with the turn's stopReason; an error the
// Agent answered the prompt with is "failed"; acpx exiting with no answer
// (its Agent died mid-turn) is "unknown": the script cannot know whether
// the input went in. acpx's own flags go after the script's, e.g.
// --prompt-retries 2 (acpx retries a turn the Agent answered with an error).
// With --resend the script runs acpx again when it exited with no answer,
// as a user pressing enter again would, and a prompt the dead Agent had
// inserted is inserted twice: acpsim reports the duplicate.
//
//   node acpx-client-adapter.mjs [--resend] [ACPX-FLAGS…]
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadState, runForgetful } from "./client-adapter-common.mjs";

const acpx = path.join(path.dirname(fileURLToPath(import.meta.url)), "node_modules", ".bin", "acpx");
const cwd = process.env.ACPSIM_CWD ?? "/tmp";
const resend = process.argv.includes("--resend");
const acpxFlags = process.argv.slice(2).filter((a) => a !== "--resend");
const state = loadState(true); // { pending }: what the script was waiting for when it died
// acpx keeps its records under $HOME/.acpx: the seed's state directory, or
// a fresh one, so that the machine's own acpx records are never read or written.
const home = process.env.ACPSIM_STATE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), "acpx-adapter-"));

// exec runs acpx once on text (after "--", so a text that starts with "-"
// is not read as a flag) and reads its answer: the result or error of its
// last session/prompt, or neither when acpx ended without one. Each run
// opens a session of its own (acpx exec is one-shot): check-client reads
// every session of the Agent's store for the final transcript.
function exec(text) {
  return new Promise((resolve) => {
    const args = ["--agent", process.env.ACPSIM_AGENT, "--format", "json", "--approve-all", "--cwd", cwd, ...acpxFlags, "exec", "--", text];
    const child = spawn(acpx, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: home } });
    let out = "";
    let errText = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (errText += d));
    child.on("close", (code) => {
      // Only the last attempt's answer settles the submission: a retry
      // (--prompt-retries) after an error may have been inserted and then
      // lost with its Agent, and the earlier error says nothing of it.
      let last = null;
      let answer = null;
      for (const line of out.split("\n")) {
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue; // not a frame acpx echoed
        }
        if (msg.method === "session/prompt") {
          last = msg.id;
          answer = null;
        } else if (msg.method === undefined && last !== null && msg.id === last) {
          answer = msg;
        }
      }
      const why = errText.trim().split("\n").pop() || `acpx exited ${code} with no answer`;
      resolve({ answer, why });
    });
  });
}

async function settle(m) {
  for (let attempt = 1; ; attempt++) {
    const { answer, why } = await exec(m.submit);
    if (answer?.result) return { id: m.id, outcome: "inserted", stopReason: answer.result.stopReason };
    if (answer?.error) return { id: m.id, outcome: "failed", error: `${answer.error.code} ${answer.error.message}` };
    if (!resend || attempt === 8) return { id: m.id, outcome: "unknown", error: `the Agent went away before answering (${why})` };
  }
}

// A submission pending when the script itself was killed is told unknown
// after its restart: acpx exec keeps no session to look the message up in.
await runForgetful(state, settle, "the script restarted while acpx waited for the answer");
