#!/usr/bin/env python3
"""renumbering-proxy.py: a conductor-style ACP stdio proxy, standard library only.

    python3 renumbering-proxy.py [--map-cancels] -- AGENT ARGS...

It starts the Agent and stands between it and the Client on stdio, as a
conductor does: every request the Client sends goes on under an id from the
proxy's own counter (1, 2, 3 ...), and each answer goes back under the id the
Client used. Everything else passes unchanged.

Without --map-cancels it has the bug a published conductor had: it forwards
$/cancel_request with params.requestId untouched. The Client's id then names
whatever request the Agent knows by that number; against a Client that
numbers from 0 (the official SDK's does), cancelling prompt C withdraws the
prompt sent just before it, and C is inserted. The schema:
CancelRequestNotification.requestId is "a request that the sender of this
notification issued. Receivers match it only against requests they received
from that sender." With --map-cancels it maps the requestId, as it must.
"""
import json
import subprocess
import sys
import threading


def main():
    args = sys.argv[1:]
    map_cancels = "--map-cancels" in args
    if "--" not in args or args.index("--") == len(args) - 1:
        print("usage: renumbering-proxy.py [--map-cancels] -- AGENT ARGS...", file=sys.stderr)
        sys.exit(2)
    agent = subprocess.Popen(args[args.index("--") + 1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    lock = threading.Lock()
    counter = 0
    hop_of = {}  # the Client's id (as JSON text) -> the proxy's id
    client_of = {}  # the proxy's id -> the Client's id (JSON value)
    out = sys.stdout.buffer

    def to_client():
        for line in agent.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                msg = None
            if isinstance(msg, dict) and "method" not in msg and "id" in msg:
                with lock:
                    orig = client_of.pop(json.dumps(msg["id"]), None)
                if orig is not None:
                    msg["id"] = orig
                    line = (json.dumps(msg) + "\n").encode()
            out.write(line)
            out.flush()

    reader = threading.Thread(target=to_client, daemon=True)
    reader.start()
    for line in sys.stdin.buffer:
        try:
            msg = json.loads(line)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and isinstance(msg.get("method"), str):
            if "id" in msg:
                with lock:
                    counter += 1
                    client_of[str(counter)] = msg["id"]
                    hop_of[json.dumps(msg["id"])] = counter
                msg["id"] = counter
                line = (json.dumps(msg) + "\n").encode()
            elif msg["method"] == "$/cancel_request" and map_cancels:
                params = msg.get("params") or {}
                with lock:
                    hop = hop_of.get(json.dumps(params.get("requestId")))
                if hop is not None:
                    params["requestId"] = hop
                    line = (json.dumps(msg) + "\n").encode()
        try:
            agent.stdin.write(line)
            agent.stdin.flush()
        except BrokenPipeError:
            break
    try:
        agent.stdin.close()
    except BrokenPipeError:
        pass
    reader.join()
    sys.exit(agent.wait())


if __name__ == "__main__":
    main()
