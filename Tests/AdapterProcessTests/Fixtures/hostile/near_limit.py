"""Sends just under what one case may hold, then behaves: at its first barrier, 31.5 MiB of valid 60 KB `log`
lines (`--messages`: 199,000 small ones instead), then it answers every barrier and nothing else. Each case stays
within the per-case limits; a run of many cases must still stay within bounded memory and time."""
import sys
from protocol import hello, messages, send

hello()
flooded = False
for message in messages():
    if message["type"] != "barrier":
        continue
    if not flooded:
        flooded = True
        if "--messages" in sys.argv:
            for _ in range(199_000):
                send({"type": "log", "level": "info", "message": "x"})
        else:
            text = "x" * 60_000
            for _ in range(550):  # 550 lines of 60,043 bytes: 31.5 MiB, under the 32 MiB a case may hold
                send({"type": "log", "level": "info", "message": text})
    send({"type": "barrier", "id": message["id"]})
