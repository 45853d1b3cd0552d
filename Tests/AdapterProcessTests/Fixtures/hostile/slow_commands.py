"""Takes real time over each `request` command (`--per-command SECONDS`, default 0.005) and answers it with an error:
a step of many commands takes long in wall time without the adapter hanging. `--hang` never answers a request."""
import sys
import time
from protocol import hello, messages, send

PER_COMMAND = float(sys.argv[sys.argv.index("--per-command") + 1]) if "--per-command" in sys.argv else 0.005
hello()
for message in messages():
    kind = message["type"]
    if kind == "barrier":
        send({"type": "barrier", "id": message["id"]})
    elif kind == "command" and message["command"] == "launch":
        send({"type": "transition", "transition": None, "from": None, "to": "signedOut", "account": None,
              "generation": 1, "reason": "test"})
        send({"type": "result", "id": message["id"], "outcome": "ok"})
    elif kind == "command":
        if "--hang" in sys.argv:
            time.sleep(300)
        time.sleep(PER_COMMAND)
        send({"type": "result", "id": message["id"], "outcome": "error", "error": {"code": "notSignedIn", "definite": True}})
