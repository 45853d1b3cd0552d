# Writes three lines in pieces that cut them (and a multi-byte character) across writes, then exits 0.
import sys
import time

pieces = [b'{"part":', b'1}\n{"name":"Zo', "\u00eb".encode()[:1], "\u00eb".encode()[1:], b'"}\r', b'\n{"c"', b":3}\n"]
for piece in pieces:
    sys.stdout.buffer.write(piece)
    sys.stdout.buffer.flush()
    time.sleep(0.02)
