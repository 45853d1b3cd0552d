"""Declares `reset` but keeps its signed-in account across it: after a reset, a launch with nothing stored reports
`authenticated`. Sign-in sends nothing to the world (no HTTP, no storage): only the reset is under test."""
import json
import sys

signed_in = None  # the bug: process state a reset should drop


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def hello():
    send({"type": "hello", "protocol": 1, "capabilities": ["reset"],
          "implementation": {"name": "reset-keeps-session", "version": "0", "language": "python", "platform": "test"}})


def transition(before, after, generation, reason):
    send({"type": "transition", "from": before, "to": after, "account": signed_in, "generation": generation, "reason": reason})


hello()
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "reset":
        hello()
    elif kind == "barrier":
        send({"type": "barrier", "id": message["id"]})
    elif kind == "command":
        command = message["command"]
        if command == "launch":
            transition(None, "restoring", 0, "launch")
            transition("restoring", "authenticated" if signed_in else "signedOut", 1 if signed_in else 0, "restore")
        elif command == "signIn":
            transition("signedOut", "signingIn", 0, "signIn")
            signed_in = "acct-alice"
            transition("signingIn", "authenticated", 1, "signIn")
        send({"type": "result", "id": message["id"], "outcome": "ok"})
