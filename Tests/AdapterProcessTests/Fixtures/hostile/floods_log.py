"""Sends valid 60 KB log lines without end once asked for a barrier: more than a case may hold."""
from protocol import hello, messages, send

hello()
text = "x" * 60_000
for message in messages():
    if message["type"] == "barrier":
        while True:
            send({"type": "log", "level": "info", "message": text})
