#!/usr/bin/env node
// template-agent.mjs: a small ACP v2 Agent to copy as the start of your own.
//
// Node.js 18+ standard library only (no npm packages: this one file is the
// whole Agent). It speaks JSON-RPC 2.0 as ndjson (one JSON object per line)
// on stdin and stdout; logs go to stderr. Replace `work()` with your model
// call. Sessions, messages and idempotency-key bindings live in this
// process's memory, so a new process answers session/resume of an old
// session -32002 and the Client starts a new one (a correct design; acpsim
// judges it by the process contract). To survive restarts, keep `sessions`
// in a store that writes the message and its key binding together.
//
// It is a port of template-agent.py, the same Agent in Python: the same
// frames, the same design. What it speaks, frame by frame: docs/agent-wire.md.
// Check it with
//     acpsim conform -- node interop/template-agent.mjs
//     acpsim check --seeds 10 --start-timeout 30s -- node interop/template-agent.mjs

import { randomUUID } from "node:crypto";

const CHUNK_DELAY_MS = 100; // before each chunk: a turn lasts long enough for prompts to arrive during it
const KEY_MAX = 255; // the RFD: a key is a string of 1..255 Unicode code points
const KNOWN_BLOCKS = new Set(["text", "image", "audio", "resource", "resource_link"]);

// RFD / ACP error codes this Agent answers with.
const INVALID_PARAMS = -32602, METHOD_NOT_FOUND = -32601, SESSION_NOT_FOUND = -32002, CANCELLED = -32800;

class Session {
  constructor(cwd) {
    this.cwd = cwd;
    this.active = true; // open on this connection (session/close ends that, resume restores it)
    this.history = []; // {kind: "user_message"|"agent_message", messageId, content}
    this.keys = new Map(); // idempotencyKey -> {prompt, messageId}; never sent back to anyone
    this.held = []; // prompts waiting for the turn to end: {key, prompt, ids: [request ids]}
    this.turn = null; // the running turn: {messageId, chunks: [...], text, timer}
  }
}

const sessions = new Map(); // sessionId -> Session, in creation order

class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

// A JSON object: not null, not an array.
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

// Two parsed JSON values are the same: equal values, object keys in any order.
function same(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

// ---- the wire ------------------------------------------------------------

function send(frame) {
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...frame }) + "\n");
}

function answer(requestId, result) {
  send({ id: requestId, result });
}

function fail(requestId, code, message, data) {
  // Error messages never quote an idempotencyKey: keys are private to their sender.
  const error = { code, message };
  if (data !== undefined) error.data = data;
  send({ id: requestId, error });
}

function update(sessionId, body) {
  send({ method: "session/update", params: { sessionId, update: body } });
}

// ---- sessions ------------------------------------------------------------

function sessionOf(params, mustBeActive = true) {
  const sid = params.sessionId;
  const session = typeof sid === "string" ? sessions.get(sid) : undefined;
  if (session === undefined || (mustBeActive && !session.active)) {
    throw new RpcError(SESSION_NOT_FOUND, "session not found or not active", { sessionId: sid ?? null });
  }
  return [sid, session];
}

// The RFD's rules: omitted or null is no key; else a string of 1..255 code points.
function readKey(params) {
  const key = params.idempotencyKey;
  if (key === undefined || key === null) return null;
  // [...key] counts code points; key.length would count UTF-16 units (an emoji is two).
  if (typeof key !== "string" || [...key].length < 1 || [...key].length > KEY_MAX) {
    throw new RpcError(INVALID_PARAMS, "invalid params: idempotencyKey must be a string of 1 to 255 characters");
  }
  return key;
}

function readPrompt(params) {
  const prompt = params.prompt;
  // A content block of a known type; a text block's text is a string.
  const known = (b) => isObject(b) && KNOWN_BLOCKS.has(b.type) && (b.type !== "text" || typeof b.text === "string");
  if (!Array.isArray(prompt) || !prompt.every(known)) {
    throw new RpcError(INVALID_PARAMS, "invalid params: prompt must be an array of known content blocks");
  }
  return prompt;
}

function onPrompt(requestId, params) {
  const [sid, session] = sessionOf(params);
  const prompt = readPrompt(params), key = readKey(params);
  if (key !== null) {
    const bound = session.keys.get(key);
    if (bound !== undefined) { // a retry: the original messageId, no new work
      if (!same(bound.prompt, prompt)) {
        throw new RpcError(INVALID_PARAMS, "invalid params: this idempotencyKey was used for another prompt");
      }
      return answer(requestId, { messageId: bound.messageId });
    }
    const waiting = session.held.find((w) => w.key === key);
    if (waiting !== undefined) { // a retry of a held prompt waits with it
      if (!same(waiting.prompt, prompt)) {
        throw new RpcError(INVALID_PARAMS, "invalid params: this idempotencyKey was used for another prompt");
      }
      waiting.ids.push(requestId);
      return;
    }
  }
  // One turn at a time: a prompt that arrives while a turn runs is held, unanswered,
  // until the turn ends; then it is inserted and answered (session/cancel,
  // session/close and $/cancel_request withdraw it first).
  session.held.push({ key, prompt, ids: [requestId] });
  if (session.turn === null) startNextTurn(sid, session);
}

// Insert the oldest held prompt: bind its key, answer it, then report the turn.
function startNextTurn(sid, session) {
  if (session.held.length === 0 || session.turn !== null) return;
  const waiting = session.held.shift();
  const messageId = randomUUID();
  session.history.push({ kind: "user_message", messageId, content: waiting.prompt });
  if (waiting.key !== null) session.keys.set(waiting.key, { prompt: waiting.prompt, messageId });
  for (const requestId of waiting.ids) answer(requestId, { messageId }); // answered at insertion
  update(sid, { sessionUpdate: "user_message", messageId, content: waiting.prompt });
  update(sid, { sessionUpdate: "state_update", state: "running" });
  session.turn = { messageId: randomUUID(), chunks: work(waiting.prompt), text: "", timer: null };
  session.turn.timer = setTimeout(stepTurn, CHUNK_DELAY_MS, sid, session);
}

// Your model goes here: the reply, in chunks.
function work(prompt) {
  const said = prompt.filter((b) => b.type === "text").map((b) => b.text).join(" ");
  return ["You said: ", [...said].slice(0, 200).join(""), "."]; // the first 200 code points
}

// Send the running turn's next chunk; end the turn after the last one. The
// timer that calls this is the turn's clock: endTurn stops it.
function stepTurn(sid, session) {
  const turn = session.turn;
  if (turn.chunks.length > 0) {
    const chunk = turn.chunks.shift();
    turn.text += chunk;
    turn.timer = setTimeout(stepTurn, CHUNK_DELAY_MS, sid, session);
    const content = { type: "text", text: chunk };
    update(sid, { sessionUpdate: "agent_message_chunk", messageId: turn.messageId, content });
  } else {
    endTurn(sid, session, "end_turn");
    startNextTurn(sid, session);
  }
}

function endTurn(sid, session, stopReason) {
  const turn = session.turn;
  session.turn = null;
  if (turn === null) return;
  clearTimeout(turn.timer);
  if (turn.text) {
    session.history.push({ kind: "agent_message", messageId: turn.messageId, content: [{ type: "text", text: turn.text }] });
  }
  update(sid, { sessionUpdate: "state_update", state: "idle", stopReason });
}

// Answer every held prompt -32800: none was inserted, so its key stays unused.
function withdrawHeld(session) {
  for (const waiting of session.held) {
    for (const requestId of waiting.ids) fail(requestId, CANCELLED, "request cancelled");
  }
  session.held = [];
}

// ---- methods -------------------------------------------------------------

function onInitialize(requestId, params) {
  answer(requestId, {
    protocolVersion: 2,
    info: { name: "template-agent", version: "0.1" },
    // {} = the baseline session methods (new, list, resume, close, prompt, cancel); fork is extra.
    capabilities: { session: { fork: {} } },
  });
}

function onNew(requestId, params) {
  const sid = randomUUID();
  sessions.set(sid, new Session(params.cwd || "/"));
  answer(requestId, { sessionId: sid });
}

function onResume(requestId, params) {
  const [sid, session] = sessionOf(params, false);
  const replayFrom = params.replayFrom ?? null;
  if (replayFrom !== null && !same(replayFrom, { type: "start" })) {
    throw new RpcError(INVALID_PARAMS, 'invalid params: only replayFrom {"type":"start"} is supported');
  }
  session.active = true;
  if (replayFrom !== null) {
    for (const entry of session.history) {
      update(sid, { sessionUpdate: entry.kind, messageId: entry.messageId, content: entry.content });
    }
  }
  // The schema: a current state_update after the replay and before the response.
  update(sid, { sessionUpdate: "state_update", state: session.turn ? "running" : "idle" });
  answer(requestId, {});
}

function onList(requestId, params) {
  answer(requestId, { sessions: [...sessions].map(([sid, s]) => ({ sessionId: sid, cwd: s.cwd })) });
}

function onClose(requestId, params) {
  // Close ends the session on this connection but keeps it: session/resume brings it back.
  const [sid, session] = sessionOf(params, false);
  withdrawHeld(session);
  endTurn(sid, session, "cancelled");
  session.active = false;
  answer(requestId, {});
}

function onFork(requestId, params) {
  const [, parent] = sessionOf(params, false);
  const sid = randomUUID();
  const child = new Session(params.cwd || parent.cwd);
  // A copy of the history under new messageIds, and no key bindings: a key in the fork is a new submission.
  child.history = parent.history.map((entry) => ({ ...entry, messageId: randomUUID() }));
  sessions.set(sid, child);
  answer(requestId, { sessionId: sid });
}

function onSessionCancel(params) {
  const sid = params.sessionId;
  const session = typeof sid === "string" ? sessions.get(sid) : undefined;
  if (session !== undefined) {
    withdrawHeld(session);
    endTurn(sid, session, "cancelled");
  }
}

// $/cancel_request withdraws a held prompt and every other pending request of its key.
function onCancelRequest(params) {
  const target = params.requestId;
  for (const session of sessions.values()) {
    const i = session.held.findIndex((w) => w.ids.includes(target));
    if (i >= 0) {
      const [waiting] = session.held.splice(i, 1);
      for (const requestId of waiting.ids) fail(requestId, CANCELLED, "request cancelled");
      return;
    }
  }
}

const REQUESTS = new Map([
  ["initialize", onInitialize],
  ["session/new", onNew],
  ["session/prompt", onPrompt],
  ["session/resume", onResume],
  ["session/list", onList],
  ["session/close", onClose],
  ["session/fork", onFork],
]);
const NOTIFICATIONS = new Map([["session/cancel", onSessionCancel], ["$/cancel_request", onCancelRequest]]);

function handle(frame) {
  const method = frame.method, params = frame.params ?? {};
  if (typeof method !== "string") {
    if (Object.hasOwn(frame, "id")) fail(frame.id, -32600, "invalid request: method must be a string");
    return;
  }
  if (!Object.hasOwn(frame, "id")) { // a notification: no answer, whatever happens
    if (NOTIFICATIONS.has(method) && isObject(params)) NOTIFICATIONS.get(method)(params);
    return;
  }
  const requestId = frame.id;
  if (!REQUESTS.has(method)) return fail(requestId, METHOD_NOT_FOUND, "method not found");
  if (!isObject(params)) return fail(requestId, INVALID_PARAMS, "invalid params");
  try {
    REQUESTS.get(method)(requestId, params);
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    fail(requestId, e.code, e.message, e.data);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true }); // invalid UTF-8 is a parse error

function readFrame(line) {
  let frame;
  try {
    frame = JSON.parse(utf8.decode(line));
  } catch {
    return fail(null, -32700, "parse error");
  }
  if (!isObject(frame)) { // this template takes no JSON-RPC batches
    return fail(null, -32600, "invalid request: expected a JSON-RPC object");
  }
  if (Object.hasOwn(frame, "method")) {
    handle(frame);
  } else if (Object.hasOwn(frame, "id") && !Object.hasOwn(frame, "result") && !Object.hasOwn(frame, "error")) {
    fail(frame.id, -32600, "invalid request");
  }
  // else: a response to a request this Agent never sends; nothing to do
}

// Node's event loop is the main loop: input arrives as "data" events and each
// running turn's chunks as its timer fires (stepTurn).
let pending = Buffer.alloc(0);
process.stdin.on("data", (data) => {
  pending = Buffer.concat([pending, data]);
  for (let nl = pending.indexOf(10); nl >= 0; nl = pending.indexOf(10)) {
    const line = pending.subarray(0, nl);
    pending = pending.subarray(nl + 1);
    if (line.toString().trim()) readFrame(line);
  }
});
process.stdin.on("end", () => process.exit(0)); // the Client closed stdin: the connection is over
process.stdout.on("error", () => process.exit(0)); // the Client went away (EPIPE): nothing left to answer
