#!/usr/bin/env python3
"""template-client-adapter.py: a Client adapter to copy as the start of your own.

Python 3.8+, standard library only. It is a small, correct, keyed ACP v2
Client, wrapped in the adapter contract of `acpsim check-client`
(docs/client-adapter.md): the user's submissions arrive on stdin, one JSON
object a line; the outcomes go to stdout, one JSON object a line; logs go to
stderr. Check it (CI runs this on it) with
    acpsim check-client --seeds 10 -- python3 interop/template-client-adapter.py

To judge your own Client, keep the adapter's shell (main(), tell(), the state
file) and replace the parts marked "YOUR CLIENT" with calls into your Client
library: Connection (spawn the Agent, send a request, wait for its answer),
connect() (initialize, then session/resume or session/new) and the prompt in
settle(). What the RFD on prompt idempotency asks of the Client, and what
acpsim checks from the frames, is:
  - make the idempotencyKey when the user submits, and store it with the
    pending input (and the session id) BEFORE the first send;
  - send that same key on every attempt: after a lost connection, a dead
    Agent process, or a restart of this process;
  - on a new connection, initialize and session/resume the session before
    sending the prompt again;
  - tell the user `failed` only for an error answer (the message surely was
    not inserted), `unknown` when giving up, `inserted` with the messageId;
  - when the user cancels, send $/cancel_request for the pending prompt and
    tell what the Agent answers: -32800 (withdrawn: failed) or the messageId
    (the cancel came after the insertion: inserted).
"""

import json
import os
import select
import subprocess
import sys
import time
import uuid

PROTOCOL_VERSION = 2  # ACP v2; acpsim judges nothing of a Client that asks for v1
CWD = os.environ.get("ACPSIM_CWD") or os.getcwd()
STATE_DIR = os.environ.get("ACPSIM_STATE_DIR")  # survives restarts of this process
STATE_FILE = os.path.join(STATE_DIR, "client.json") if STATE_DIR else None
ATTEMPT_TIMEOUT = 5.0  # seconds an answer may take before the connection counts as lost
ATTEMPTS = 8  # sends of one prompt before the user is told "unknown"

# JSON-RPC / ACP error codes the Client reads or writes.
METHOD_NOT_FOUND, SESSION_NOT_FOUND = -32601, -32002


def log(*parts):
    print("template-client-adapter:", *parts, file=sys.stderr, flush=True)


def tell(outcome):
    """Tell the user an outcome: the only thing this adapter prints on stdout."""
    sys.stdout.write(json.dumps(outcome) + "\n")  # ASCII only: \u escapes whatever the locale
    sys.stdout.flush()


# ---- the user's input --------------------------------------------------------


class UserInput:
    """The adapter's stdin, read in lines without blocking a pending request: a
    {"cancel":ID} line may come while a prompt waits for its answer. Other lines
    queue up for main(); cancels are kept by submission id."""

    def __init__(self):
        self.fd = sys.stdin.fileno()
        self.buf = b""
        self.open = True
        self.queue = []
        self.cancelled = set()

    def fill(self):
        """Read what stdin has (call when select says it is readable)."""
        data = os.read(self.fd, 65536)
        if not data:
            self.open = False
        self.buf += data
        while b"\n" in self.buf:
            line, self.buf = self.buf.split(b"\n", 1)
            if not line.strip():
                continue
            try:
                msg = json.loads(line)  # bytes: JSON is UTF-8 whatever the locale says
            except ValueError:
                log("not JSON on stdin, skipped:", line.strip()[:200])
                continue
            if "cancel" in msg:
                self.cancelled.add(msg["cancel"])
            else:
                self.queue.append(msg)

    def next(self):
        """The next line for main(), None at the end of input."""
        while not self.queue and self.open:
            select.select([self.fd], [], [])
            self.fill()
        return self.queue.pop(0) if self.queue else None


USER = UserInput()


# ---- what the Client persists ----------------------------------------------
# One session, and at most one pending submission: {"id", "text", "key"} and,
# once decided, its "outcome". A real Client keeps this in its own store; what
# matters is that the key is written with the input before the first send.


def load_state():
    if STATE_FILE and os.path.exists(STATE_FILE):
        with open(STATE_FILE, encoding="utf-8") as f:
            return json.load(f)
    return {"sessionId": None, "pending": None}


def save_state(state):
    if not STATE_FILE:
        return
    # Write a new file, then rename it over the old one: a kill at any point
    # leaves the old state or the new one whole, never half of each.
    tmp = STATE_FILE + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, STATE_FILE)


# ---- the connection to the Agent (YOUR CLIENT: your library's transport) ---


class RpcError(Exception):
    """The Agent answered the request with a JSON-RPC error: it was refused."""

    def __init__(self, code, message):
        super().__init__("%s %s" % (code, message))
        self.code = code


class ConnectionLost(Exception):
    """No answer: the Agent process died, the pipe broke or the answer took too long.
    The request may or may not have been carried out."""


class Connection:
    """One Agent process spoken to over stdio: ndjson on its stdin and stdout.
    Each process is one connection; after it is lost, a new one is spawned."""

    def __init__(self):
        # $ACPSIM_AGENT is shell words (docs/client-adapter.md). The Agent stays in
        # our process group, so acpsim's kill of this adapter takes it down too.
        self.proc = subprocess.Popen(["sh", "-c", "exec " + os.environ["ACPSIM_AGENT"]],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buf = b""
        self.next_id = 0
        self.lost = False

    def alive(self):
        return not self.lost and self.proc.poll() is None

    def write(self, frame):
        try:
            self.proc.stdin.write((json.dumps(frame, ensure_ascii=False) + "\n").encode())
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as err:
            self.lost = True
            raise ConnectionLost("cannot write to the Agent: %s" % err)

    def read_frame(self, deadline, on_user=None):
        """The next JSON object from the Agent, waiting until deadline at most;
        on_user() is called when the user's input had something to read."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            watch = [fd, USER.fd] if USER.open else [fd]
            ready = select.select(watch, [], [], left)[0] if left > 0 else []
            if USER.fd in ready:
                USER.fill()
                if on_user:
                    on_user()
                continue
            if not ready:
                self.lost = True
                raise ConnectionLost("no answer within %g s" % ATTEMPT_TIMEOUT)
            data = os.read(fd, 65536)
            if not data:
                self.lost = True
                raise ConnectionLost("the Agent process is gone (end of its output)")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            frame = json.loads(line)
        except ValueError:
            log("not JSON from the Agent, skipped:", line[:200])
            return None
        return frame if isinstance(frame, dict) else None

    def request(self, method, params, cancel_for=None):
        """Send a request and wait for its answer: the result, RpcError or ConnectionLost.
        Once the user cancels the submission cancel_for, $/cancel_request is sent
        for the request, and its answer still awaited."""
        if not self.alive():
            raise ConnectionLost("the Agent process is gone")
        self.next_id += 1
        rid = self.next_id
        self.write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        cancelling = []

        def on_user():
            if cancel_for in USER.cancelled and not cancelling:
                cancelling.append(rid)
                self.write({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": rid}})

        on_user()  # cancelled before it was sent: withdrawn at once
        deadline = time.monotonic() + ATTEMPT_TIMEOUT
        while True:
            frame = self.read_frame(deadline, on_user)
            if frame is None:
                continue
            if "method" in frame:
                self.on_agent_message(frame)
                continue
            if frame.get("id") != rid:
                continue  # the late answer to a request given up on
            if "error" in frame:
                error = frame["error"] if isinstance(frame["error"], dict) else {}
                raise RpcError(error.get("code"), error.get("message", ""))
            return frame.get("result")

    def on_agent_message(self, frame):
        """What the Agent sends unasked. YOUR CLIENT: session/update notifications
        (user_message, agent_message_chunk, state_update, ...) are what you show
        the user; requests (permissions, files, terminals) are yours to answer."""
        if "id" in frame:
            self.write({"jsonrpc": "2.0", "id": frame["id"],
                        "error": {"code": METHOD_NOT_FOUND, "message": "method not found: %s" % frame["method"]}})

    def close(self):
        """End the connection: close the Agent's stdin, so it exits; kill it if it lingers."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()


# ---- the session (YOUR CLIENT: your library's initialize and session calls) ---


def connect(state):
    """A new connection with the session set up on it. The RFD: on a new
    connection the Client sends initialize and session/resume, then the prompt
    again; a prompt before the resume is `resend-before-resume`."""
    conn = Connection()
    try:
        conn.request("initialize", {"protocolVersion": PROTOCOL_VERSION,
                                    "info": {"name": "template-client-adapter", "version": "0"},
                                    "capabilities": {}})
        if state["sessionId"]:
            try:
                conn.request("session/resume", {"sessionId": state["sessionId"], "cwd": CWD})
                return conn
            except RpcError as err:
                if err.code != SESSION_NOT_FOUND:
                    raise
                log("session %s is gone (%s): a new one" % (state["sessionId"], err))
        result = conn.request("session/new", {"cwd": CWD, "mcpServers": []})
        state["sessionId"] = result["sessionId"]
        save_state(state)
        return conn
    except BaseException:
        conn.close()
        raise


class Client:
    def __init__(self):
        self.state = load_state()
        self.conn = None

    def drop_connection(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def settle(self, pending):
        """Send the pending prompt, with its key, until it is answered or the
        attempts run out. The outcome for the user, as the contract spells it."""
        sent = False
        for attempt in range(1, ATTEMPTS + 1):
            if pending["id"] in USER.cancelled:
                # The user cancelled while no attempt was pending: a new one could
                # be inserted, and an earlier one may have been.
                if sent:
                    return {"id": pending["id"], "outcome": "unknown", "error": "cancelled; an earlier attempt may have been inserted"}
                return {"id": pending["id"], "outcome": "failed", "error": "cancelled before it was sent"}
            prompted = False
            try:
                if self.conn is None or not self.conn.alive():
                    self.drop_connection()
                    self.conn = connect(self.state)
                prompted = sent = True
                # YOUR CLIENT: your library's prompt call, given the stored key.
                result = self.conn.request("session/prompt", {
                    "sessionId": self.state["sessionId"],
                    "prompt": [{"type": "text", "text": pending["text"]}],
                    "idempotencyKey": pending["key"],  # the same key on every attempt
                }, cancel_for=pending["id"])
                return {"id": pending["id"], "outcome": "inserted", "messageId": result["messageId"]}
            except RpcError as err:
                # An error answer to a keyed prompt: nothing was inserted (a key the
                # Agent had bound would have been answered with its messageId). An
                # error in the set-up (initialize, session/new) is not the prompt's:
                # it may have been inserted by an earlier attempt, so retry.
                if prompted:
                    return {"id": pending["id"], "outcome": "failed", "error": str(err)}
                log("attempt %d: set-up refused: %s" % (attempt, err))
            except ConnectionLost as err:
                log("attempt %d: %s" % (attempt, err))
            self.drop_connection()
            time.sleep(0.02 * attempt)  # a short back-off before a new Agent process
        return {"id": pending["id"], "outcome": "unknown", "error": "no answer after %d attempts" % ATTEMPTS}

    def finish(self):
        """Settle the pending submission and tell its outcome. The outcome is
        stored before it is told and the input forgotten after: a kill in between
        tells the same outcome again after the restart (legal), never a new one."""
        pending = self.state["pending"]
        if "outcome" not in pending:
            pending["outcome"] = self.settle(pending)
            save_state(self.state)
        tell(pending["outcome"])
        self.state["pending"] = None
        save_state(self.state)

    def submit(self, submission_id, text):
        # The key is made when the user submits and stored with the input before
        # the first send. A repeated text is a new submission, with a new key.
        self.state["pending"] = {"id": submission_id, "text": text, "key": str(uuid.uuid4())}
        save_state(self.state)
        self.finish()


# ---- the adapter's shell: acpsim plays the user on stdin ------------------


def main():
    if not os.environ.get("ACPSIM_AGENT"):
        log("$ACPSIM_AGENT is not set: run me under acpsim check-client")
        return 2
    tell({"capabilities": {"cancel": True}})  # it takes {"cancel":ID} lines
    client = Client()
    # A Client settles the input it recovered before it takes new input. acpsim
    # restarts this process after a kill with ACPSIM_RESTARTED=1 and sends
    # {"restart":true} first; the state file alone says what is pending.
    if client.state["pending"]:
        log("recovering %s (ACPSIM_RESTARTED=%s)" % (client.state["pending"]["id"], os.environ.get("ACPSIM_RESTARTED", "")))
        client.finish()
    while True:
        msg = USER.next()
        if msg is None:
            break
        if msg.get("restart"):
            continue  # recovered above
        if "submit" in msg:
            client.submit(msg["id"], msg["submit"])
    # End of input: nothing pending (each submission was settled as it came).
    client.drop_connection()
    return 0


if __name__ == "__main__":
    sys.exit(main())
