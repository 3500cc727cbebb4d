#!/usr/bin/env node
// sdk-v1-client-adapter.mjs: the official SDK's Client through its default
// (ACP v1) API, as most published Clients speak today, driven as a plain
// app drives it, for acpsim check-client (docs/client-adapter.md). v1 has no
// idempotencyKey and names no message in a prompt's answer: the outcome
// told is "inserted" with the turn's stopReason. When the Agent dies before
// answering, or the app itself restarts while it waits, this app tells the
// user the outcome is unknown (it cannot know whether the input went in);
// it keeps its session and the pending input in $ACPSIM_STATE_DIR for that.
// With --resend it sends the prompt again on a new Agent process instead,
// and a prompt the dead process had inserted is inserted twice: acpsim
// reports the duplicate.
//
//   node sdk-v1-client-adapter.mjs [--resend]
import * as acp from "@agentclientprotocol/sdk";
import { Connection, isRPCError, loadState, runForgetful, saveState } from "./client-adapter-common.mjs";

const cwd = process.env.ACPSIM_CWD ?? "/tmp";
const resend = process.argv.includes("--resend");

let conn = null;
const state = loadState(true); // { sessionId, pending }

// connect opens a connection with the session on it: session/new the first
// time, session/load after (v1's way back into a session).
async function connect() {
  const c = await Connection.open(acp);
  await c.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: {},
    clientInfo: { name: "acpsim-v1-client-adapter", version: "0" },
  });
  if (state.sessionId) {
    try {
      await c.request("session/load", { sessionId: state.sessionId, cwd, mcpServers: [] });
      return c;
    } catch (err) {
      if (!isRPCError(err)) throw err;
      state.sessionId = null;
    }
  }
  ({ sessionId: state.sessionId } = await c.request("session/new", { cwd, mcpServers: [] }));
  saveState(true, state);
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
      const res = await conn.request("session/prompt", { sessionId: state.sessionId, prompt: [{ type: "text", text: m.submit }] });
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

// The user's lines, one at a time; v1 gives no way to learn whether input
// pending at the app's own restart went in, short of reading the history,
// which this app does not do.
await runForgetful(state, settle, "the app restarted while it waited for the answer");
conn?.close();
