#!/usr/bin/env node
// keyed-agent.mjs: an ACP v2 Agent on stdio, written against the official
// TypeScript SDK's v2 API, that honours the RFD's idempotencyKey on
// session/prompt but makes other legal choices than acpsim's reference
// Agent, so a checker that only accepts the reference's habits fails here:
//   - the prompt response is written before the user message update;
//   - the user message goes out as user_message_chunk updates (a text block
//     in two chunks), live and in replays;
//   - ids have a format per type: UUID sessions, msg_<hex> user messages,
//     reply_<hex> agent messages (the reply to msg_X is reply_X);
//   - a prompt that arrives while the session is running is held (its
//     request stays pending) and inserted when the work ends.
//
//   node keyed-agent.mjs [--store DIR]     (default: $ACPSIM_STORE, else memory)
//
// A key binding (session, key) → messageId is the key in its message's
// store record, appended before any answer names the message, so it
// survives SIGKILL and restarts and holds across processes sharing the
// store (see openStore). Keys are never echoed.
import { randomBytes, randomUUID } from "node:crypto";
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { openStore, sendUpdate, serveStdio, storeDir } from "./agent-common.mjs";

const CHUNKS = 2; // agent_message_chunks per turn
const CHUNK_MS = 10;

// --bug NAME (repeatable) makes this Agent known-bad on purpose, for the
// tests that a checker fails it: replay-nothing (session/resume answers
// success but replays nothing: it compares replayFrom with the string
// "start", not its type), close-deletes (session/close forgets the session,
// so a later session/resume in the same process answers -32002).
const bugs = new Set(process.argv.flatMap((a, i) => (process.argv[i - 1] === "--bug" ? [a] : [])));
const store = openStore(storeDir());
// id → { id, cwd, messages: [{ id, role: "user"|"agent", content }], keys: Map key → messageId }
const sessions = store.sessions;
const active = new Set(); // sessions new, resumed or forked on this connection and not closed
const live = new Map(); // session id → what this process does in it (never stored)
// arrivals: JSON-RPC id of a prompt → { key: its idempotencyKey as sent,
// read before the SDK's parser drops it (null: omitted or null, i.e. no
// key), cancels: the count below when it was read }.
const arrivals = new Map();
// cancels: session id → session/cancel and session/close read so far.
const cancels = new Map();
// keyCancels: session id and key → $/cancel_request read so far naming a
// prompt of that key; promptKeys: JSON-RPC id of a prompt read → its session
// id and key. A cancel naming a retry withdraws the original too when one
// read brings both: the SDK aborts only the named request's signal, before
// the original's handler has run.
const keyCancels = new Map();
const promptKeys = new Map();

function runtime(id) {
  if (!live.has(id)) live.set(id, { id, rec: sessions.get(id), running: false, timer: null, held: [], reply: null, unechoed: new Set() });
  return live.get(id);
}

function update(s, u) {
  if (active.has(s.id)) sendUpdate(conn, s.id, u); // live updates are lost without a connection; replay recovers them
}

// readKey applies the RFD: omitted or null is no key; a string of 1 to 255
// characters (code points, well-formed) is a key; anything else is -32602
// and never treated as omitted. The error does not repeat the value.
function readKey(raw) {
  if (raw === null) return null;
  if (typeof raw === "string" && raw.isWellFormed()) {
    const n = [...raw].length;
    if (n >= 1 && n <= 255) return raw;
  }
  throw acp.RequestError.invalidParams(undefined, "idempotencyKey must be a string of 1 to 255 characters");
}

// bound is the messageId key is bound to in session s, as the store has it
// now (another process may have bound it), or undefined.
function bound(s, key) {
  store.sync();
  return key === null ? undefined : s.rec.keys.get(key);
}

// userChunks is a user message as chunks: one per content block, a text
// block split in two halves (on code points, never inside a pair).
function userChunks(m) {
  const chunk = (content) => ({ sessionUpdate: "user_message_chunk", messageId: m.id, content });
  return m.content.flatMap((b) => {
    const cps = b.type === "text" ? [...b.text] : [];
    if (cps.length < 2) return [chunk(b)];
    const half = Math.ceil(cps.length / 2);
    return [chunk({ ...b, text: cps.slice(0, half).join("") }), chunk({ type: "text", text: cps.slice(half).join("") })];
  });
}

// insert stores the user message of prompt h with its key in one record,
// answers every request waiting for it, then (after those responses are
// queued) echoes the message and starts the work. If the store shows the
// key bound first, by another process, the message is not part of the
// history: h is answered with the bound messageId, as a retry.
function insert(s, h) {
  const n = randomBytes(4).toString("hex");
  const msg = { id: `msg_${n}`, role: "user", content: h.prompt };
  const done = (messageId) => {
    h.waiters.forEach((w) => w.resolve({ messageId }));
    return messageId;
  };
  const first = bound(s, h.key);
  if (first) return done(first);
  try {
    store.append({ t: "message", session: s.id, ...msg, key: h.key ?? undefined });
  } catch (err) {
    throw acp.RequestError.internalError(undefined, `store: ${err.message}`); // nothing inserted: the key stays unused
  }
  if (h.key !== null && s.rec.keys.get(h.key) !== msg.id) return done(s.rec.keys.get(h.key));
  done(msg.id);
  s.running = true;
  s.reply = { id: `reply_${n}`, text: "" };
  s.unechoed.add(msg.id);
  setImmediate(() => {
    if (s.unechoed.delete(msg.id)) userChunks(msg).forEach((u) => update(s, u)); // a replay may have sent it already
    update(s, { sessionUpdate: "state_update", state: "running" });
  });
  s.timer = setTimeout(() => work(s, 1), CHUNK_MS);
  return msg.id;
}

function work(s, i) {
  const text = `part ${i}. `;
  s.reply.text += text;
  update(s, { sessionUpdate: "agent_message_chunk", messageId: s.reply.id, content: { type: "text", text } });
  if (i < CHUNKS) s.timer = setTimeout(() => work(s, i + 1), CHUNK_MS);
  else finish(s, "end_turn");
}

// finish stores the reply, reports idle and inserts held prompts in order
// (the first one starts the next turn).
function finish(s, stopReason) {
  clearTimeout(s.timer);
  if (s.reply.text) {
    try {
      store.append({ t: "message", session: s.id, id: s.reply.id, role: "agent", content: [{ type: "text", text: s.reply.text }] });
    } catch (err) {
      console.error("keyed-agent: the reply is not stored:", err.message); // the user message is
    }
  }
  s.running = false;
  update(s, { sessionUpdate: "state_update", state: "idle", stopReason });
  while (!s.running && s.held.length) {
    const h = s.held.shift();
    try {
      insert(s, h);
    } catch (err) {
      h.waiters.forEach((w) => w.reject(err));
    }
  }
}

// hold makes the request wait for held prompt h. A $/cancel_request naming
// any request of h (the SDK aborts that request's signal) withdraws h: every
// request waiting for it gets -32800 and its key stays unused.
function hold(s, h, signal) {
  return new Promise((resolve, reject) => {
    h.waiters.push({ resolve, reject });
    // The SDK applies a $/cancel_request as it reads it, so one read with the
    // prompt may have aborted the signal before this handler ran.
    if (signal.aborted) withdraw(s, h, "cancelled by $/cancel_request");
    else signal.addEventListener("abort", () => withdraw(s, h, "cancelled by $/cancel_request"), { once: true });
  });
}

function withdraw(s, h, why) {
  const i = s.held.indexOf(h);
  if (i < 0) return; // inserted already: a late cancel changes nothing
  s.held.splice(i, 1);
  h.waiters.forEach((w) => w.reject(acp.RequestError.requestCancelled(undefined, why)));
}

// stop is session/cancel (and session/close): held prompts are answered
// -32800, running work ends with stopReason cancelled.
function stop(s, why) {
  [...s.held].forEach((h) => withdraw(s, h, why));
  if (s.running) finish(s, "cancelled");
}

const app = acp
  .agent({ name: "acpsim-interop-keyed" })
  .onRequest("initialize", () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "acpsim-interop-keyed", version: "0" },
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
    return { sessions: [...sessions.values()].map((r) => ({ sessionId: r.id, cwd: r.cwd })) };
  })
  .onRequest("session/resume", async ({ params }) => {
    store.sync(); // another process may have made it, or added to it
    if (!sessions.has(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
    if (params.replayFrom && params.replayFrom.type !== "start") {
      throw acp.RequestError.invalidParams(undefined, "unknown replayFrom type");
    }
    active.add(params.sessionId);
    const s = runtime(params.sessionId);
    const sent = [];
    const replay = bugs.has("replay-nothing") ? params.replayFrom === "start" : params.replayFrom;
    for (const m of replay ? s.rec.messages : []) {
      s.unechoed.delete(m.id);
      const updates = m.role === "user" ? userChunks(m) : [{ sessionUpdate: "agent_message", messageId: m.id, content: m.content }];
      updates.forEach((u) => sent.push(sendUpdate(conn, s.id, u)));
    }
    // The current state, after the replay and before the response.
    sent.push(sendUpdate(conn, s.id, { sessionUpdate: "state_update", state: s.running ? "running" : "idle" }));
    await Promise.all(sent);
    return {};
  })
  .onRequest("session/fork", ({ params }) => {
    store.sync();
    const parent = sessions.get(params.sessionId);
    if (!parent) throw acp.RequestError.sessionNotFound(params.sessionId);
    // The copy gets new ids and no key bindings: a key names a submission of one session.
    const messages = parent.messages.map((m) => ({ ...m, id: `${m.role === "user" ? "msg" : "reply"}_${randomBytes(4).toString("hex")}` }));
    const id = randomUUID();
    store.append({ t: "session", id, cwd: params.cwd, messages }); // one record: the fork and its history
    active.add(id);
    return { sessionId: id };
  })
  .onRequest("session/close", ({ params }) => {
    if (active.has(params.sessionId)) {
      stop(runtime(params.sessionId), "cancelled by session/close");
      active.delete(params.sessionId);
    }
    if (bugs.has("close-deletes")) sessions.delete(params.sessionId);
    return {}; // closing what is not active succeeds too
  })
  .onNotification("session/cancel", ({ params }) => {
    if (active.has(params.sessionId)) stop(runtime(params.sessionId), "cancelled by session/cancel");
  })
  .onRequest("session/prompt", async ({ params, requestId, signal }) => {
    // Decide once everything read with this prompt has passed the tap: the
    // SDK starts handlers before it has parsed the rest of a read, so a
    // cancel that came in the same read may not be counted yet.
    await new Promise((resolve) => setImmediate(resolve));
    const arrival = arrivals.get(requestId) ?? { key: null, cancels: 0 };
    arrivals.delete(requestId);
    const key = readKey(arrival.key);
    const s = active.has(params.sessionId) ? runtime(params.sessionId) : undefined;
    // A retry gets the original messageId and nothing else: no insertion, no
    // update, no second turn; a cancel cannot undo an insertion.
    const messageId = s && key !== null ? bound(s, key) : undefined;
    if (messageId) {
      // Just inserted (a held prompt, by a timer) and not echoed yet: answer
      // after the echo, so no binding answer precedes its message's first update.
      if (!s.unechoed.has(messageId)) return { messageId };
      return new Promise((resolve) => setImmediate(() => resolve({ messageId })));
    }
    // A session/cancel or session/close read after this prompt (one read can
    // bring both): the prompt was not inserted when the cancel came.
    if ((cancels.get(params.sessionId) ?? 0) > arrival.cancels) {
      throw acp.RequestError.requestCancelled(undefined, "cancelled by session/cancel or session/close");
    }
    // A $/cancel_request naming another request of this key, read after
    // this prompt (in the same read): it withdrew this one too.
    if (arrival.sk && (keyCancels.get(arrival.sk) ?? 0) > arrival.keyCancels) {
      // It withdraws every pending request of the key (RFD), the original
      // still held too, not only this one.
      const held = s && key !== null ? s.held.find((h) => h.key === key) : undefined;
      if (held) withdraw(s, held, "cancelled by $/cancel_request for a request of its key");
      throw acp.RequestError.requestCancelled(undefined, "cancelled by $/cancel_request for a request of its key");
    }
    if (!s) throw acp.RequestError.sessionNotFound(params.sessionId);
    // A retry of a prompt still held is answered when the original is.
    const pending = key === null ? undefined : s.held.find((h) => h.key === key);
    if (pending) return hold(s, pending, signal);
    const h = { key, prompt: params.prompt, waiters: [] };
    if (!s.running && !signal.aborted) return { messageId: insert(s, h) };
    // Busy (or already cancelled, which hold answers -32800 at once): held.
    s.held.push(h);
    return hold(s, h, signal);
  });

// The transport tap sees each message as it is read, before any handler
// runs: the raw idempotencyKey of each prompt, and how many session/cancel
// and session/close of its session had been read before it.
const conn = serveStdio(app, (m) => {
  const sessionId = m.params?.sessionId;
  if (m.method === "session/prompt" && "id" in m) {
    const key = m.params?.idempotencyKey ?? null;
    const sk = typeof key === "string" ? JSON.stringify([sessionId, key]) : null;
    arrivals.set(m.id, { key, cancels: cancels.get(sessionId) ?? 0, sk, keyCancels: sk ? keyCancels.get(sk) ?? 0 : 0 });
    if (sk) promptKeys.set(m.id, sk);
  }
  if (m.method === "$/cancel_request") {
    const sk = promptKeys.get(m.params?.requestId);
    if (sk) keyCancels.set(sk, (keyCancels.get(sk) ?? 0) + 1);
  }
  if (m.method === "session/cancel" || m.method === "session/close") cancels.set(sessionId, (cancels.get(sessionId) ?? 0) + 1);
});
