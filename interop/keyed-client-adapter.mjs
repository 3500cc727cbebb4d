#!/usr/bin/env node
// keyed-client-adapter.mjs: a correct keyed Client on the official SDK, for
// acpsim check-client (docs/client-adapter.md). The key is made when the
// user submits, stored with the pending input and the session id in
// $ACPSIM_STATE_DIR before the first send, and sent on every attempt,
// across new Agent processes and restarts of this process; a repeated text
// is a new submission with a new key.
import { randomUUID } from "node:crypto";
import { runAdapter } from "./client-adapter-common.mjs";

await runAdapter({
  persist: true,
  newPending: (m) => ({ id: m.id, text: m.submit, key: randomUUID() }),
  keyFor: (p) => p.key,
});
