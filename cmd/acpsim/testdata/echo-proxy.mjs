#!/usr/bin/env node
// A broken proxy from a hostile-input campaign, with no dependencies: it
// forwards nothing to the Agent it is given and answers every request
// itself, echoing its params as the result. Its initialize answer passes
// for one (it echoes the Client's protocolVersion and capabilities), but
// every session/new "result" lacks a sessionId, so no session is ever
// made and no prompt can be sent. acpsim check --via must call that a
// broken path within --start-timeout, never a PASS.
import { createInterface } from "node:readline";

createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.method === undefined || msg.id === undefined) return; // notifications, responses
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: msg.params ?? {} }) + "\n");
});
