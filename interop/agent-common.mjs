// What the two interop Agents share and what has nothing to do with keys:
// the --store flag, the store and the stdio transport (the SDK's ndjson
// stream over stdin/stdout).
import fs from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk/experimental/v2/unstable";

// storeDir is the DIR of --store DIR; without the flag, $ACPSIM_STORE
// (acpsim check gives each seed's Agent processes a fresh directory there);
// without either, undefined: the state lives in memory only.
export function storeDir(argv = process.argv.slice(2)) {
  const i = argv.indexOf("--store");
  if (i < 0) return process.env.ACPSIM_STORE || undefined;
  if (!argv[i + 1]) {
    console.error("usage: --store DIR");
    process.exit(2);
  }
  return argv[i + 1];
}

// openStore opens the store in DIR/store.ndjson: a log of records, each
// written with one synchronous O_APPEND write before any answer depends on
// it, and the state is the log read in order (sessions: id → { id, cwd,
// messages: [{ id, role, content }], keys: Map key → messageId }).
//
// A log and not a JSON file replaced by rename, because acpsim check runs
// several Agent processes on one store at once (one per Client, sharing
// $ACPSIM_STORE): appends from several processes never overwrite one
// another, and every process reads the records in the same order. That
// order makes the key binding an insert-if-absent: a message record whose
// key its session already bound is not part of the history, so when two
// processes insert one keyed prompt at once, the first record wins and
// the other process answers with its messageId (see bound in the keyed
// Agent). A record is "\n" JSON "\n": a SIGKILL can at worst leave one
// torn line, which the reader skips, and the leading newline keeps the
// next process's record off it. The page cache outlives a killed process;
// power loss is not a case acpsim tests, so there is no fsync per prompt.
export function openStore(dir) {
  const file = dir && path.join(dir, "store.ndjson");
  if (dir) fs.mkdirSync(dir, { recursive: true });
  const sessions = new Map();
  let offset = 0;
  let partial = Buffer.alloc(0); // an unfinished last line, possibly another process's write in progress

  function apply(r) {
    if (r.t === "session" && !sessions.has(r.id)) {
      sessions.set(r.id, { id: r.id, cwd: r.cwd, messages: r.messages ?? [], keys: new Map() });
    }
    const s = r.t === "message" && sessions.get(r.session);
    if (!s || (r.key != null && s.keys.has(r.key))) return; // unknown session, or a key bound already
    s.messages.push({ id: r.id, role: r.role, content: r.content });
    if (r.key != null) s.keys.set(r.key, r.id);
  }

  // sync reads what any process appended since the last read.
  function sync() {
    if (!file || !fs.existsSync(file)) return;
    const fd = fs.openSync(file, "r");
    try {
      const size = fs.fstatSync(fd).size;
      if (size <= offset) return;
      const buf = Buffer.alloc(size - offset);
      offset += fs.readSync(fd, buf, 0, buf.length, offset);
      const data = Buffer.concat([partial, buf]);
      const end = data.lastIndexOf(0x0a) + 1;
      partial = data.subarray(end);
      for (const line of data.subarray(0, end).toString("utf8").split("\n")) {
        if (!line) continue;
        try {
          apply(JSON.parse(line));
        } catch {
          // a torn record of a killed process
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }

  function append(record) {
    if (file) fs.appendFileSync(file, "\n" + JSON.stringify(record) + "\n");
    else apply(record);
    sync();
  }

  sync();
  return { sessions, sync, append };
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

// listenAddr is the HOST:PORT of --listen, undefined without the flag.
export function listenAddr(argv = process.argv.slice(2)) {
  const i = argv.indexOf("--listen");
  if (i < 0) return undefined;
  if (!argv[i + 1] || !argv[i + 1].includes(":")) {
    console.error("usage: --listen HOST:PORT (PORT 0: any free port)");
    process.exit(2);
  }
  return argv[i + 1];
}

// serveHTTP serves app with the SDK's AcpServer, Streamable HTTP on /acp
// only, as an SDK user deploys it (the SDK answers a WebSocket upgrade 426
// unless a WebSocket server is wired in, and this one wires in none). The
// URL is the first line on stdout, as acpsim agent --listen prints it.
export async function serveHTTP(app, addr) {
  const http = await import("node:http");
  const { AcpServer } = await import("@agentclientprotocol/sdk/experimental/server");
  const { createNodeHttpHandler } = await import("@agentclientprotocol/sdk/experimental/node");
  const handle = createNodeHttpHandler(new AcpServer({ agent: app }));
  const server = http.createServer((req, res) => {
    if (new URL(req.url, "http://x").pathname !== "/acp") {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found: the endpoint is /acp");
      return;
    }
    handle(req, res);
  });
  const i = addr.lastIndexOf(":");
  const host = addr.slice(0, i) || "127.0.0.1";
  server.listen(Number(addr.slice(i + 1)), host, () => {
    console.log(`http://${host}:${server.address().port}/acp`);
  });
  process.on("SIGTERM", () => process.exit(0));
  process.on("unhandledRejection", (err) => console.error("unhandled:", err?.message ?? err));
}

// sendUpdate writes a session/update to the Client; a failure means the
// connection is gone, which serveStdio already handles.
export function sendUpdate(conn, sessionId, update) {
  return conn.client.notify("session/update", { sessionId, update }).catch(() => {});
}
