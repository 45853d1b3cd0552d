# Writes 20 MiB of 1 KiB lines to stdout, more than the runner queues, then exits 0.
import sys

line = b'{"pad":"' + b"p" * 1013 + b'"}\n'
assert len(line) == 1024
sys.stdout.buffer.write(line * (20 * 1024))
sys.stdout.buffer.flush()
