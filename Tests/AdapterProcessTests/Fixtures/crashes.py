# Writes a line, logs to stderr, then exits with status 3.
import sys

sys.stdout.write('{"type":"hello"}\n')
sys.stdout.flush()
for number in range(1, 6):
    sys.stderr.write(f"log line {number}\n")
sys.stderr.write("fatal: the token store is corrupted\n")
sys.stderr.flush()
sys.exit(3)
