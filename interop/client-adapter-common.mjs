// client-adapter-common.mjs: what the Client adapters of acpsim
// check-client share (docs/client-adapter.md): the user's lines on stdin,
// the outcomes on stdout, the Agent spawned from $ACPSIM_AGENT and spoken to
// with the official SDK's Client (@agentclientprotocol/sdk 2.4.0, v2 API),
// and the pending input kept in $ACPSIM_STATE_DIR.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2";

const cwd = process.env.ACPSIM_CWD ?? "/tmp";
const stateFile = process.env.ACPSIM_STATE_DIR ? path.join(process.env.ACPSIM_STATE_DIR, "client.json") : null;
const attemptTimeout = 5000;

// tell prints an outcome for the user, or the adapter's capabilities: the
// only things on stdout.
export function tell(outcome) {
  process.stdout.write(JSON.stringify(outcome) + "\n");
}

// State is what a Client keeps for its user; persisted only when asked.
export function loadState(persist) {
  if (persist && stateFile && fs.existsSync(stateFile)) return JSON.parse(fs.readFileSync(stateFile, "utf8"));
  return { sessionId: null, pending: null };
}

export function saveState(persist, state) {
  if (!persist || !stateFile) return;
  fs.writeFileSync(stateFile + ".tmp", JSON.stringify(state)); // then rename: a kill leaves the old or the new file whole
  fs.renameSync(stateFile + ".tmp", stateFile);
}

// Connection is one Agent process, spoken to with the SDK's Client. A
// request fails (rejects) when the process dies or the answer takes too
// long: the SDK alone would wait forever on a dead pipe. api is the SDK
// entry point to speak with (its v2 API unless given; its default, v1).
export class Connection {
  static async open(api = acp) {
    const c = new Connection();
    c.child = spawn("sh", ["-c", `exec ${process.env.ACPSIM_AGENT}`], { stdio: ["pipe", "pipe", "inherit"] });
    c.child.stdin.on("error", () => {});
    c.exited = new Promise((resolve) => c.child.on("exit", resolve));
    const stream = api.ndJsonStream(Writable.toWeb(c.child.stdin), Readable.toWeb(c.child.stdout));
    let ready;
    const gotCtx = new Promise((resolve) => (ready = resolve));
    const app = api.client({ name: "acpsim-client-adapter" }).onNotification("session/update", () => {});
    c.done = app
      .connectWith(stream, (ctx) => {
        ready(ctx);
        return c.exited;
      })
      .catch(() => {});
    c.ctx = await Promise.race([gotCtx, c.exited.then(() => null)]);
    return c;
  }

  alive() {
    return this.ctx && this.child.exitCode === null && this.child.signalCode === null;
  }

  async request(method, params, options) {
    if (!this.alive()) throw new Error("the Agent process is gone");
    let timer;
    const gone = new Promise((_, reject) => {
      this.exited.then(() => reject(new Error("the Agent process exited")));
      timer = setTimeout(() => reject(new Error(`no answer to ${method} within ${attemptTimeout} ms`)), attemptTimeout);
    });
    try {
      return await Promise.race([this.ctx.request(method, params, options), gone]);
    } finally {
      clearTimeout(timer);
    }
  }

  close() {
    this.child.stdin.end();
    setTimeout(() => this.child.kill("SIGKILL"), 1000).unref();
  }
}

// isRPCError says whether err is the Agent's JSON-RPC error response, not
// a broken connection: only then was the prompt surely not inserted.
export const isRPCError = (err) => typeof err?.code === "number";

// connect opens a connection with the session set up on it: session/new the
// first time, session/resume after (the RFD: "initialize and
// session/resume, then sends the prompt again").
export async function connect(state, persist) {
  const c = await Connection.open();
  await c.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, info: { name: "acpsim-client-adapter", version: "0" }, capabilities: {} });
  if (state.sessionId) {
    try {
      await c.request("session/resume", { sessionId: state.sessionId, cwd });
      return c;
    } catch (err) {
      if (!isRPCError(err)) throw err;
      state.sessionId = null; // the Agent does not know it: a new session
    }
  }
  const { sessionId } = await c.request("session/new", { cwd, mcpServers: [] });
  state.sessionId = sessionId;
  saveState(persist, state);
  return c;
}

// runAdapter plays the contract: each submission is sent until it is
// answered (success: inserted; an error response: failed) or attempts run
// out (unknown). keyFor(pending, attempt) is the key of an attempt (null:
// none); persist keeps the session and the pending input across restarts.
// The user's cancel aborts the pending attempt: the SDK sends
// $/cancel_request and waits for the Agent's answer, -32800 when the prompt
// was withdrawn, its messageId when the cancel came too late. The
// known-bad adapters change three answers: onError(pending, err) is the
// outcome told for an error response, told(pending, outcome) hears every
// outcome told, stopWaitingOnCancel tells the cancel's local -32800 at once.
const failedOn = (p, err) => ({ id: p.id, outcome: "failed", error: `${err.code} ${err.message}` });

export async function runAdapter({ keyFor, persist, newPending, onError = failedOn, told = () => {}, stopWaitingOnCancel = false }) {
  const state = loadState(persist);
  let conn = null;
  let cancel = null; // the pending submission's, while it is settled
  const settle = async (p, signal) => {
    let sent = false;
    for (let attempt = 1; attempt <= 8; attempt++) {
      if (signal.aborted && sent) {
        // No attempt is pending to withdraw, and a new one could be inserted.
        return { id: p.id, outcome: "unknown", error: "cancelled while no attempt was pending; an earlier one may have been inserted" };
      }
      try {
        if (!conn?.alive()) {
          conn?.close();
          conn = await connect(state, persist);
        }
        const params = { sessionId: state.sessionId, prompt: [{ type: "text", text: p.text }] };
        const key = keyFor(p, attempt);
        if (key !== null) params.idempotencyKey = key;
        sent = true;
        const res = await conn.request("session/prompt", params, { cancellationSignal: signal, stopWaitingOnCancel });
        return { id: p.id, outcome: "inserted", messageId: res.messageId };
      } catch (err) {
        if (isRPCError(err)) return onError(p, err);
        conn?.close();
        conn = null;
        await new Promise((r) => setTimeout(r, 20 * attempt));
      }
    }
    return { id: p.id, outcome: "unknown", error: "no answer after 8 attempts" };
  };
  const finish = async (p) => {
    // The outcome is stored with the input before it is told, and the input
    // forgotten after: a kill in between tells the stored outcome again
    // after the restart (legal), never a new one. Forgetting first lost an
    // inserted prompt's outcome to a kill in between (unresolved); telling
    // first, then resending on restart, turned a "failed" into an insertion
    // under the key the error had left unused (phantom).
    if (!p.outcome) {
      cancel = new AbortController();
      p.outcome = await settle(p, cancel.signal);
      cancel = null;
      saveState(persist, state);
    }
    tell(p.outcome);
    told(p, p.outcome);
    state.pending = null;
    saveState(persist, state);
  };
  const handle = async (m) => {
    if (m.restart) {
      if (state.pending) await finish(state.pending);
      return;
    }
    state.pending = newPending(m);
    saveState(persist, state); // stored with the pending input before the first send
    await finish(state.pending);
  };
  tell({ capabilities: { cancel: true } });
  // Input is read while a submission is settled, so that a cancel reaches
  // it; submissions and restarts are handled one after another.
  let queue = Promise.resolve();
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.cancel !== undefined) {
      if (state.pending?.id === m.cancel) cancel?.abort();
      continue;
    }
    queue = queue.then(() => handle(m));
  }
  await queue;
  conn?.close();
}

// runForgetful plays the contract for an app that settles each submission
// once (settle(m) resolves with its outcome) and keeps its state in
// state: the outcome is told, then the pending input forgotten (a kill in
// between tells it again after the restart, which is legal); input still
// pending when the app died is told unknown after its restart, as an app
// that cannot look the message up can only say.
export async function runForgetful(state, settle, restartedWhy) {
  const finish = (outcome) => {
    tell(outcome);
    state.pending = null;
    saveState(true, state);
  };
  let queue = Promise.resolve();
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.restart && state.pending) {
      const p = state.pending;
      queue = queue.then(() => finish({ id: p.id, outcome: "unknown", error: restartedWhy }));
      continue;
    }
    if (m.submit === undefined) continue;
    queue = queue.then(async () => {
      state.pending = { id: m.id, text: m.submit };
      saveState(true, state);
      finish(await settle(m));
    });
  }
  await queue;
}
