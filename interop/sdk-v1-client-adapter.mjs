#!/usr/bin/env node
// sdk-v1-client-adapter.mjs: the official SDK's Client through its default
// (ACP v1) API, as most published Clients speak today, driven as a plain
// app drives it, for acpsim check-client (docs/client-adapter.md). v1 has no
// idempotencyKey and names no message in a prompt's answer: the outcome
// told is "inserted" with the turn's stopReason. When the Agent dies before
// answering, this app tells the user the outcome is unknown (it cannot know
// whether the input went in); with --resend it sends the prompt again on a
// new Agent process instead, and a prompt the dead process had inserted is
// inserted twice: acpsim reports the duplicate.
//
//   node sdk-v1-client-adapter.mjs [--resend]
import { spawn } from "node:child_process";
import readline from "node:readline";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const cwd = process.env.ACPSIM_CWD ?? "/tmp";
const resend = process.argv.includes("--resend");
const attemptTimeout = 5000;

const tell = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const isRPCError = (err) => typeof err?.code === "number";

// Connection is one Agent process spoken to with the SDK's v1 Client.
class Connection {
  static async open() {
    const c = new Connection();
    c.child = spawn("sh", ["-c", `exec ${process.env.ACPSIM_AGENT}`], { stdio: ["pipe", "pipe", "inherit"] });
    c.child.stdin.on("error", () => {});
    c.exited = new Promise((resolve) => c.child.on("exit", resolve));
    const stream = acp.ndJsonStream(Writable.toWeb(c.child.stdin), Readable.toWeb(c.child.stdout));
    let ready;
    const gotCtx = new Promise((resolve) => (ready = resolve));
    const app = acp.client({ name: "acpsim-v1-client-adapter" }).onNotification("session/update", () => {});
    app.connectWith(stream, (ctx) => {
      ready(ctx);
      return c.exited;
    }).catch(() => {});
    c.ctx = await Promise.race([gotCtx, c.exited.then(() => null)]);
    return c;
  }

  alive() {
    return this.ctx && this.child.exitCode === null && this.child.signalCode === null;
  }

  async request(method, params) {
    if (!this.alive()) throw new Error("the Agent process is gone");
    let timer;
    const gone = new Promise((_, reject) => {
      this.exited.then(() => reject(new Error("the Agent process exited")));
      timer = setTimeout(() => reject(new Error(`no answer to ${method} within ${attemptTimeout} ms`)), attemptTimeout);
    });
    try {
      return await Promise.race([this.ctx.request(method, params), gone]);
    } finally {
      clearTimeout(timer);
    }
  }

  close() {
    this.child.stdin.end();
    setTimeout(() => this.child.kill("SIGKILL"), 1000).unref();
  }
}

let conn = null;
let sessionId = null;

// connect opens a connection with the session on it: session/new the first
// time, session/load after (v1's way back into a session).
async function connect() {
  const c = await Connection.open();
  await c.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "acpsim-v1-client-adapter", version: "0" },
  });
  if (sessionId) {
    try {
      await c.request("session/load", { sessionId, cwd, mcpServers: [] });
      return c;
    } catch (err) {
      if (!isRPCError(err)) throw err;
      sessionId = null;
    }
  }
  ({ sessionId } = await c.request("session/new", { cwd, mcpServers: [] }));
  return c;
}

async function settle(m) {
  for (let attempt = 1; attempt <= 8; attempt++) {
    let sent = false;
    try {
      if (!conn?.alive()) {
        conn?.close();
        conn = await connect();
      }
      sent = true;
      const res = await conn.request("session/prompt", { sessionId, prompt: [{ type: "text", text: m.submit }] });
      return { id: m.id, outcome: "inserted", stopReason: res.stopReason };
    } catch (err) {
      if (isRPCError(err)) return { id: m.id, outcome: "failed", error: `${err.code} ${err.message}` };
      conn?.close();
      conn = null;
      if (sent && !resend) {
        return { id: m.id, outcome: "unknown", error: `the Agent went away before answering (${err.message})` };
      }
      await new Promise((r) => setTimeout(r, 20 * attempt));
    }
  }
  return { id: m.id, outcome: "unknown", error: "no answer after 8 attempts" };
}

// The user's lines, one at a time; this app keeps nothing across its own
// restarts, so a restart line has nothing pending to finish.
let queue = Promise.resolve();
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const m = JSON.parse(line);
  if (m.submit === undefined) continue;
  queue = queue.then(async () => tell(await settle(m)));
}
await queue;
conn?.close();
