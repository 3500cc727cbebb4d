#!/usr/bin/env python3
"""The template Agent (template-agent.py) with one planted bug, for acpsim's
own tests of reproducing a real-mode failure: it records idempotency keys per
process instead of per session. The RFD scopes a key to its session ("the
same key string in another session, including a fork of this one, names an
unrelated submission"), so a prompt to a fork that carries a key its parent
had bound is answered with the parent's messageId and never inserted: lost.

Its outputs depend only on the order of its inputs (and on the template's
chunk timer, which the virtual clock waits for), so a failing seed of
`acpsim check` fails again when rerun.
"""
import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "template_agent", os.path.join(os.path.dirname(os.path.abspath(__file__)), "template-agent.py"))
agent = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agent)

_process_keys = {}  # THE BUG: one table of keys for every session of the process
_session_init = agent.Session.__init__


def _init(self, cwd):
    _session_init(self, cwd)
    self.keys = _process_keys


agent.Session.__init__ = _init

if __name__ == "__main__":
    try:
        agent.main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
