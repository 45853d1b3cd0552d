# For every line of stdin: writes a log line of the size the line names to stderr, then echoes the line on stdout.
# The log is written, whole, before the answer: a runner that reads the log after the answer must find it there.
import sys

for line in sys.stdin.buffer:
    size = int(line)
    sys.stderr.buffer.write(b"x" * (size - 1) + b"\n")
    sys.stderr.buffer.flush()
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
