#!/usr/bin/env python3
"""Protocol v1 host for the example Python session client (docs/adapter-protocol.md).

This file is the *adapter*: it speaks JSON Lines with the runner on stdin/stdout and turns each runner
message into a call on the client (session_client.py), and each effect of the client (HTTP, secure storage,
preferences, sleep) into a message the runner answers. The client itself knows nothing about the protocol:
it is written against the small `Effects` interface below, the way an app's session layer is written against
its HTTP stack, its keychain and its clock. Porting teams copy both files and replace session_client.py with
their own client, keeping the host.

Determinism: the runner sends a `barrier` after everything it delivers and decides nothing until the adapter
answers it. This host runs the asyncio loop until no callback is ready any more (every task waits for a reply
from the runner, a sleep, or nothing) before it answers. HTTP goes through the protocol as `http` effects
(message mode), so the client never does real I/O and the same messages in always give the same messages out.

Standard library only. Run it against the suite from the repository root:

    swift run session-conformance run --adapter "python3 Examples/adapters/python/adapter.py"

With `--http loopback` the same client sends real HTTP (urllib, one thread per request) to the runner's
loopback server instead; Examples/adapters/check.sh runs both modes and expects the same verdicts.

`--refresh MODE` chooses what starts the client's refreshes (session_client.py, `REFRESH_MODES`): `before-use`
(the default), `proactive` (also a timer of its own ahead of expiry; hello declares its `refreshTriggers`) or
`expiry-only` (never on a 401: a measuring stick, not a certified client). `--declare-triggers` makes the
`before-use` and `expiry-only` modes declare theirs too; without it they leave the runner to find out.

`--request-timeout SECONDS` gives every HTTP request a deadline on the runner's virtual clock, as a real stack's
timeout would (httpx's 5 s, OkHttp's 10 s, URLSession's 60 s): a `sleep` raced against the request, the loser
abandoned (`Effects.http`); a request that loses fails as a timeout. Without it only the refresh has one.

Processes: the host declares `reset` (a new host object between cases) and `fork` (see `zygote`): each client
instance runs in a process forked from this one, and the runner's kill ends it alone. `--no-fork` turns it off.
"""

import argparse
import asyncio
import contextvars
import gc
import json
import os
import signal
import sys
import threading
import traceback

from session_client import CAPABILITIES, IMPLEMENTATION, JSON_V1, OFFLINE_RESOURCES, REFRESH_MODES, SessionClient

PROTOCOL_VERSION = 1

# The command a piece of work serves; HTTP effects name it as their `cause`. Tasks copy it when created, so
# everything a command starts (a refresh it triggers, say) is attributed to it.
CAUSE: contextvars.ContextVar = contextvars.ContextVar("cause", default=None)


class Effects:
    """Everything the client can do to the world. Each call is one protocol message."""

    def __init__(self, host: "Host", seed: int, world=None):
        self._host = host
        self.seed = seed
        # The world profile the runner's `welcome` names (its endpoints and field names), or None.
        self.world = world
        # The HTTP stack's own timeout (`--request-timeout`), in seconds of the runner's virtual clock, or None.
        self.request_timeout = host.request_timeout

    # -- Effects: answered by the runner with a `reply`.

    async def http(self, method, path, headers, body, deadline=None):
        """Returns ("response", status, headers, body) or ("failure", code, definite), or None if cancelled.

        With `deadline` (seconds of the runner's virtual clock) the request is raced against a `sleep`: when the
        sleep ends first the client gives up on the request, tells the runner (`abandon`) and gets a timeout
        (indefinite: the server may have processed it); when the request is answered first the sleep is abandoned.
        The stack's timeout (`--request-timeout`) is such a deadline on every request: the shorter of the two wins,
        as a call's own deadline within a transport's timeout does."""
        if self.request_timeout is not None:
            deadline = self.request_timeout if deadline is None else min(deadline, self.request_timeout)
        if self._host.base_url is not None:
            request_id, future = self._host.start_loopback_http(method, path, headers, body)
        else:
            message = {"type": "http", "request": {"method": method, "path": path, "headers": headers, "body": body}}
            cause = CAUSE.get()
            if cause is not None:
                message["cause"] = cause
            request_id, future = self._host.start_effect(message)
        if deadline is not None:
            sleep_id, sleeper = self._host.start_effect({"type": "sleep", "seconds": deadline})
            await asyncio.wait({future, sleeper}, return_when=asyncio.FIRST_COMPLETED)
            if not future.done():
                self._host.abandon(request_id, "timeout")
                return ("failure", "timeout", False)
            self._host.abandon(sleep_id, "answered")
        reply = await future
        if self._host.base_url is not None:
            return reply
        if reply is None:
            return None
        if "response" in reply:
            response = reply["response"]
            return ("response", response["status"], response.get("headers") or {}, response.get("body"))
        failure = reply.get("failure") or {}
        return ("failure", failure.get("code", "connectionLost"), failure.get("definite", True))

    async def secure_get(self, key):
        """Returns ("value", text or None) or ("error", code)."""
        return self._storage_result(await self._host.effect({"type": "storage", "op": "get", "key": key}))

    async def secure_set(self, key, value, accessibility):
        return self._storage_result(await self._host.effect(
            {"type": "storage", "op": "set", "key": key, "value": value, "accessibility": accessibility}))

    async def secure_delete(self, key):
        return self._storage_result(await self._host.effect({"type": "storage", "op": "delete", "key": key}))

    async def preference_get(self, key):
        reply = await self._host.effect({"type": "preferences", "op": "get", "key": key})
        return reply.get("value") if reply else None

    async def preference_set(self, key, value):
        """Returns whether the write took (a failed write is a reply with an error)."""
        return self._storage_result(await self._host.effect(
            {"type": "preferences", "op": "set", "key": key, "value": value}))[0] == "value"

    async def preference_delete(self, key):
        """Returns whether the delete took."""
        return self._storage_result(await self._host.effect({"type": "preferences", "op": "delete", "key": key}))[0] == "value"

    def sleep(self, seconds):
        """Starts a sleep on the runner's virtual clock. Returns (awaitable, wake): awaiting it ends when the
        runner's monotonic clock reaches the deadline, or as soon as `wake()` is called."""
        effect_id, future = self._host.start_effect({"type": "sleep", "seconds": seconds})

        def wake():
            self._host.abandon(effect_id, "woken")
            if not future.done():
                future.set_result(None)

        return future, wake

    # -- Readings and events: no reply.

    @property
    def wall_clock(self):
        return self._host.clock["wall"]

    @property
    def monotonic(self):
        return self._host.clock["monotonic"]

    def log(self, level, message):
        self._host.send({"type": "log", "level": level, "message": message})

    def transition(self, transition, from_state, to_state, account, generation, reason):
        self._host.send({"type": "transition", "transition": transition, "from": from_state, "to": to_state,
                         "account": account, "generation": generation, "reason": reason})

    def show_content(self, resource, account, generation, content_id):
        self._host.send({"type": "ui", "event": "content", "resource": resource, "account": account,
                         "generation": generation, "contentId": content_id})

    def show_sign_in_prompt(self):
        self._host.send({"type": "ui", "event": "signInPrompt"})

    def future(self):
        """A future the client resolves itself (a waiter in a queue)."""
        return self._host.loop.create_future()

    def spawn(self, coroutine):
        """Starts background work of the client (it inherits the cause of the work that starts it)."""
        return self._host.loop.create_task(coroutine)

    def spawn_uncaused(self, coroutine):
        """Starts work of the client's own (a timer's): no command is its cause, nor of what it starts."""
        context = contextvars.copy_context()
        context.run(CAUSE.set, None)
        return self._host.loop.create_task(coroutine, context=context)

    @staticmethod
    def _storage_result(reply):
        if reply is None:
            return ("error", "cancelled")
        if "error" in reply:
            return ("error", (reply["error"] or {}).get("code", "unavailable"))
        return ("value", reply.get("value"))


class Host:
    """Reads runner messages, runs the client on an asyncio loop, writes adapter messages."""

    def __init__(self, loopback=False, refresh_mode="before-use", declare_triggers=False, request_timeout=None,
                 forked=False):
        self.loop = asyncio.new_event_loop()
        self.request_timeout = request_timeout
        self.forked = forked
        self._output = []  # lines not written yet: they go out together before the host waits for the runner
        self.refresh_mode = refresh_mode
        self.declare_triggers = declare_triggers or refresh_mode == "proactive"
        self.clock = {"wall": 0.0, "monotonic": 0.0}
        self.client = None
        self._waiting = {}
        self._next_effect = 0
        # Loopback mode: real HTTP to the runner's server, counted for the barrier.
        self.loopback = loopback
        self.base_url = None
        self.http_started = 0
        self.http_finished = 0
        self._finished = threading.Condition()
        self._completed = []  # (sequence, future, outcome) of requests finished since the last barrier
        self._abandoned = set()  # loopback requests given up on: the runner never answers them, so never counted
        self._opener = None  # built at the first loopback request: urllib is imported only in loopback mode

    # -- Wire.

    def send(self, message):
        self._output.append(json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n")

    def flush(self):
        """Writes what was sent since the last flush, in one write where the pipe allows. Called before the host
        reads again: the runner decides nothing before it has the barrier's answer, so waiting costs nothing."""
        if not self._output:
            return
        data = "".join(self._output).encode()
        self._output.clear()
        while data:
            data = data[os.write(1, data):]

    def start_effect(self, message):
        """Sends an effect; returns its id and the future its reply resolves."""
        self._next_effect += 1
        effect_id = f"e{self._next_effect}"
        message["id"] = effect_id
        future = self.loop.create_future()
        self._waiting[effect_id] = future
        self.send(message)
        return effect_id, future

    async def effect(self, message):
        _, future = self.start_effect(message)
        return await future

    def start_loopback_http(self, method, path, headers, body):
        """One real HTTP request, on a thread of its own (urllib blocks); returns its tag and the future of its
        outcome. Counted as started here, before the thread runs, and as finished when its outcome is in.
        Outcomes reach the client at the next barrier, in the order the requests started, so the threads' race
        does not show in the trace. The tag (`X-Conformance-Request`) is what an `abandon` of it names."""
        # Imported here, not at the top: an adapter process starts at every kill, and these imports are a
        # good part of Python's start when nothing needs them (the default, HTTP through the protocol).
        import http.client
        import urllib.error
        import urllib.request

        if self._opener is None:
            self._opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        future = self.loop.create_future()
        request_headers = dict(headers)
        cause = CAUSE.get()
        if cause is not None:
            request_headers["X-Conformance-Cause"] = cause
        tag = f"r{self.http_started + 1}"
        request_headers["X-Conformance-Request"] = tag
        data = None if body is None else body.encode() if isinstance(body, str) else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, headers=request_headers, method=method)
        self.http_started += 1
        sequence = self.http_started

        def decode(raw):
            if not raw:
                return None
            try:
                return json.loads(raw)
            except ValueError:
                return raw.decode("utf-8", "replace")

        def run():
            try:
                with self._opener.open(request) as response:
                    outcome = ("response", response.status, dict(response.headers), decode(response.read()))
            except urllib.error.HTTPError as error:
                outcome = ("response", error.code, dict(error.headers), decode(error.read()))
            except (OSError, http.client.HTTPException):
                outcome = ("failure", "connectionLost", False)  # a reset connection: the outcome is unknown
            with self._finished:
                if tag in self._abandoned:
                    return
                self._completed.append((sequence, future, outcome))
                self.http_finished += 1
                self._finished.notify_all()

        threading.Thread(target=run, daemon=True).start()
        return tag, future

    def abandon(self, effect_id, reason):
        """Nobody waits for this effect (or tagged loopback request) any more: the runner is told, so it stops
        holding it and never answers it, and a reply that crossed the abandon on the wire is dropped."""
        if effect_id in self._waiting:
            self._waiting.pop(effect_id)
        elif effect_id.startswith("r"):
            with self._finished:
                self._abandoned.add(effect_id)
        else:
            return
        self.send({"type": "abandon", "id": effect_id, "reason": reason})

    # -- Runner messages.

    def handle(self, message):
        kind = message.get("type")
        if kind == "welcome":
            self.clock = dict(message["clock"])
            if self.loopback:
                self.base_url = message["http"]["baseURL"]
            self.client = SessionClient(Effects(self, int(message["seed"]), message.get("world")),
                                        refresh_mode=self.refresh_mode)
        elif kind == "error":
            sys.stderr.write(f"adapter: the runner refused us: {message.get('code')}\n")
            sys.exit(2)
        elif kind == "clock":
            self.clock = {"wall": message["wall"], "monotonic": message["monotonic"]}
        elif kind == "reply":
            future = self._waiting.pop(message["id"], None)
            if future is not None and not future.done():
                future.set_result(message)
        elif kind == "command":
            context = contextvars.copy_context()
            context.run(CAUSE.set, message["id"])
            self.loop.create_task(self._run_command(message), context=context)
        elif kind == "barrier":
            # Loopback: first every response the runner sent must have reached the client.
            with self._finished:
                self._finished.wait_for(lambda: self.http_finished >= message.get("httpAnswered", 0))
                completed, self._completed = sorted(self._completed, key=lambda item: item[0]), []
            for _, future, outcome in completed:
                if not future.done():
                    future.set_result(outcome)
        else:
            raise ValueError(f"unknown runner message type {kind!r}")
        self.run_until_idle()
        if kind == "barrier":
            answer = {"type": "barrier", "id": message["id"]}
            if self.loopback:
                answer["httpStarted"] = self.http_started
            self.send(answer)

    async def _run_command(self, command):
        result = {"type": "result", "id": command["id"]}
        try:
            content = await self.client.perform(command)
            result["outcome"] = "ok"
            if content is not None:
                result["content"] = content
        except Exception as error:  # noqa: BLE001 - every failure becomes the command's result
            code = getattr(error, "code", "internalError")
            result["outcome"] = "error"
            result["error"] = {"code": code, "message": getattr(error, "message", code),
                               "definite": getattr(error, "definite", True)}
            if code == "internalError":
                sys.stderr.write(f"adapter: {command.get('command')} failed: {type(error).__name__}\n")
        self.send(result)

    def run_until_idle(self):
        """Runs the loop until no callback is ready: every task then waits for the runner (or nothing).

        asyncio has no public "is idle" query; the ready queue is the exact answer, so we read it, and run its
        callbacks the way the loop's own turn does, without the turn's poll of the selector: this host does no
        I/O on the loop, and a poll per runner message was a tenth of the adapter's time. Elsewhere: drain the
        main dispatch queue (iOS), advance a TestDispatcher until idle (Kotlin), or flush microtasks and
        setImmediate (Node)."""
        ready = self.loop._ready  # noqa: SLF001
        if not ready:
            return
        asyncio.events._set_running_loop(self.loop)  # noqa: SLF001 - what get_running_loop() in the tasks reads
        try:
            while ready:
                handle = ready.popleft()
                if not handle.cancelled():
                    handle._run()  # noqa: SLF001 - reports an exception to the loop's handler, as the loop does
        finally:
            asyncio.events._set_running_loop(None)  # noqa: SLF001

    def send_hello(self):
        # `reset`: this host can drop every in-memory state and start over in the same process, so the runner
        # keeps one interpreter across cases instead of starting one per case (docs/adapter-protocol.md).
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "implementation": IMPLEMENTATION,
                 "capabilities": CAPABILITIES + ["reset"], "offlinePolicy": {"cachedResources": OFFLINE_RESOURCES}}
        if self.loopback:
            hello["http"] = "loopback"
        if self.refresh_mode != "before-use":
            hello["implementation"] = dict(IMPLEMENTATION, name=f"{IMPLEMENTATION['name']} ({self.refresh_mode})")
        if self.declare_triggers:
            # What starts this client's refreshes: the runner plays each case's variants for these only.
            hello["refreshTriggers"] = REFRESH_MODES[self.refresh_mode]
        if self.forked:
            # `fork`: this process was forked for this client instance; a kill ends it alone (see `zygote`).
            hello["capabilities"].append("fork")
            hello["pid"] = os.getpid()
        self.send(hello)

    def close(self):
        """Ends this host's tasks: the client's state goes with them. Threads of unfinished loopback requests
        still hold this host, not the next one, so their late outcomes reach nobody."""
        for task in asyncio.all_tasks(self.loop):
            task.cancel()
        self.loop.run_until_complete(asyncio.sleep(0))
        self.loop.close()


def runner_lines(host_of):
    """The runner's messages, a line at a time, read straight from stdin. Before each read (which may wait) the
    current host writes what it sent: a batch of replies and a barrier come in one read and leave in one write."""
    pending = b""
    while True:
        host_of().flush()
        chunk = os.read(0, 1 << 16)
        if not chunk:
            return
        *lines, pending = (pending + chunk).split(b"\n")
        yield from lines


def serve(options, forked=False):
    """Runs client instances on stdin and stdout until the runner closes stdin."""
    host = Host(**options, forked=forked)
    host.send_hello()
    welcomed = False
    for line in runner_lines(lambda: host):
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "reset":
            # A fresh host, as a fresh process would have: no client, no effects, no tasks. Storage lives in
            # the runner's world, so there is nothing else to drop.
            host.flush()
            host.close()
            host = Host(**options, forked=forked)
            host.send_hello()
        elif welcomed or kind in ("welcome", "error"):
            welcomed = True
            host.handle(message)
        # Else: written for an instance killed before it read it; a new instance starts at its welcome.
    host.flush()


# A short session for `rehearse`: sign in, two requests (the first refused once with a 401, so a refresh runs), a
# switch of account, a sign-out.
REHEARSAL = [
    {"type": "welcome", "protocol": PROTOCOL_VERSION, "seed": "1", "clock": {"wall": 1767225600.0, "monotonic": 0.0}},
    {"type": "command", "id": "c1", "command": "launch"},
    {"type": "command", "id": "c2", "command": "signIn", "email": "rehearsal@example.com", "password": "rehearsal"},
    {"type": "command", "id": "c3", "command": "request", "resource": "news"},
    {"type": "command", "id": "c4", "command": "request", "resource": "news"},
    {"type": "command", "id": "c5", "command": "switchAccount", "email": "other@example.com", "password": "rehearsal"},
    {"type": "command", "id": "c6", "command": "signOut"},
]


def rehearsal_reply(effect, stored, refused):
    """What the runner would answer to `effect` (storage, preferences or HTTP) in the rehearsal: a world of one server
    that accepts everything, and refuses each resource's first request with a 401."""
    kind = effect["type"]
    if kind in ("storage", "preferences"):
        key = (kind, effect["key"])
        if effect["op"] == "get":
            return {"value": stored.get(key)}
        if effect["op"] == "set":
            stored[key] = effect["value"]
        else:
            stored.pop(key, None)
        return {}
    path = effect["request"]["path"]
    if path.startswith(JSON_V1["resources"]["prefix"]) and path not in refused:
        refused.add(path)
        return {"response": {"status": 401, "headers": {}, "body": {"error": "invalid_token"}}}
    body = {"account_id": "acct-rehearsal", "display_name": "rehearsal", "email": "rehearsal@example.com",
            "items": [], "contentId": "content-1"}
    if path in (JSON_V1["signIn"]["path"], JSON_V1["refresh"]["path"]):
        body = {"access_token": "rehearsal-access", "refresh_token": "rehearsal-refresh", "expires_in": 300,
                "token_type": "Bearer", "account_id": "acct-rehearsal"}
    return {"response": {"status": 200, "headers": {"content-type": "application/json"}, "body": body}}


def rehearse(options):
    """`fork`: plays REHEARSAL once on a host of this process, answering its effects here, then drops the host. CPython
    rewrites a function's bytecode the first times it runs (it specializes it); rehearsed here, the instances forked
    afterwards start with that done, instead of each writing, and so copying, the pages it is on. The client keeps no
    state outside its host (its randomness comes from each welcome's seed), so nothing of the rehearsal is left."""
    host = Host(**options)
    stored, refused = {}, set()
    for message in REHEARSAL:
        host.handle(message)
        while host._output:  # noqa: SLF001 - what the host sent: answer its effects until it waits for nothing
            sent = [json.loads(line) for line in host._output]  # noqa: SLF001
            host._output.clear()  # noqa: SLF001
            for effect in sent:
                # A sleep is never answered: no timer of the client fires, and no request waits out its deadline.
                if effect["type"] in ("storage", "preferences", "http"):
                    host.handle({"type": "reply", "id": effect["id"], **rehearsal_reply(effect, stored, refused)})
    host.close()


def zygote(options):
    """`fork`: this process never runs a client. It forks one process per client instance, whose hello names it;
    the runner's kill ends that process alone (SIGKILL), and this one forks the next. A kill is still a real
    process death, and costs a fork instead of an interpreter's start and imports."""
    if not options["loopback"]:
        rehearse(options)
    gc.collect()
    gc.freeze()  # what is imported stays shared with the children, not copied at their first collection
    while True:
        instance = os.fork()
        if instance == 0:
            code = 0
            try:
                serve(options, forked=True)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 1
            except BaseException:  # noqa: BLE001 - the adapter's crash: its traceback on stderr, exit 1
                traceback.print_exc()
                code = 1
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(instance, 0)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
            # Killed mid-write, the instance may have left half a line: end it, so the next hello starts a line.
            os.write(1, b"\n")
            continue
        sys.exit(os.waitstatus_to_exitcode(status))


def positive_seconds(text):
    seconds = float(text)
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text}")
    return int(seconds) if seconds == int(seconds) else seconds


def main():
    parser = argparse.ArgumentParser(description="Protocol v1 host for the example Python session client")
    parser.add_argument("--http", choices=["message", "loopback"], default="message")
    parser.add_argument("--refresh", choices=sorted(REFRESH_MODES), default="before-use")
    parser.add_argument("--declare-triggers", action="store_true")
    parser.add_argument("--no-fork", action="store_true", help="run the client in this process, a new process per kill")
    parser.add_argument("--request-timeout", type=positive_seconds, metavar="SECONDS",
                        help="a deadline on every HTTP request, on the runner's virtual clock (default: none but the "
                             "refresh's own)")
    arguments = parser.parse_args()
    options = {"loopback": arguments.http == "loopback", "refresh_mode": arguments.refresh,
               "declare_triggers": arguments.declare_triggers, "request_timeout": arguments.request_timeout}
    if arguments.no_fork or not hasattr(os, "fork"):
        serve(options)
    else:
        zygote(options)


if __name__ == "__main__":
    main()
