#!/usr/bin/env python3
"""template-agent.py: a small ACP v2 Agent to copy as the start of your own.

Python 3 standard library only. It speaks JSON-RPC 2.0 as ndjson (one JSON
object per line) on stdin and stdout; logs go to stderr. Replace `work()` with
your model call. Sessions, messages and idempotency-key bindings live in this
process's memory, so a new process answers session/resume of an old session
-32002 and the Client starts a new one (a correct design; acpsim judges it by
the process contract). To survive restarts, keep `sessions` in a store that
writes the message and its key binding together.

What it speaks, frame by frame: docs/agent-wire.md. Check it with
    acpsim conform -- python3 interop/template-agent.py
    acpsim check --seeds 10 -- python3 interop/template-agent.py
"""

import json
import os
import select
import sys
import time
import uuid

CHUNK_DELAY = 0.1  # seconds before each chunk: a turn lasts long enough for prompts to arrive during it
KEY_MAX = 255  # the RFD: a key is a string of 1..255 Unicode code points
KNOWN_BLOCKS = {"text", "image", "audio", "resource", "resource_link"}

# RFD / ACP error codes this Agent answers with.
INVALID_PARAMS, METHOD_NOT_FOUND, SESSION_NOT_FOUND, CANCELLED = -32602, -32601, -32002, -32800


class Session:
    def __init__(self, cwd):
        self.cwd = cwd
        self.active = True  # open on this connection (session/close ends that, resume restores it)
        self.history = []  # {"kind": "user_message"|"agent_message", "messageId", "content"}
        self.keys = {}  # idempotencyKey -> (prompt, messageId); never sent back to anyone
        self.held = []  # prompts waiting for the turn to end: {"key", "prompt", "ids": [request ids]}
        self.turn = None  # the running turn: {"messageId", "chunks": [...], "text", "next_at"}


sessions = {}


class RpcError(Exception):
    def __init__(self, code, message, data=None):
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


# ---- the wire ------------------------------------------------------------


def send(frame):
    frame = {"jsonrpc": "2.0", **frame}
    sys.stdout.write(json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def answer(request_id, result):
    send({"id": request_id, "result": result})


def fail(request_id, code, message, data=None):
    # Error messages never quote an idempotencyKey: keys are private to their sender.
    error = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    send({"id": request_id, "error": error})


def update(session_id, body):
    send({"method": "session/update", "params": {"sessionId": session_id, "update": body}})


# ---- sessions ------------------------------------------------------------


def session_of(params, must_be_active=True):
    sid = params.get("sessionId")
    session = sessions.get(sid) if isinstance(sid, str) else None
    if session is None or (must_be_active and not session.active):
        raise RpcError(SESSION_NOT_FOUND, "session not found or not active", {"sessionId": sid})
    return sid, session


def read_key(params):
    """The RFD's rules: omitted or null is no key; else a string of 1..255 code points."""
    key = params.get("idempotencyKey")
    if key is None:
        return None
    if not isinstance(key, str) or not 1 <= len(key) <= KEY_MAX:  # len() counts code points
        raise RpcError(INVALID_PARAMS, "invalid params: idempotencyKey must be a string of 1 to 255 characters")
    return key


def read_prompt(params):
    prompt = params.get("prompt")
    if not isinstance(prompt, list) or not all(known_block(b) for b in prompt):
        raise RpcError(INVALID_PARAMS, "invalid params: prompt must be an array of known content blocks")
    return prompt


def known_block(block):
    """A content block of a known type; a text block's text is a string."""
    if not isinstance(block, dict) or not isinstance(block.get("type"), str) or block["type"] not in KNOWN_BLOCKS:
        return False
    return block["type"] != "text" or isinstance(block.get("text"), str)


def on_prompt(request_id, params):
    sid, session = session_of(params)
    prompt, key = read_prompt(params), read_key(params)
    if key is not None:
        if key in session.keys:  # a retry: the original messageId, no new work
            original_prompt, message_id = session.keys[key]
            if original_prompt != prompt:
                raise RpcError(INVALID_PARAMS, "invalid params: this idempotencyKey was used for another prompt")
            return answer(request_id, {"messageId": message_id})
        for waiting in session.held:  # a retry of a held prompt waits with it
            if waiting["key"] == key:
                if waiting["prompt"] != prompt:
                    raise RpcError(INVALID_PARAMS, "invalid params: this idempotencyKey was used for another prompt")
                waiting["ids"].append(request_id)
                return
    # One turn at a time: a prompt that arrives while a turn runs is held, unanswered,
    # until the turn ends; then it is inserted and answered (session/cancel,
    # session/close and $/cancel_request withdraw it first).
    session.held.append({"key": key, "prompt": prompt, "ids": [request_id]})
    if session.turn is None:
        start_next_turn(sid, session)


def start_next_turn(sid, session):
    """Insert the oldest held prompt: bind its key, answer it, then report the turn."""
    if not session.held or session.turn is not None:
        return
    waiting = session.held.pop(0)
    message_id = str(uuid.uuid4())
    session.history.append({"kind": "user_message", "messageId": message_id, "content": waiting["prompt"]})
    if waiting["key"] is not None:
        session.keys[waiting["key"]] = (waiting["prompt"], message_id)
    for request_id in waiting["ids"]:  # answered at insertion
        answer(request_id, {"messageId": message_id})
    update(sid, {"sessionUpdate": "user_message", "messageId": message_id, "content": waiting["prompt"]})
    update(sid, {"sessionUpdate": "state_update", "state": "running"})
    session.turn = {"messageId": str(uuid.uuid4()), "chunks": work(waiting["prompt"]), "text": "", "next_at": time.monotonic() + CHUNK_DELAY}


def work(prompt):
    """Your model goes here: the reply, in chunks."""
    said = " ".join(b.get("text", "") for b in prompt if b.get("type") == "text")
    return ["You said: ", said[:200], "."]


def step_turns():
    """Send each running turn's next chunk when due; end the turn after the last one."""
    now = time.monotonic()
    for sid, session in list(sessions.items()):
        turn = session.turn
        if turn is None or turn["next_at"] > now:
            continue
        if turn["chunks"]:
            chunk = turn["chunks"].pop(0)
            turn["text"] += chunk
            turn["next_at"] = now + CHUNK_DELAY
            content = {"type": "text", "text": chunk}
            update(sid, {"sessionUpdate": "agent_message_chunk", "messageId": turn["messageId"], "content": content})
        else:
            end_turn(sid, session, "end_turn")
            start_next_turn(sid, session)


def end_turn(sid, session, stop_reason):
    turn, session.turn = session.turn, None
    if turn is None:
        return
    if turn["text"]:
        session.history.append({"kind": "agent_message", "messageId": turn["messageId"], "content": [{"type": "text", "text": turn["text"]}]})
    update(sid, {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop_reason})


def withdraw_held(session):
    """Answer every held prompt -32800: none was inserted, so its key stays unused."""
    for waiting in session.held:
        for request_id in waiting["ids"]:
            fail(request_id, CANCELLED, "request cancelled")
    session.held = []


# ---- methods -------------------------------------------------------------


def on_initialize(request_id, params):
    answer(request_id, {
        "protocolVersion": 2,
        "info": {"name": "template-agent", "version": "0.1"},
        # {} = the baseline session methods (new, list, resume, close, prompt, cancel); fork is extra.
        "capabilities": {"session": {"fork": {}}},
    })


def on_new(request_id, params):
    sid = str(uuid.uuid4())
    sessions[sid] = Session(params.get("cwd") or "/")
    answer(request_id, {"sessionId": sid})


def on_resume(request_id, params):
    sid, session = session_of(params, must_be_active=False)
    replay_from = params.get("replayFrom")
    if replay_from is not None and replay_from != {"type": "start"}:
        raise RpcError(INVALID_PARAMS, "invalid params: only replayFrom {\"type\":\"start\"} is supported")
    session.active = True
    if replay_from is not None:
        for entry in session.history:
            update(sid, {"sessionUpdate": entry["kind"], "messageId": entry["messageId"], "content": entry["content"]})
    # The schema: a current state_update after the replay and before the response.
    update(sid, {"sessionUpdate": "state_update", "state": "running" if session.turn else "idle"})
    answer(request_id, {})


def on_list(request_id, params):
    answer(request_id, {"sessions": [{"sessionId": sid, "cwd": s.cwd} for sid, s in sessions.items()]})


def on_close(request_id, params):
    # Close ends the session on this connection but keeps it: session/resume brings it back.
    sid, session = session_of(params, must_be_active=False)
    withdraw_held(session)
    end_turn(sid, session, "cancelled")
    session.active = False
    answer(request_id, {})


def on_fork(request_id, params):
    _, parent = session_of(params, must_be_active=False)
    sid = str(uuid.uuid4())
    child = Session(params.get("cwd") or parent.cwd)
    # A copy of the history under new messageIds, and no key bindings: a key in the fork is a new submission.
    child.history = [dict(entry, messageId=str(uuid.uuid4())) for entry in parent.history]
    sessions[sid] = child
    answer(request_id, {"sessionId": sid})


def on_session_cancel(params):
    sid = params.get("sessionId")
    session = sessions.get(sid) if isinstance(sid, str) else None
    if session is not None:
        withdraw_held(session)
        end_turn(sid, session, "cancelled")


def on_cancel_request(params):
    """$/cancel_request withdraws a held prompt and every other pending request of its key."""
    target = params.get("requestId")
    for session in sessions.values():
        for waiting in session.held:
            if target in waiting["ids"]:
                session.held.remove(waiting)
                for request_id in waiting["ids"]:
                    fail(request_id, CANCELLED, "request cancelled")
                return


REQUESTS = {
    "initialize": on_initialize,
    "session/new": on_new,
    "session/prompt": on_prompt,
    "session/resume": on_resume,
    "session/list": on_list,
    "session/close": on_close,
    "session/fork": on_fork,
}
NOTIFICATIONS = {"session/cancel": on_session_cancel, "$/cancel_request": on_cancel_request}


def handle(frame):
    method, params = frame.get("method"), frame.get("params") or {}
    if not isinstance(method, str):
        if "id" in frame:
            fail(frame["id"], -32600, "invalid request: method must be a string")
        return
    if "id" not in frame:  # a notification: no answer, whatever happens
        if method in NOTIFICATIONS and isinstance(params, dict):
            NOTIFICATIONS[method](params)
        return
    request_id = frame["id"]
    if method not in REQUESTS:
        return fail(request_id, METHOD_NOT_FOUND, "method not found")
    if not isinstance(params, dict):
        return fail(request_id, INVALID_PARAMS, "invalid params")
    try:
        REQUESTS[method](request_id, params)
    except RpcError as e:
        fail(request_id, e.code, e.message, e.data)


def read_frame(line):
    try:
        frame = json.loads(line)
    except ValueError:
        return fail(None, -32700, "parse error")
    if not isinstance(frame, dict):  # this template takes no JSON-RPC batches
        return fail(None, -32600, "invalid request: expected a JSON-RPC object")
    if "method" in frame:
        handle(frame)
    elif "id" in frame and "result" not in frame and "error" not in frame:
        fail(frame["id"], -32600, "invalid request")
    # else: a response to a request this Agent never sends; nothing to do


def main():
    stdin, pending = sys.stdin.fileno(), b""
    while True:
        # Sleep until input arrives or the next chunk of a running turn is due.
        due = [s.turn["next_at"] for s in sessions.values() if s.turn]
        timeout = max(0.0, min(due) - time.monotonic()) if due else None
        readable, _, _ = select.select([stdin], [], [], timeout)
        if readable:
            data = os.read(stdin, 65536)
            if not data:
                return  # the Client closed stdin: the connection is over
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.strip():
                    read_frame(line)
        step_turns()


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass  # the Client went away: nothing left to answer
