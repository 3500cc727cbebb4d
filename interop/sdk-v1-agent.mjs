#!/usr/bin/env node
// sdk-v1-agent.mjs: an ACP v1 Agent on stdio written against the official
// TypeScript SDK's default (v1) API, as most published Agents are today.
// It stores its sessions (with $ACPSIM_STORE or --store DIR; in memory
// without), offers session/load, which replays the history as
// user_message_chunk / agent_message_chunk updates, and answers a prompt
// with its stop reason when the turn ends. v1 has no idempotencyKey: a
// Client that resends a prompt gets it inserted again.
//
//   node sdk-v1-agent.mjs [--store DIR] [--bug lose-last]
//
// --bug lose-last makes it known-bad on purpose: session/load replays every
// user message but the last, as an Agent that drops the newest write.
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";
import { openStore, storeDir } from "./agent-common.mjs";

const CHUNKS = 2;
const CHUNK_MS = 10;
const bugs = new Set(process.argv.flatMap((a, i, all) => (all[i - 1] === "--bug" ? [a] : [])));

const store = openStore(storeDir());
const sessions = store.sessions;
const running = new Map(); // sessionId → { cancelled, done }
let conn;

function update(sessionId, u) {
  return conn.client.notify("session/update", { sessionId, update: u }).catch(() => {});
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const app = acp
  .agent({ name: "acpsim-interop-sdk-v1" })
  .onRequest("initialize", () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: true },
    agentInfo: { name: "acpsim-interop-sdk-v1", version: "0" },
    authMethods: [],
  }))
  .onRequest("session/new", ({ params }) => {
    const id = randomUUID();
    store.append({ t: "session", id, cwd: params.cwd });
    return { sessionId: id };
  })
  .onRequest("session/load", async ({ params }) => {
    store.sync(); // another process may have made it, or added to it
    const s = sessions.get(params.sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    let msgs = s.messages;
    if (bugs.has("lose-last")) {
      const last = msgs.findLastIndex((m) => m.role === "user");
      msgs = msgs.filter((_, i) => i !== last);
    }
    for (const m of msgs) {
      const kind = m.role === "user" ? "user_message_chunk" : "agent_message_chunk";
      for (const block of m.content) await update(s.id, { sessionUpdate: kind, content: block });
    }
    return {};
  })
  .onRequest("session/prompt", async ({ params }) => {
    store.sync();
    const s = sessions.get(params.sessionId);
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    // One turn at a time per session: a prompt that comes while one runs waits.
    while (running.has(s.id)) await running.get(s.id).done;
    let finished;
    const turn = { cancelled: false, done: new Promise((r) => (finished = r)) };
    running.set(s.id, turn);
    try {
      store.append({ t: "message", session: s.id, id: randomUUID(), role: "user", content: params.prompt });
      let text = "";
      for (let i = 0; i < CHUNKS && !turn.cancelled; i++) {
        await sleep(CHUNK_MS);
        const chunk = `chunk ${i}. `;
        text += chunk;
        await update(s.id, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: chunk } });
      }
      if (text) store.append({ t: "message", session: s.id, id: randomUUID(), role: "agent", content: [{ type: "text", text }] });
      return { stopReason: turn.cancelled ? "cancelled" : "end_turn" };
    } finally {
      running.delete(s.id);
      finished();
    }
  })
  .onNotification("session/cancel", ({ params }) => {
    const turn = running.get(params.sessionId);
    if (turn) turn.cancelled = true;
  });

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
conn = app.connect(stream);
conn.closed.then(() => setImmediate(() => process.exit(0)));
process.stdout.on("error", () => process.exit(0));
process.on("unhandledRejection", (err) => console.error("unhandled:", err?.message ?? err));
