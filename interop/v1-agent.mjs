#!/usr/bin/env node
// A small ACP v1 Agent over stdio, with no SDK: what most published Agents
// speak today (acpx, the Go SDK's example Agent, the SDK 2.4.0 by default).
// Whatever version the Client asks for, it answers initialize with
// protocolVersion 1, its only one, as the v1 schema says an Agent does
// ("the latest protocol version supported by the agent"), in the v1 shape
// (agentCapabilities, agentInfo). A session/prompt is answered {stopReason}
// at the end of the turn; history comes back through session/load.
// It keeps sessions in memory only. acpsim check sees it answer in v1 and
// checks it again under v1 (by text, without the RFD's key rules); pinned
// to v2 (--protocol 2) it must say so and judge nothing (exit 3).
import { createInterface } from "node:readline";

const sessions = new Map(); // sessionId → [{role, text, id}]
let next = 0;

function send(msg) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
}

function update(sessionId, u) {
  send({ method: "session/update", params: { sessionId, update: u } });
}

const handlers = {
  initialize: () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: true, promptCapabilities: {} },
    agentInfo: { name: "v1-agent", version: "0.1.0" },
    authMethods: [],
  }),
  "session/new": () => {
    const sessionId = `v1-${process.pid}-${++next}`;
    sessions.set(sessionId, []);
    return { sessionId };
  },
  "session/load": (p) => {
    const h = sessions.get(p.sessionId);
    if (!h) throw { code: -32002, message: "session not found" };
    for (const m of h) {
      update(p.sessionId, {
        sessionUpdate: m.role === "user" ? "user_message_chunk" : "agent_message_chunk",
        content: { type: "text", text: m.text },
      });
    }
    return {};
  },
  "session/prompt": (p) => {
    const h = sessions.get(p.sessionId);
    if (!h) throw { code: -32002, message: "session not found" };
    const text = (p.prompt || []).map((b) => b.text || "").join("");
    h.push({ role: "user", text });
    update(p.sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ok" } });
    h.push({ role: "agent", text: "ok" });
    return { stopReason: "end_turn" };
  },
};

createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    send({ id: null, error: { code: -32700, message: "parse error" } });
    return;
  }
  if (msg.method === undefined || msg.id === undefined) return; // notifications, responses
  const h = handlers[msg.method];
  if (!h) {
    send({ id: msg.id, error: { code: -32601, message: `method not found: ${msg.method}` } });
    return;
  }
  try {
    send({ id: msg.id, result: h(msg.params || {}) });
  } catch (e) {
    send({ id: msg.id, error: { code: e.code ?? -32603, message: e.message ?? String(e) } });
  }
});
