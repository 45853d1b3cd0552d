# Echoes every line of stdin back on stdout, then exits 0 at end of input.
import sys

for line in sys.stdin.buffer:
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
