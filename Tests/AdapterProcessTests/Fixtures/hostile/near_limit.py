"""Sends just under what one case may hold, then behaves: at its first barrier, 31.5 MiB of valid 60 KB `log` lines
(`--messages N [--text BYTES]`: N `log` lines of BYTES characters, 1 by default, instead), then it answers every
barrier and nothing else. Each case stays within the per-case limits; a run of many cases must still stay within
bounded memory and time."""
import sys
from protocol import hello, messages, send


def option(name, default):
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


# 550 lines of 60,043 bytes: 31.5 MiB, under the 32 MiB a case may hold.
count, text = (option("--messages", 0), "x" * option("--text", 1)) if "--messages" in sys.argv else (550, "x" * 60_000)
hello()
flooded = False
for message in messages():
    if message["type"] != "barrier":
        continue
    if not flooded:
        flooded = True
        for _ in range(count):
            send({"type": "log", "level": "info", "message": text})
    send({"type": "barrier", "id": message["id"]})
