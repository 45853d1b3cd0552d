# Writes 5000 bytes without a line end, then stays alive: the limit must be noticed without waiting.
import sys
import time

sys.stdout.buffer.write(b"x" * 5000)
sys.stdout.buffer.flush()
time.sleep(300)
