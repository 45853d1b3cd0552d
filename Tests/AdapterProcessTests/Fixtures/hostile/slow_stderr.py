"""Writes 200 MB to stderr before it says hello: the runner must drain it fast enough not to call it hung."""
import sys
from protocol import hello, messages, send

chunk = b"e" * (1 << 20)
for _ in range(200):
    sys.stderr.buffer.write(chunk)
sys.stderr.flush()
hello()
for message in messages():
    if message["type"] == "barrier":
        send({"type": "barrier", "id": message["id"]})
