# Writes a good line, then bytes that are not UTF-8, then stays alive.
import sys
import time

sys.stdout.buffer.write(b'{"type":"hello"}\n')
sys.stdout.buffer.write(b'\xff\xfe\x00binary\xc3\x28\n')
sys.stdout.buffer.write(b'{"type":"never seen"}\n')
sys.stdout.buffer.flush()
time.sleep(300)
