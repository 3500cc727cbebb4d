#!/usr/bin/env node
// failed-key-client-adapter.mjs: known-bad, for acpsim check-client. Like
// the keyed adapter, but after telling its user "failed" it keeps the key
// for the next submission, as if an unused key were spare. The error left
// the key unused, so the Agent inserts the next, different prompt under it,
// breaking "Clients MUST NOT send the same key with a different prompt":
// acpsim names it key-reused.
import { randomUUID } from "node:crypto";
import { runAdapter } from "./client-adapter-common.mjs";

let spare = null; // in memory: a restart forgets it

await runAdapter({
  persist: true,
  newPending: (m) => {
    const p = { id: m.id, text: m.submit, key: spare ?? randomUUID() };
    spare = null;
    return p;
  },
  keyFor: (p) => p.key,
  told: (p, outcome) => {
    if (outcome.outcome === "failed") spare = p.key;
  },
});
