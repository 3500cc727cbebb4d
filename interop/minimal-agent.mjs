#!/usr/bin/env node
// minimal-agent.mjs: the smallest ACP v2 Agent an SDK author writes on the
// official TypeScript SDK's v2 API: initialize, session/new, session/prompt,
// session/close and session/cancel, nothing more. It offers no
// session/resume and no session/list (the SDK answers both -32601), sends no
// state_update, keeps sessions in memory and, like the SDK itself, never
// sees idempotencyKey (the SDK's params parser drops it before the handler
// runs), so a keyed retry is a new prompt with a new messageId.
//
// `acpsim conform` must report exactly that: the missing methods as failed
// baselines that block the cases needing them, and the ignored key as the
// real cause of the keyed failures, with no FAIL on a rule this Agent meets.
//
//   node minimal-agent.mjs
import { randomUUID } from "node:crypto";
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { sendUpdate, serveStdio } from "./agent-common.mjs";

const sessions = new Set();

const app = acp
  .agent({ name: "acpsim-interop-minimal" })
  .onRequest("initialize", () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    info: { name: "acpsim-interop-minimal", version: "0" },
    capabilities: {},
  }))
  .onRequest("session/new", () => {
    const id = randomUUID();
    sessions.add(id);
    return { sessionId: id };
  })
  .onRequest("session/close", ({ params }) => {
    sessions.delete(params.sessionId);
    return {};
  })
  .onRequest("session/prompt", async ({ params }) => {
    if (!sessions.has(params.sessionId)) throw acp.RequestError.sessionNotFound(params.sessionId);
    const messageId = randomUUID();
    await sendUpdate(conn, params.sessionId, { sessionUpdate: "user_message", messageId, content: params.prompt });
    setImmediate(() =>
      sendUpdate(conn, params.sessionId, { sessionUpdate: "agent_message", messageId: randomUUID(), content: [{ type: "text", text: "ok." }] }),
    );
    return { messageId };
  })
  .onNotification("session/cancel", () => {});

const conn = serveStdio(app);
