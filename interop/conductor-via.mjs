#!/usr/bin/env node
// conductor-via.mjs: @thinkwell/conductor (npm, a TypeScript conductor of
// ACP proxy chains) as a process on stdio, for acpsim check --via: the
// Client side is this process's stdin and stdout, one JSON-RPC message a
// line; the chain behind it is the Agent command acpsim gives in
// $ACPSIM_AGENT_COMMAND (no proxy in between), which the conductor spawns.
// The package is a library with no executable; this is the least that runs
// it as one.
//
//   acpsim check --via 'node interop/conductor-via.mjs' -- acpsim agent
import readline from "node:readline";
import { Conductor, fromCommands } from "@thinkwell/conductor";

const agent = process.env.ACPSIM_AGENT_COMMAND;
if (!agent) {
  process.stderr.write("conductor-via: $ACPSIM_AGENT_COMMAND is not set (acpsim check --via sets it)\n");
  process.exit(2);
}

// The Client's side of the conductor: lines in, lines out. A line that is
// not JSON is dropped with a word on stderr, as the conductor reads objects.
async function* clientMessages() {
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    try {
      yield JSON.parse(line);
    } catch (err) {
      process.stderr.write(`conductor-via: not JSON, dropped: ${err.message}\n`);
    }
  }
}

const client = {
  connect: async () => ({
    send: (message) => process.stdout.write(JSON.stringify(message) + "\n"),
    messages: clientMessages(),
    close: async () => process.stdout.end(),
  }),
};

const conductor = new Conductor({ instantiator: fromCommands([agent]), mcpBridgeMode: "disabled" });
await conductor.connect(client);
// The Client closed its side: the chain ends with it.
process.exit(0);
