"""Signs in when asked, then refreshes its session over and over, each refresh with the token the last one returned:
every round of the step gets the world to issue two more tokens, until the step runs out of rounds."""
from protocol import hello, messages, send

hello()
counter = 0


def refresh(token):
    global counter
    counter += 1
    send({"type": "http", "id": f"e{counter}", "request": {"method": "POST", "path": "/auth/refresh", "headers": {},
          "body": {"refresh_token": token}}})


for message in messages():
    kind = message["type"]
    if kind == "barrier":
        send({"type": "barrier", "id": message["id"]})
    elif kind == "command" and message["command"] == "launch":
        send({"type": "transition", "transition": None, "from": None, "to": "signedOut", "account": None, "generation": 1})
        send({"type": "result", "id": message["id"], "outcome": "ok"})
    elif kind == "command" and message["command"] == "signIn":
        counter += 1
        send({"type": "http", "id": f"e{counter}", "cause": message["id"], "request": {
            "method": "POST", "path": "/auth/login", "headers": {},
            "body": {"email": message["email"], "password": message["password"]}}})
    elif kind == "reply" and "response" in message:
        body = message["response"].get("body") or {}
        if isinstance(body, dict) and "refresh_token" in body:
            refresh(body["refresh_token"])
