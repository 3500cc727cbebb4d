#!/usr/bin/env python3
# A known-bad proxy for acpsim check --via: it forwards every frame to the
# Agent in $ACPSIM_AGENT_COMMAND, turning a prompt's omitted or null
# idempotencyKey into "" on the way. The RFD makes "" malformed (-32602)
# and an omitted key legal, so the user's unkeyed prompt is refused.
import json
import os
import shlex
import subprocess
import sys

agent = subprocess.Popen(shlex.split(os.environ["ACPSIM_AGENT_COMMAND"]), stdin=subprocess.PIPE)
for line in sys.stdin.buffer:
    try:
        msg = json.loads(line)
    except ValueError:
        msg = None
    if isinstance(msg, dict) and msg.get("method") == "session/prompt" and isinstance(msg.get("params"), dict):
        if msg["params"].get("idempotencyKey") is None:
            msg["params"]["idempotencyKey"] = ""
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
sys.exit(agent.wait())
