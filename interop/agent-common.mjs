// What the two interop Agents share and what has nothing to do with keys:
// the --store flag, the store (one JSON file, replaced atomically) and the
// stdio transport (the SDK's ndjson stream over stdin/stdout).
import fs from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";

// storeDir is the DIR of --store DIR, or undefined (state in memory only).
export function storeDir(argv = process.argv.slice(2)) {
  const i = argv.indexOf("--store");
  if (i < 0) return undefined;
  if (!argv[i + 1]) {
    console.error("usage: --store DIR");
    process.exit(2);
  }
  return argv[i + 1];
}

// openStore loads DIR/store.json, or starts from a copy of empty. save()
// writes the whole state to a temporary file and renames it over
// store.json, synchronously: a process SIGKILLed at any instant leaves the
// old state or the new one, never a torn file, and what save() returned
// from survives the kill (the page cache outlives the process; power loss
// is not a case acpsim tests, so there is no fsync to pay on every prompt).
// Several processes may use one store one after the other, never at once:
// each reads the file when it starts and owns it from then on.
export function openStore(dir, empty) {
  const file = dir && path.join(dir, "store.json");
  let state = structuredClone(empty);
  if (file) {
    fs.mkdirSync(dir, { recursive: true });
    try {
      state = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
      if (err.code !== "ENOENT") throw err;
    }
  }
  return {
    state,
    save() {
      if (!file) return;
      fs.writeFileSync(file + ".tmp", JSON.stringify(state));
      fs.renameSync(file + ".tmp", file);
    },
  };
}

// serveStdio connects app to stdin/stdout and returns the AgentConnection.
// onMessage sees every incoming JSON-RPC message before the SDK parses it:
// the SDK's parsers drop fields its schema lacks (idempotencyKey among
// them), so this is the only place an Agent can read such a field.
// The process exits 0 when stdin ends: on stdio that is the Client closing
// the connection, and no work outlives it here.
export function serveStdio(app, onMessage = () => {}) {
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  const tapped = new TransformStream({
    transform(message, controller) {
      onMessage(message);
      controller.enqueue(message);
    },
  });
  const conn = app.connect({ readable: stream.readable.pipeThrough(tapped), writable: stream.writable });
  conn.closed.then(() => setImmediate(() => process.exit(0)));
  // A Client that went away without closing stdin: writing fails, nothing to serve.
  process.stdout.on("error", () => process.exit(0));
  process.on("unhandledRejection", (err) => console.error("unhandled:", err?.message ?? err));
  return conn;
}

// send writes a session/update to the Client; a failure means the
// connection is gone, which serveStdio already handles.
export function sendUpdate(conn, sessionId, update) {
  return conn.client.notify("session/update", { sessionId, update }).catch(() => {});
}
