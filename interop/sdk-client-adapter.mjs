#!/usr/bin/env node
// sdk-client-adapter.mjs: the official SDK's Client as shipped, driven as a
// straightforward app drives it, for acpsim check-client
// (docs/client-adapter.md). The SDK sends no idempotencyKey, so when the
// Agent dies before answering, the app's resend on a new Agent process is
// a second insertion whenever the first one happened: acpsim reports the
// duplicates. It keeps its session and pending input in memory only.
import { runAdapter } from "./client-adapter-common.mjs";

await runAdapter({
  persist: false,
  newPending: (m) => ({ id: m.id, text: m.submit }),
  keyFor: () => null,
});
