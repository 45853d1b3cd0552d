"""Answers the first barrier, then goes silent: from the second barrier on it sends nothing (`--after-log`: one `log`
line first) and never exits."""
import sys
import time
from protocol import hello, messages, send

hello()
for message in messages():
    if message["type"] != "barrier":
        continue
    if message["id"] == "b1":
        send({"type": "barrier", "id": "b1"})
        continue
    if "--after-log" in sys.argv:
        send({"type": "log", "level": "info", "message": "thinking"})
    time.sleep(300)
