#!/usr/bin/env node
// inserted-on-error-client-adapter.mjs: known-bad, for acpsim check-client.
// Like the keyed adapter, but an error answer to a prompt leaves the
// optimistic message it showed as sent, with its local id: the user is told
// inserted. The RFD: "An error response to session/prompt already means the
// message was not inserted"; acpsim names the message lost.
import { randomUUID } from "node:crypto";
import { runAdapter } from "./client-adapter-common.mjs";

await runAdapter({
  persist: true,
  newPending: (m) => ({ id: m.id, text: m.submit, key: randomUUID() }),
  keyFor: (p) => p.key,
  onError: (p) => ({ id: p.id, outcome: "inserted", messageId: `local-${p.key}` }),
});
