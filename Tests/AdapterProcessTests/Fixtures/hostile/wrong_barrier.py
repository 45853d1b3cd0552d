"""Answers every barrier, but with an id of its own."""
from protocol import hello, messages, send

hello()
for message in messages():
    if message["type"] == "barrier":
        send({"type": "barrier", "id": "not-" + message["id"]})
