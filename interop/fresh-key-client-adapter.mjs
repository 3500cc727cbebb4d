#!/usr/bin/env node
// fresh-key-client-adapter.mjs: known-bad, for acpsim check-client. Like the
// keyed adapter, but it makes a new key for every attempt, breaking the
// RFD's "It sends the same key on every attempt, including after
// reconnecting or restarting": each retry of an inserted prompt is a second
// insertion, and acpsim names the rule (key-changed).
import { randomUUID } from "node:crypto";
import { runAdapter } from "./client-adapter-common.mjs";

await runAdapter({
  persist: true,
  newPending: (m) => ({ id: m.id, text: m.submit }),
  keyFor: () => randomUUID(),
});
