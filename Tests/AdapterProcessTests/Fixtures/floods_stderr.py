# Writes 200 KiB of numbered lines to stderr, then exits 0.
import sys

for number in range(1, 20001):
    sys.stderr.write(f"stderr line {number:05}\n")
sys.stderr.flush()
