"""Says hello, then, at the first barrier, closes its stdout and keeps running without a word."""
import os
import time
from protocol import hello, messages

hello()
for message in messages():
    if message["type"] == "barrier":
        os.close(1)
        time.sleep(300)
