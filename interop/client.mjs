#!/usr/bin/env node
// client.mjs: a small ACP v2 Client written against the official TypeScript
// SDK's v2 API. It plays the RFD's main case: a keyed prompt whose answer
// the Client did not keep is sent again, with the same key, on a new
// connection (a new Agent process on stdio), and must be answered with the
// original messageId and inserted once.
//
//   node client.mjs [--frames FILE] [--cwd DIR] -- CMD ARGS...   stdio: CMD is started per connection
//   node client.mjs [--frames FILE] [--cwd DIR] --url ws://HOST/acp | http://HOST/acp
//
// Remote connections use the SDK's own transports: createHttpStream
// (Streamable HTTP) and createWebSocketStream, which needs a global
// WebSocket: Node 22+, or Node 20 run with --experimental-websocket.
//
// Connection 1: initialize, session/new, session/prompt with a key.
// Connection 2: initialize, session/resume with replay, the same prompt and key again.
// Connection 3: initialize, session/resume with replay (the transcript after
// the retry), then a prompt with idempotencyKey "" (the RFD wants -32602).
// It prints one JSON line (the summary) on stdout and exits 0 when the run
// got that far, whatever the Agent answered; 1 when the run broke off.
// --frames appends every JSON-RPC message both ways as ndjson
// {conn, dir: "c2a"|"a2c", frame}, for schema validation. --late-sse MS
// (Streamable HTTP) holds every SSE GET back MS milliseconds: the SDK POSTs
// session/new without waiting for its connection stream's GET, so this is
// the order a slow network can give, and the Agent must keep the answer
// for the stream's first GET.
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";

const argv = process.argv.slice(2);
const dash = argv.indexOf("--");
const command = dash >= 0 ? argv.slice(dash + 1) : [];
const flags = dash >= 0 ? argv.slice(0, dash) : argv;
const flag = (name) => (flags.includes(name) ? flags[flags.indexOf(name) + 1] : undefined);
const url = flag("--url");
const framesFile = flag("--frames");
const cwd = flag("--cwd") ?? "/tmp/acpsim-interop";
const lateSSE = Number(flag("--late-sse") ?? 0);
if (!url === !command.length) {
  console.error("usage: node client.mjs [--frames FILE] [--cwd DIR] [--late-sse MS] (-- CMD ARGS... | --url ws://HOST/acp | --url http://HOST/acp)");
  process.exit(2);
}
if (url?.startsWith("ws") && typeof globalThis.WebSocket !== "function") {
  console.error("client.mjs: this Node has no global WebSocket: run node with --experimental-websocket (Node 20) or use Node 22+");
  process.exit(2);
}

// logged wraps an SDK stream so every message is written to --frames as it
// passes, in order, whatever the transport.
function logged(stream, conn) {
  const record = (dir, frame) => framesFile && fs.appendFileSync(framesFile, JSON.stringify({ conn, dir, frame }) + "\n");
  const writer = stream.writable.getWriter();
  return {
    readable: stream.readable.pipeThrough(
      new TransformStream({
        transform(frame, controller) {
          record("a2c", frame);
          controller.enqueue(frame);
        },
      }),
    ),
    writable: new WritableStream({
      write(frame) {
        record("c2a", frame);
        return writer.write(frame);
      },
      close: () => writer.close(),
      abort: (reason) => writer.abort(reason),
    }),
  };
}

// connection opens connection number n (a new Agent process on stdio), runs
// op with the SDK's ClientContext and the session/update notifications
// received so far, and ends the connection (for stdio: closes stdin and
// waits for the Agent to exit).
async function connection(n, op) {
  let stream;
  let child;
  if (url) {
    stream = url.startsWith("ws") ? createWebSocketStream(url) : createHttpStream(url, { fetch: lateSSE ? lateGets : undefined });
  } else {
    child = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
    child.stdin.on("error", () => {}); // an Agent that died: the run fails on its own terms
    stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  }
  const updates = [];
  const app = acp.client({ name: "acpsim-interop-client" }).onNotification("session/update", ({ params }) => {
    updates.push(params);
  });
  try {
    return await app.connectWith(logged(stream, n), (ctx) => op(ctx, updates));
  } finally {
    if (child) await exited(child);
  }
}

// lateGets is fetch with every GET (an SSE stream's open) held back.
async function lateGets(input, init) {
  if ((init?.method ?? "GET") === "GET") await sleep(lateSSE);
  return fetch(input, init);
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.stdin.end();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
    child.on("exit", () => {
      clearTimeout(kill);
      resolve();
    });
  });
}

async function initialize(ctx) {
  const res = await ctx.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "acpsim-interop-client", version: "0" },
    capabilities: {},
  });
  return res.info;
}

// userMessages folds the user message updates of sessionId among updates
// into messages in order: a chunk appends its text, a whole update with
// content replaces it.
function userMessages(updates, sessionId) {
  const byId = new Map();
  for (const { sessionId: s, update: u } of updates) {
    if (s !== sessionId || (u.sessionUpdate !== "user_message" && u.sessionUpdate !== "user_message_chunk")) continue;
    const text = (blocks) => blocks.map((b) => b.text ?? "").join("");
    if (!byId.has(u.messageId)) byId.set(u.messageId, "");
    if (u.sessionUpdate === "user_message_chunk") byId.set(u.messageId, byId.get(u.messageId) + text([u.content]));
    else if (u.content) byId.set(u.messageId, text(u.content));
  }
  return [...byId].map(([messageId, text]) => ({ messageId, text }));
}

// replay resumes sessionId with replay from the start and returns the user
// messages it replays: those before the state_update snapshot the Agent
// MUST send after the replay and before the response. The snapshot, not the
// response, marks the end: on Streamable HTTP the replay travels on the
// session's SSE stream and the response on the connection's, so the
// response may arrive first.
async function replay(ctx, updates, sessionId) {
  const from = updates.length;
  await ctx.request("session/resume", { sessionId, cwd, replayFrom: { type: "start" } });
  const snapshot = () =>
    updates.findIndex((n, i) => i >= from && n.sessionId === sessionId && n.update.sessionUpdate === "state_update");
  for (const end = Date.now() + 3000; snapshot() < 0; await sleep(10)) {
    if (Date.now() > end) throw new Error("session/resume: no state_update snapshot after the replay");
  }
  return userMessages(updates.slice(from, snapshot()), sessionId);
}

// idle waits (at most ms) for the session to report idle, so the turn's
// frames are in the log before the connection ends; false if it did not.
async function idle(updates, sessionId, ms) {
  const isIdle = ({ sessionId: s, update: u }) => s === sessionId && u.sessionUpdate === "state_update" && u.state === "idle";
  for (const end = Date.now() + ms; !updates.some(isIdle); await sleep(10)) {
    if (Date.now() > end) return false;
  }
  return true;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const key = randomUUID();
const prompt = [{ type: "text", text: "interop: say hello" }];
const summary = { transport: url ? new URL(url).protocol.replace(":", "") : "stdio", key };
try {
  await connection(1, async (ctx, updates) => {
    summary.agent = await initialize(ctx);
    const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
    summary.sessionId = sessionId;
    // The SDK's PromptRequest type has no idempotencyKey; it sends the
    // params object as given, so the key reaches the wire.
    summary.first = (await ctx.request("session/prompt", { sessionId, prompt, idempotencyKey: key })).messageId;
    summary.idle = await idle(updates, sessionId, 3000);
    summary.live = userMessages(updates, sessionId);
  });
  await connection(2, async (ctx, updates) => {
    await initialize(ctx);
    summary.replayBeforeRetry = await replay(ctx, updates, summary.sessionId);
    summary.retry = (await ctx.request("session/prompt", { sessionId: summary.sessionId, prompt, idempotencyKey: key })).messageId;
  });
  await connection(3, async (ctx, updates) => {
    await initialize(ctx);
    summary.replayAfterRetry = await replay(ctx, updates, summary.sessionId);
    try {
      const res = await ctx.request("session/prompt", { sessionId: summary.sessionId, prompt, idempotencyKey: "" });
      summary.emptyKey = { messageId: res.messageId };
    } catch (err) {
      summary.emptyKey = { code: err.code };
    }
  });
  summary.sameMessageId = summary.first === summary.retry;
  summary.userMessages = summary.replayAfterRetry.length;
  console.log(JSON.stringify(summary));
} catch (err) {
  summary.error = String(err?.message ?? err);
  if (err?.code !== undefined) summary.errorCode = err.code;
  console.log(JSON.stringify(summary));
  process.exit(1);
}
