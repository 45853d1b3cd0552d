"""A client that backs off before its refresh with a real time.sleep instead of a `sleep` effect: the world's
clock stands still while 1.5 s of real time pass. `--no-sleep` is the same client without the wait."""
import sys
import time
from protocol import hello, messages, send

WAIT = 0 if "--no-sleep" in sys.argv else 1.5
hello()
pending = {}  # effect id -> what its reply continues
tokens = {}
counter = 0


def effect(message, then):
    global counter
    counter += 1
    message["id"] = f"e{counter}"
    pending[message["id"]] = then
    send(message)


def transition(name, source, target, generation, account=None):
    send({"type": "transition", "transition": name, "from": source, "to": target, "account": account,
          "generation": generation, "reason": "test"})


def fetch(command, resource, retried):
    def got(reply):
        status = reply["response"]["status"]
        if status == 401 and not retried:
            refresh(command, resource)
        else:
            send({"type": "result", "id": command, "outcome": "ok" if status == 200 else "error",
                  **({} if status == 200 else {"error": {"code": "failed", "definite": True}})})
    effect({"type": "http", "cause": command, "request": {"method": "GET", "path": f"/resources/{resource}",
            "headers": {"authorization": "Bearer " + tokens["access"]}, "body": None}}, got)


def refresh(command, resource):
    transition("refresh-started", "authenticated", "refreshing", 2, "acct-alice")
    time.sleep(WAIT)  # the backoff the world cannot see

    def got(reply):
        body = reply["response"]["body"]
        tokens.update(access=body["access_token"], refresh=body["refresh_token"])
        transition("refresh-succeeded", "refreshing", "authenticated", 2, "acct-alice")
        fetch(command, resource, True)
    effect({"type": "http", "request": {"method": "POST", "path": "/auth/refresh", "headers": {},
            "body": {"refresh_token": tokens["refresh"]}}}, got)


for message in messages():
    kind = message["type"]
    if kind == "barrier":
        send({"type": "barrier", "id": message["id"]})
    elif kind == "reply" and message["id"] in pending:
        pending.pop(message["id"])(message)
    elif kind == "command" and message["command"] == "launch":
        transition(None, None, "signedOut", 1)
        send({"type": "result", "id": message["id"], "outcome": "ok"})
    elif kind == "command" and message["command"] == "signIn":
        command = message["id"]

        def signed_in(reply, command=command):
            body = reply["response"]["body"]
            tokens.update(access=body["access_token"], refresh=body["refresh_token"])
            transition("sign-in-succeeded", "signedOut", "authenticated", 2, "acct-alice")
            send({"type": "result", "id": command, "outcome": "ok"})
        effect({"type": "http", "cause": command, "request": {"method": "POST", "path": "/auth/login", "headers": {},
                "body": {"email": message["email"], "password": message["password"]}}}, signed_in)
    elif kind == "command" and message["command"] == "request":
        fetch(message["id"], message["resource"], False)
