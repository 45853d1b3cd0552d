"""Shared by the kit's tests: the kit from this checkout (unless it is installed), a toy client, a conversation
driver, a local HTTP server, and the rule for optional HTTP libraries."""

import asyncio
import faulthandler
import http.server
import importlib
import json
import os
import sys
import threading
import time
import unittest

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if os.environ.get("SESSION_CONFORMANCE_KIT_INSTALLED") != "1":
    sys.path.insert(0, SOURCE)

import session_conformance_kit as kit  # noqa: E402

faulthandler.dump_traceback_later(120, exit=True)  # a barrier that never settles fails the run instead of hanging it

SETTINGS = kit.Settings(implementation={"name": "toy", "version": "0.1"}, fork=False)
WELCOME = {"type": "welcome", "protocol": 1, "seed": "7", "clock": {"wall": 1767225600.0, "monotonic": 0.0}}


class Toy:
    """A client of a few commands, each exercising one effect."""

    def __init__(self, effects):
        self.effects = effects

    async def perform(self, command):
        name, effects = command["command"], self.effects
        if name == "get":
            return {"value": (await effects.storage("get", command["key"])).get("value")}
        if name == "fetch":
            outcome = await effects.http("GET", "/resources/" + command["resource"], {"accept": "application/json"},
                                         None, deadline=command.get("deadline"))
            return {"outcome": list(outcome)}
        if name == "spin":  # runnable work before its effect: the barrier must wait for all of it
            for _ in range(100):
                await asyncio.sleep(0)
            await effects.storage("get", "spun")
            return None
        if name == "think":  # a blocking call on a thread: the barrier waits for the thread
            return {"thought": await effects.blocking(lambda: (time.sleep(0.2), 42)[1])}
        if name == "fail":
            raise kit.CommandError("offline", "no network", definite=False)
        if name == "own":  # the client's own HTTP client, counted
            return {"body": await effects.blocking(OWN[command["library"]], effects)}
        raise ValueError(name)


def _own_urllib(effects):
    with effects.urllib_opener().open(effects.url("/own")) as response:
        return json.loads(response.read())


OWN = {
    "urllib": _own_urllib,
    "requests": lambda effects: effects.requests_session().get(effects.url("/own")).json(),
    "httpx": lambda effects: effects.httpx_client().get(effects.url("/own")).json(),
}


OPEN = []


class Case(unittest.TestCase):
    """Closes the hosts a test opened."""

    def tearDown(self):
        while OPEN:
            host = OPEN.pop()
            if not host.loop.is_closed():
                host.close()


class Conversation:
    """A host driven message by message; `out()` is what it wrote since the last call, parsed."""

    def __init__(self, settings=SETTINGS, client=Toy, forked=False):
        self.written = []
        self.host = kit.Host(client, settings, forked=forked, write=self.written.append)
        OPEN.append(self.host)

    def send(self, *messages):
        for message in messages:
            self.host.handle(message)
        return self.out()

    def out(self):
        self.host.flush()
        lines = b"".join(self.written).decode().splitlines()
        self.written.clear()
        return [json.loads(line) for line in lines]


def command(identifier, name, **fields):
    return {"type": "command", "id": identifier, "command": name, **fields}


def reply(identifier, **fields):
    return {"type": "reply", "id": identifier, **fields}


def barrier(identifier, **fields):
    return {"type": "barrier", "id": identifier, **fields}


def require(test, module):
    """Imports an optional library; skips the test without it, unless SESSION_CONFORMANCE_REQUIRE_TOOLS=1."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("SESSION_CONFORMANCE_REQUIRE_TOOLS") == "1":
            test.fail(f"{module} is not installed, and SESSION_CONFORMANCE_REQUIRE_TOOLS=1 (pip install {module})")
        raise unittest.SkipTest(f"{module} is not installed (pip install {module})")


class Server:
    """A local HTTP server answering JSON, recording each request's path and headers; `hold()` keeps responses back
    until `release()`; a request to a path in `dropped` is never answered (its connection is shut)."""

    def __init__(self):
        self.requests = []
        self.dropped = set()  # paths whose held requests are never answered
        self.gate = threading.Event()
        self.gate.set()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # noqa: N802
                server.requests.append((self.path, {name.lower(): value for name, value in self.headers.items()}))
                server.gate.wait(30)
                if self.path in server.dropped:  # never answered: the connection just ends, as at a case's end
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                body = json.dumps({"path": self.path, "items": [1]}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def wait_for(self, count):
        """Waits until the server has read `count` requests, as the runner does for `httpStarted`."""
        deadline = time.monotonic() + 10
        while len(self.requests) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.requests

    def hold(self):
        self.gate.clear()

    def release(self):
        self.gate.set()

    def close(self):
        self.release()
        self.httpd.shutdown()
        self.httpd.server_close()
