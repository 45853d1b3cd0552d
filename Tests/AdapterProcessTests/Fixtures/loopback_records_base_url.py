"""A minimal loopback-mode adapter: asks for loopback HTTP, appends each welcome's base URL to the file named
by its first argument, and restores to signedOut on every launch, once secure storage answered its read (it holds
nothing). Each process asks the server once for /me, so a base URL that no longer serves after a restart makes the
case hang instead of passing."""
import json
import sys
import threading
import urllib.error
import urllib.request

record = sys.argv[1]
lock = threading.Lock()
answered = threading.Condition()
base_url = None
started = 0
finished = 0


def send(message):
    with lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def probe(command_id):
    """GET /me without a token (a 401); once its answer has been read, the restore ends signed out."""
    global finished
    request = urllib.request.Request(base_url + "/me", headers={"Connection": "close"})
    try:
        urllib.request.urlopen(request, timeout=10).read()
    except urllib.error.HTTPError as refused:
        refused.read()
    except OSError:
        pass
    send({"type": "transition", "transition": "restore-failed", "from": "restoring", "to": "signedOut",
          "account": None, "generation": 2, "reason": "noStoredSession"})
    send({"type": "ui", "event": "signInPrompt"})
    send({"type": "result", "id": command_id, "outcome": "ok", "content": {"state": "signedOut"}})
    with answered:
        finished += 1
        answered.notify_all()


send({"type": "hello", "protocol": 1, "capabilities": [], "http": "loopback",
      "implementation": {"name": "loopback-base-url", "version": "0", "language": "python", "platform": "test"}})
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "welcome":
        base_url = message["http"]["baseURL"]
        with open(record, "a", encoding="utf-8") as file:
            file.write(base_url + "\n")
    elif kind == "command":
        if message["command"] == "launch":
            send({"type": "transition", "transition": None, "from": None, "to": "restoring", "account": None,
                  "generation": 1, "reason": "launch"})
            # The restore checks the stored session first; the runner answers after the step's barrier.
            send({"type": "storage", "id": "read-" + message["id"], "op": "get", "key": "session"})
        else:
            send({"type": "result", "id": message["id"], "outcome": "ok"})
    elif kind == "reply" and message["id"].startswith("read-"):
        started += 1  # counted before the request can reach the server
        threading.Thread(target=probe, args=(message["id"][len("read-"):],)).start()
    elif kind == "barrier":
        with answered:
            answered.wait_for(lambda: finished >= message.get("httpAnswered", 0))
        send({"type": "barrier", "id": message["id"], "httpStarted": started})
