#!/usr/bin/env node
// optimistic-cancel-client-adapter.mjs: known-bad, for acpsim check-client.
// Like the keyed adapter, but when the user cancels it stops waiting for the
// Agent's answer (the SDK's stopWaitingOnCancel) and tells "failed" at once.
// A cancel that reaches the Agent after it inserted the prompt withdraws
// nothing ("$/cancel_request ... withdraws a prompt that is not inserted
// yet"), so the user is told failed for a message in the transcript:
// acpsim names it phantom.
import { randomUUID } from "node:crypto";
import { runAdapter } from "./client-adapter-common.mjs";

await runAdapter({
  persist: true,
  newPending: (m) => ({ id: m.id, text: m.submit, key: randomUUID() }),
  keyFor: (p) => p.key,
  stopWaitingOnCancel: true,
});
