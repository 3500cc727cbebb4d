// A known-bad Agent for acpsim check's tests: it runs the Agent command
// given after the mode (acpsim agent) and rewrites what passes, so one
// behaviour of a real Agent can be tested without writing a whole one.
//
//   node rewrite-agent.mjs refuse-fork AGENT-COMMAND...
//     answers every session/fork -32601 itself (the Agent still advertises
//     forks, as an Agent whose fork handler is missing does).
//   node rewrite-agent.mjs bad-schema AGENT-COMMAND...
//     breaks the schema of what the Agent writes: initialize answered
//     without info, agent_message content an object, not an array.
//
// No dependencies: Node's standard library only.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const [mode, cmd, ...args] = process.argv.slice(2);
if (!["refuse-fork", "bad-schema"].includes(mode) || !cmd) {
  process.stderr.write("usage: rewrite-agent.mjs refuse-fork|bad-schema AGENT-COMMAND...\n");
  process.exit(2);
}
const agent = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
agent.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
agent.stdin.on("error", () => {}); // the Agent died: its exit ends us

const toClient = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  if (mode === "refuse-fork") {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = null;
    }
    if (msg && msg.method === "session/fork" && msg.id !== undefined) {
      toClient({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "Method not found: session/fork" } });
      return;
    }
  }
  agent.stdin.write(line + "\n");
}).on("close", () => agent.stdin.end());

createInterface({ input: agent.stdout }).on("line", (line) => {
  if (mode !== "bad-schema") {
    process.stdout.write(line + "\n");
    return;
  }
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    process.stdout.write(line + "\n");
    return;
  }
  if (msg.result && msg.result.protocolVersion !== undefined) {
    delete msg.result.info;
  }
  const update = msg.method === "session/update" && msg.params && msg.params.update;
  if (update && update.sessionUpdate === "agent_message" && Array.isArray(update.content)) {
    update.content = update.content[0];
  }
  toClient(msg);
});
