#!/usr/bin/env node
// A hung Agent, with no dependencies: it answers initialize (ACP v2) and
// then nothing, ever; session/new waits forever. acpsim check must call it
// broken within --start-timeout, not wait out its cap.
import { createInterface } from "node:readline";

createInterface({ input: process.stdin }).on("line", (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.method !== "initialize") return;
  const result = { protocolVersion: 2, capabilities: {}, info: { name: "silent-after-initialize", version: "0.1.0" } };
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }) + "\n");
});
