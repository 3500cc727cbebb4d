#!/usr/bin/env node
// keyless-agent.mjs: an ACP v2 Agent on stdio, written against the official
// TypeScript SDK's v2 API, that knows nothing of idempotency keys, like the
// SDK itself: the SDK's params parser drops idempotencyKey before a handler
// runs, so "" and 5 are accepted as readily as a UUID, and every prompt,
// first attempt or retry, inserts a new user message. Under response loss
// `acpsim check` must report the duplicates this causes.
//
//   node keyless-agent.mjs [--store DIR]   (default: $ACPSIM_STORE, else memory)
//   node keyless-agent.mjs --listen HOST:PORT [--store DIR]
//
// With --listen it is served by the SDK's own AcpServer (Streamable HTTP on
// /acp, no WebSocket), and prints its URL as the first line on stdout.
//
// Otherwise it is a plain, correct v2 Agent: sessions and messages are
// stored (DIR/store.ndjson, see openStore) before any answer names them,
// resume replays the history, and ids are UUIDs.
import { randomUUID } from "node:crypto";
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { listenAddr, openStore, sendUpdate, serveHTTP, serveStdio, storeDir } from "./agent-common.mjs";

const store = openStore(storeDir());
const sessions = store.sessions; // id → { id, cwd, messages: [{ id, role: "user"|"agent", content }] }
const active = new Set(); // sessions new, resumed or forked on this connection and not closed

function activeSession(sessionId) {
  if (!active.has(sessionId)) throw acp.RequestError.sessionNotFound(sessionId);
  return sessions.get(sessionId);
}

// known is the session, read from the store: another process may have made it.
function known(sessionId) {
  store.sync();
  if (!sessions.has(sessionId)) throw acp.RequestError.sessionNotFound(sessionId);
  return sessions.get(sessionId);
}

function messageUpdate(m) {
  return { sessionUpdate: m.role === "user" ? "user_message" : "agent_message", messageId: m.id, content: m.content };
}

const app = acp
  .agent({ name: "acpsim-interop-keyless" })
  .onRequest("initialize", () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "acpsim-interop-keyless", version: "0" },
    capabilities: { session: { fork: {} } },
  }))
  .onRequest("session/new", ({ params }) => {
    const id = randomUUID();
    store.append({ t: "session", id, cwd: params.cwd });
    active.add(id);
    return { sessionId: id };
  })
  .onRequest("session/list", () => {
    store.sync();
    return { sessions: [...sessions.values()].map((s) => ({ sessionId: s.id, cwd: s.cwd })) };
  })
  .onRequest("session/resume", async ({ params, client }) => {
    const rec = known(params.sessionId);
    if (params.replayFrom && params.replayFrom.type !== "start") {
      throw acp.RequestError.invalidParams(undefined, "unknown replayFrom type");
    }
    active.add(rec.id);
    const sent = params.replayFrom ? rec.messages.map((m) => sendUpdate({ client }, rec.id, messageUpdate(m))) : [];
    // Work never outlives a prompt here, so a resumed session is idle. The
    // snapshot goes after the replay and before the response.
    sent.push(sendUpdate({ client }, rec.id, { sessionUpdate: "state_update", state: "idle" }));
    await Promise.all(sent);
    return {};
  })
  .onRequest("session/fork", ({ params }) => {
    const messages = known(params.sessionId).messages.map((m) => ({ ...m, id: randomUUID() }));
    const id = randomUUID();
    store.append({ t: "session", id, cwd: params.cwd, messages });
    active.add(id);
    return { sessionId: id };
  })
  .onRequest("session/close", ({ params }) => {
    active.delete(params.sessionId); // closing what is not active succeeds too
    return {};
  })
  .onRequest("session/prompt", async ({ params, client }) => {
    const rec = activeSession(params.sessionId);
    const user = { id: randomUUID(), role: "user", content: params.prompt };
    const reply = { id: randomUUID(), role: "agent", content: [{ type: "text", text: "ok." }] };
    store.append({ t: "message", session: rec.id, ...user }); // stored before anything names it
    store.append({ t: "message", session: rec.id, ...reply });
    // The user message, then the response (when this returns), then the
    // whole turn at once: running, the reply, idle.
    await sendUpdate({ client }, rec.id, messageUpdate(user));
    setImmediate(() => {
      sendUpdate({ client }, rec.id, { sessionUpdate: "state_update", state: "running" });
      sendUpdate({ client }, rec.id, messageUpdate(reply));
      sendUpdate({ client }, rec.id, { sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    });
    return { messageId: user.id };
  })
  // No prompt is ever held, so session/cancel has nothing to stop, and the
  // SDK itself applies $/cancel_request to requests still pending (none).
  .onNotification("session/cancel", () => {});

// Each handler writes its updates through its own connection's client, so
// the same app serves stdio or, with --listen, many HTTP connections.
if (listenAddr()) serveHTTP(app, listenAddr());
else serveStdio(app);
