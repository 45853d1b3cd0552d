"""The least a fake adapter needs: read runner messages, write adapter messages, say hello."""
import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def hello():
    send({"type": "hello", "protocol": 1, "capabilities": [],
          "implementation": {"name": "hostile", "version": "0", "language": "python", "platform": "test"}})


def messages():
    for line in sys.stdin:
        yield json.loads(line)
