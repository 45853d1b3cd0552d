"""Never settles: after the first barrier it sends a valid log line every few milliseconds, forever."""
import time
from protocol import hello, messages, send

hello()
for message in messages():
    if message["type"] == "barrier":
        while True:
            send({"type": "log", "level": "info", "message": "still working"})
            time.sleep(0.005)
