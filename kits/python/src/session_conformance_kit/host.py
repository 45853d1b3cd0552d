"""The protocol host: JSON Lines on stdin/stdout, a client on an asyncio loop, effects as awaitables.

Everything the runner sends is data: it is parsed as JSON, checked for the fields the host reads, and never
evaluated or used as a path. Nothing here prints a message's content: a line that cannot be read is reported by
its number and what is wrong with it, never with its text (it may hold tokens).
"""

import asyncio
import contextvars
import json
import os
import sys
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional

from .loopback import Loopback

PROTOCOL_VERSION = 1
MAX_LINE = 1 << 20  # a line is at most 1 MiB (docs/adapter-protocol.md, Framing)

#: The command a piece of work serves; an HTTP request names it as its `cause` (an `http` effect's field, or the
#: `X-Conformance-Cause` header in loopback mode). Tasks and threads copy it when they start, so everything a
#: command starts (a refresh it triggers, say) is attributed to it.
CAUSE: contextvars.ContextVar = contextvars.ContextVar("session_conformance_kit.cause", default=None)


class ProtocolError(Exception):
    """The runner sent something this host cannot read. The message names the line and the problem, never the
    line's content."""


class CommandError(Exception):
    """Raise it from `perform` to answer the command with an error result.

    `code` is the client's error class (`sessionEnded`, `offline`, `invalidCredentials`, ...), `definite` says
    whether retrying cannot change the outcome. Any other exception becomes `internalError`."""

    def __init__(self, code: str, message: Optional[str] = None, definite: bool = True):
        super().__init__(message or code)
        self.code = code
        self.message = message or code
        self.definite = definite


@dataclass(frozen=True)
class Rehearsal:
    """A short session played once by the zygote before its first fork (see `process.zygote`).

    `messages` are runner messages (a `welcome`, then commands); `answer(effect, state)` returns the fields of the
    reply to a `storage`, `preferences` or `http` effect (`{"value": ...}`, `{"response": {...}}`, `{}`), `state`
    being a dict the rehearsal keeps for it. Sleeps are never answered."""

    messages: List[dict]
    answer: Callable[[dict, dict], dict]


@dataclass(frozen=True)
class Settings:
    """What the adapter declares and how the host runs it.

    implementation   hello's `implementation`: name and version (language and platform are filled in when absent)
    capabilities     optional features the client implements (`background-refresh`, `offline-browsing`); the host
                     adds `reset` always and `fork` in a forked instance
    refresh_triggers hello's `refreshTriggers` (`unauthorized`, `expiry`, `background`), or None to leave it out
    offline_policy   hello's `offlinePolicy` (with `offline-browsing`), e.g. {"cachedResources": ["news"]}
    http             "message" (HTTP as `http` effects) or "loopback" (real HTTP to the runner's server)
    http_library     the stack `Effects.http` uses in loopback mode: "urllib", "requests" or "httpx"
    request_timeout  a deadline in virtual seconds on every `Effects.http` call, or None
    fork             run each client instance in a process forked from a zygote (where `os.fork` exists)
    rehearsal        what the zygote plays before its first fork (message mode only), or None
    """

    implementation: Dict[str, Any]
    capabilities: List[str] = field(default_factory=list)
    refresh_triggers: Optional[List[str]] = None
    offline_policy: Optional[Dict[str, Any]] = None
    http: str = "message"
    http_library: str = "urllib"
    request_timeout: Optional[float] = None
    fork: bool = True
    rehearsal: Optional[Rehearsal] = None

    def __post_init__(self):
        if self.http not in ("message", "loopback"):
            raise ValueError(f"http must be 'message' or 'loopback', not {self.http!r}")
        if self.http_library not in ("urllib", "requests", "httpx"):
            raise ValueError(f"http_library must be 'urllib', 'requests' or 'httpx', not {self.http_library!r}")

    def replace(self, **changes) -> "Settings":
        """A copy with some fields changed."""
        return replace(self, **changes)


class Sleep:
    """A `sleep` effect: awaiting it ends when the runner's monotonic clock reaches the deadline (the runner's empty
    reply), or as soon as `wake()` is called, which tells the runner (`abandon`, reason `woken`)."""

    def __init__(self, host: "Host", effect_id: str, future: asyncio.Future):
        self._host = host
        self.id = effect_id
        self.future = future

    def __await__(self):
        return self.future.__await__()

    def done(self) -> bool:
        return self.future.done()

    def wake(self) -> None:
        self._host.abandon(self.id, "woken")
        if not self.future.done():
            self.future.set_result(None)


class Effects:
    """Everything the client can do to the world. Each call is one protocol message; the awaitable ones resolve
    when the runner's reply arrives, or to None when the host was reset or the effect abandoned meanwhile.

    Attributes: `seed` (int, the welcome's seed: derive all randomness from it), `world` (the welcome's world profile,
    or None), `welcome` (the whole welcome), `request_timeout`, `loopback` (bool), `base_url` (loopback only)."""

    def __init__(self, host: "Host", welcome: dict):
        self._host = host
        self.welcome = welcome
        self.seed = int(welcome["seed"])
        self.world = welcome.get("world")
        self.request_timeout = host.settings.request_timeout
        self.loopback = host.loopback is not None
        self.base_url = host.loopback.base_url if host.loopback is not None else None

    # -- HTTP.

    async def http(self, method: str, path: str, headers: dict, body=None, deadline: Optional[float] = None):
        """One HTTP request. Returns ("response", status, headers, body), ("failure", code, definite), or None when
        the host was reset meanwhile. `body` is JSON (a dict or list), a string (a form-encoded or other text body),
        or None; a response body is parsed JSON, text, or None.

        The deadline recipe: with `deadline` (virtual seconds; the shorter of it and `Settings.request_timeout`
        counts) the request is raced against a `sleep` effect of that length. The sleep ending first abandons the
        request (`{"type":"abandon","id":REQUEST,"reason":"timeout"}`; REQUEST is the effect id, or the
        `X-Conformance-Request` tag in loopback mode) and returns ("failure", "timeout", False): indefinite, the
        server may have processed it. The request answered first abandons the sleep (reason `answered`). When both
        land in the same round: in message mode the reply the runner sends first wins (the host handles each
        message as it arrives), and the other's reply is dropped; in loopback mode the deadline wins, since the
        `sleep` reply is a message handled on arrival while HTTP outcomes reach the client at the round's barrier.
        Either way the loser's abandon names an effect the runner already answered, which it ignores (the trace
        notes `abandon of ... ignored`)."""
        timeout = self.request_timeout
        if timeout is not None:
            deadline = timeout if deadline is None else min(deadline, timeout)
        host = self._host
        if host.loopback is not None:
            request_id, future = host.loopback.start_http(method, path, headers, body)
        else:
            message = {"type": "http", "request": {"method": method, "path": path, "headers": headers, "body": body}}
            cause = CAUSE.get()
            if cause is not None:
                message["cause"] = cause
            request_id, future = host.start_effect(message)
        if deadline is not None:
            sleep_id, sleeper = host.start_effect({"type": "sleep", "seconds": deadline})
            await asyncio.wait({future, sleeper}, return_when=asyncio.FIRST_COMPLETED)
            if not future.done():
                host.abandon(request_id, "timeout")
                return ("failure", "timeout", False)
            host.abandon(sleep_id, "answered")
        reply = await future
        if host.loopback is not None or reply is None:
            return reply
        if "response" in reply:
            response = reply["response"] or {}
            return ("response", response.get("status"), response.get("headers") or {}, response.get("body"))
        failure = reply.get("failure") or {}
        return ("failure", failure.get("code", "connectionLost"), failure.get("definite", True))

    def blocking(self, function: Callable, *arguments):
        """Runs a blocking call (a `requests` or `httpx` request of your own client, say) on a thread and returns an
        awaitable of its result (or exception). The host counts the thread as runnable until it waits in an HTTP
        request counted by one of the clients below or returns, so a barrier waits for it; its result reaches the
        client at a barrier, in the order the calls started. The thread inherits the current `CAUSE`."""
        return self._host.jobs().submit(lambda: function(*arguments))

    def url(self, path: str) -> str:
        """The loopback URL of `path` (loopback mode)."""
        if self.base_url is None:
            raise RuntimeError("url() is for loopback mode (Settings.http == 'loopback')")
        return self.base_url + path

    def urllib_opener(self):
        """A `urllib.request` opener that counts its requests for the barrier and tags them with their cause."""
        return self._host.jobs().urllib_opener()

    def requests_session(self):
        """A `requests.Session` with a counting transport adapter mounted (no retries, no proxies from the
        environment, no timeout): use it in `blocking` calls."""
        return self._host.jobs().requests_session()

    def httpx_client(self):
        """An `httpx.Client` with a counting transport (no retries, `Timeout(None)`): use it in `blocking` calls."""
        return self._host.jobs().httpx_client()

    def new_tag(self) -> str:
        """A request tag unique in the process (`r1`, `r2`, ...): send it as `X-Conformance-Request` on a loopback
        request you may give up on, and `abandon` it if you do."""
        return self._host.jobs().new_tag()

    def abandon(self, effect_id: str, reason: str = "cancelled") -> None:
        """Gives up on an `http` or `sleep` effect, or a tagged loopback request: the runner is told, and a reply
        that crossed the abandon on the wire is dropped."""
        self._host.abandon(effect_id, reason)

    # -- Storage and preferences.

    async def storage(self, op: str, key: str, value: Optional[str] = None, accessibility: Optional[str] = None):
        """A secure-storage effect (`op` get, set or delete). Returns the runner's reply (a dict: `value`, or
        `error` with its `code`), or None when the host was reset meanwhile."""
        message = {"type": "storage", "op": op, "key": key}
        if op == "set":
            message["value"] = value
            message["accessibility"] = accessibility or "afterFirstUnlock"
        return await self._host.effect(message)

    async def preferences(self, op: str, key: str, value: Optional[str] = None):
        """A preferences effect (`op` get, set or delete). Returns the reply as `storage` does."""
        message = {"type": "preferences", "op": op, "key": key}
        if op == "set":
            message["value"] = value
        return await self._host.effect(message)

    async def secure_get(self, key):
        """Returns ("value", text or None) or ("error", code)."""
        return _outcome(await self.storage("get", key))

    async def secure_set(self, key, value, accessibility="afterFirstUnlock"):
        """Returns ("value", None) or ("error", code) (`locked`, `writeFailed`)."""
        return _outcome(await self.storage("set", key, value, accessibility))

    async def secure_delete(self, key):
        """Returns ("value", None) or ("error", code)."""
        return _outcome(await self.storage("delete", key))

    async def preference_get(self, key):
        """Returns the stored text, or None."""
        reply = await self.preferences("get", key)
        return reply.get("value") if reply else None

    async def preference_set(self, key, value) -> bool:
        """Returns whether the write took (a failed write is a reply with an error)."""
        return _outcome(await self.preferences("set", key, value))[0] == "value"

    async def preference_delete(self, key) -> bool:
        """Returns whether the delete took."""
        return _outcome(await self.preferences("delete", key))[0] == "value"

    # -- Time.

    def sleep(self, seconds: float) -> Sleep:
        """Starts a `sleep` effect on the runner's virtual clock: see `Sleep`. Never `time.sleep` or
        `asyncio.sleep(n)`: real time is not the client's clock."""
        effect_id, future = self._host.start_effect({"type": "sleep", "seconds": seconds})
        return Sleep(self._host, effect_id, future)

    @property
    def wall_clock(self) -> float:
        """The device's clock (seconds since 1970, possibly skewed from the server's), as the runner last said."""
        return self._host.clock["wall"]

    @property
    def monotonic(self) -> float:
        """The monotonic clock, as the runner last said: measure expiry on it."""
        return self._host.clock["monotonic"]

    # -- Events: no reply.

    def log(self, level: str, message: str) -> None:
        """A log line (checked for token values like everything else: never log a token)."""
        self._host.send({"type": "log", "level": level, "message": message})

    def transition(self, transition, from_state, to_state, account, generation, reason) -> None:
        """A transition of Specs/state-machine.yaml (None, None, "restoring", ... at launch)."""
        self._host.send({"type": "transition", "transition": transition, "from": from_state, "to": to_state,
                         "account": account, "generation": generation, "reason": reason})

    def show_content(self, resource, account, generation, content_id) -> None:
        """A screen shows `resource` of `account` (the `contentId` of the response it came from)."""
        self._host.send({"type": "ui", "event": "content", "resource": resource, "account": account,
                         "generation": generation, "contentId": content_id})

    def show_sign_in_prompt(self) -> None:
        """The sign-in screen is shown."""
        self._host.send({"type": "ui", "event": "signInPrompt"})

    # -- Tasks.

    def future(self) -> asyncio.Future:
        """A future the client resolves itself (a waiter in a queue)."""
        return self._host.loop.create_future()

    def spawn(self, coroutine) -> asyncio.Task:
        """Starts background work of the client (it inherits the cause of the work that starts it)."""
        return self._host.loop.create_task(coroutine)

    def spawn_uncaused(self, coroutine) -> asyncio.Task:
        """Starts work of the client's own (a timer's): no command is its cause, nor of what it starts."""
        context = contextvars.copy_context()
        context.run(CAUSE.set, None)
        return context.run(self._host.loop.create_task, coroutine)


def _outcome(reply):
    if reply is None:
        return ("error", "cancelled")
    if "error" in reply:
        return ("error", (reply["error"] or {}).get("code", "unavailable"))
    return ("value", reply.get("value"))


def _write_stdout(data: bytes) -> None:
    while data:
        data = data[os.write(1, data):]


def _read_stdin() -> bytes:
    return os.read(0, 1 << 16)


class Host:
    """One client instance: reads runner messages (`handle`), runs the client on an asyncio loop, writes adapter
    messages (`send`, `flush`).

    `make_client(effects)` builds the client at `welcome`; its `perform(command)` coroutine answers a command (the
    runner's message, a dict): its return value is the result's `content` (or None), a `CommandError` is an error
    result. Between messages the host runs the loop until no callback is ready (`run_until_idle`), and it answers
    a `barrier` only then, after its threads (see `Effects.blocking`) settled too."""

    def __init__(self, make_client: Callable[[Effects], Any], settings: Settings, forked: bool = False,
                 write: Optional[Callable[[bytes], None]] = None):
        self.make_client = make_client
        self.settings = settings
        self.forked = forked
        self.loop = asyncio.new_event_loop()
        self.clock = {"wall": 0.0, "monotonic": 0.0}
        self.client = None
        self._write = write or _write_stdout
        self._output: List[str] = []  # lines not written yet: they leave together before the host reads again
        self._waiting: Dict[str, asyncio.Future] = {}
        self._next_effect = 0
        self._jobs: Optional[Loopback] = None
        self.loopback: Optional[Loopback] = self.jobs() if settings.http == "loopback" else None

    def jobs(self) -> Loopback:
        """The host's threads and HTTP counting (built at first use: its imports cost nothing in message mode)."""
        if self._jobs is None:
            self._jobs = Loopback(self.loop, self.settings.http_library, CAUSE)
        return self._jobs

    # -- Wire.

    def send(self, message: dict) -> None:
        """Queues one adapter message; `flush` writes it."""
        self._output.append(json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n")

    def flush(self) -> None:
        """Writes what was sent since the last flush, in one write where the pipe allows. Called before the host
        reads again: the runner decides nothing before it has the barrier's answer, so waiting costs nothing."""
        if self._output:
            data = "".join(self._output).encode()
            self._output.clear()
            self._write(data)

    def start_effect(self, message: dict):
        """Sends an effect; returns its id (`e1`, `e2`, ...) and the future its reply resolves."""
        self._next_effect += 1
        effect_id = f"e{self._next_effect}"
        message["id"] = effect_id
        future = self.loop.create_future()
        self._waiting[effect_id] = future
        self.send(message)
        return effect_id, future

    async def effect(self, message: dict):
        """Sends an effect and returns its reply (the runner's message), or None if it was dropped."""
        _, future = self.start_effect(message)
        return await future

    def abandon(self, effect_id: str, reason: str) -> None:
        """Nobody waits for this effect (or tagged loopback request) any more: the runner is told, so it stops holding
        it and never answers it, and a reply that crossed the abandon on the wire is dropped. An id already
        abandoned or answered is left alone."""
        if effect_id in self._waiting:
            future = self._waiting.pop(effect_id)
            if not future.done():
                future.set_result(None)
        elif self._jobs is None or not self._jobs.abandon(effect_id):
            return
        self.send({"type": "abandon", "id": effect_id, "reason": reason})

    # -- Runner messages.

    def handle(self, message: dict) -> None:
        """Handles one runner message (after `welcome`), then runs the client until it is idle."""
        kind = message.get("type")
        try:
            if kind == "welcome":
                self._welcome(message)
            elif kind == "error":
                code = message.get("code")
                sys.stderr.write(f"session-conformance-kit: the runner refused this adapter: {str(code)[:80]}\n")
                sys.exit(2)
            elif kind == "clock":
                self.clock = {"wall": float(message["wall"]), "monotonic": float(message["monotonic"])}
            elif kind == "reply":
                future = self._waiting.pop(_text(message, "id"), None)
                if future is not None and not future.done():
                    future.set_result(message)
            elif kind == "command":
                if self.client is None:
                    raise ProtocolError("a command before the welcome")
                _text(message, "id")
                _text(message, "command")
                context = contextvars.copy_context()
                context.run(CAUSE.set, message["id"])
                context.run(self.loop.create_task, self._run_command(message))
            elif kind == "barrier":
                _text(message, "id")
                answered = message.get("httpAnswered", 0)
                if not isinstance(answered, int) or isinstance(answered, bool) or answered < 0:
                    raise ProtocolError("a barrier whose httpAnswered is not a count")
            else:
                raise ProtocolError(f"unknown runner message type {str(kind)[:40]!r}")
        except (KeyError, TypeError, ValueError) as error:
            raise ProtocolError(f"a {str(kind)[:40]!r} message without a valid {error}") from None
        self.run_until_idle()
        if kind == "barrier":
            self._settle(message.get("httpAnswered", 0))
            answer = {"type": "barrier", "id": message["id"]}
            if self.loopback is not None:
                answer["httpStarted"] = self.loopback.started
            self.send(answer)

    def _settle(self, answered):
        """Before a barrier's answer: waits until the client received every response the runner sent (`answered`)
        and no thread of the host is runnable, hands the outcomes of the finished threads to the client in the order
        the threads started, runs it until idle, and again while that finished more. At that point every thread is
        either done or waits for a response the runner has not sent, so what the client sees is the same at every
        run, whatever the threads' race."""
        if self._jobs is None:
            return
        while self._jobs.settle(answered):
            self.run_until_idle()

    def _welcome(self, message):
        clock = message["clock"]
        self.clock = {"wall": float(clock["wall"]), "monotonic": float(clock["monotonic"])}
        if not isinstance(message.get("seed"), (str, int)):
            raise ValueError("seed")
        if self.loopback is not None:
            base_url = (message.get("http") or {}).get("baseURL")
            if not isinstance(base_url, str) or not base_url.startswith("http://"):
                raise ProtocolError("a welcome without http.baseURL, though this adapter asked for loopback HTTP")
            self.loopback.base_url = base_url.rstrip("/")
        self.client = self.make_client(Effects(self, message))

    async def _run_command(self, command):
        result = {"type": "result", "id": command["id"]}
        try:
            content = await self.client.perform(command)
            result["outcome"] = "ok"
            if content is not None:
                result["content"] = content
        except Exception as error:  # noqa: BLE001 - every failure becomes the command's result
            code = getattr(error, "code", None) or "internalError"
            result["outcome"] = "error"
            result["error"] = {"code": code, "message": getattr(error, "message", code),
                               "definite": getattr(error, "definite", True)}
            if code == "internalError":  # the type only: an exception's text may hold a token
                sys.stderr.write(f"session-conformance-kit: {command.get('command')} failed: {type(error).__name__}\n")
        self.send(result)

    def run_until_idle(self) -> None:
        """Runs the loop until no callback is ready: every task then waits for the runner (or nothing).

        asyncio has no public "is idle" query; the ready queue is the exact answer, so it is read here, and its
        callbacks run the way the loop's own turn runs them, without the turn's poll of the selector: the loop does
        no I/O (HTTP runs on threads), and a poll per runner message was a tenth of an adapter's time."""
        ready = self.loop._ready  # noqa: SLF001
        if not ready:
            return
        asyncio.events._set_running_loop(self.loop)  # noqa: SLF001 - what get_running_loop() in the tasks reads
        try:
            while ready:
                handle = ready.popleft()
                if not handle._cancelled:  # noqa: SLF001
                    handle._run()  # noqa: SLF001 - reports an exception to the loop's handler, as the loop does
        finally:
            asyncio.events._set_running_loop(None)  # noqa: SLF001

    def hello(self) -> dict:
        """The `hello` this instance says."""
        settings = self.settings
        implementation = {"language": "Python", "platform": sys.platform, **settings.implementation}
        hello = {"type": "hello", "protocol": PROTOCOL_VERSION, "implementation": implementation,
                 "capabilities": list(settings.capabilities) + ["reset"]}
        if settings.offline_policy is not None:
            hello["offlinePolicy"] = settings.offline_policy
        if self.loopback is not None:
            hello["http"] = "loopback"
        if settings.refresh_triggers is not None:
            hello["refreshTriggers"] = list(settings.refresh_triggers)
        if self.forked:
            # `fork`: this process was forked for this client instance; a kill ends it alone.
            hello["capabilities"].append("fork")
            hello["pid"] = os.getpid()
        return hello

    def send_hello(self) -> None:
        self.send(self.hello())

    def close(self) -> None:
        """Ends this host's tasks: the client's state goes with them. Threads still running hold this host's
        counters, not the next one's, so their late outcomes reach nobody."""
        for task in asyncio.all_tasks(self.loop):
            task.cancel()
        self.loop.run_until_complete(asyncio.sleep(0))
        self.loop.close()
        if self._jobs is not None:
            self._jobs.close()


def _text(message, name):
    value = message[name]
    if not isinstance(value, str):
        raise TypeError(name)
    return value


def runner_lines(host_of, read=None):
    """The runner's messages, a line (bytes) at a time. Before each read (which may wait) the current host writes
    what it sent: a batch of replies and a barrier come in one read and leave in one write."""
    read = read or _read_stdin
    pending = b""
    while True:
        host_of().flush()
        chunk = read()
        if not chunk:
            if pending.strip():
                raise ProtocolError("the runner's input ended inside a line")
            return
        *lines, pending = (pending + chunk).split(b"\n")
        if len(pending) > MAX_LINE:
            raise ProtocolError(f"a line from the runner longer than {MAX_LINE} bytes")
        yield from lines


def parse(line: bytes, number: int) -> dict:
    """One runner line as a message, or a ProtocolError naming the line and what is wrong (never its content)."""
    try:
        message = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise ProtocolError(f"line {number} from the runner is not UTF-8") from None
    except ValueError as error:
        raise ProtocolError(
            f"line {number} from the runner is not JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError(f"line {number} from the runner is not a JSON object with a type")
    return message


def serve(make_client, settings: Settings, forked: bool = False, read=None, write=None) -> None:
    """Runs client instances on stdin and stdout (or `read()`/`write(bytes)`) until the input ends: a `hello`, then
    the runner's messages; on `reset` a new host (a new client, no tasks, effect ids from e1) and a new `hello`.
    Messages before a `welcome` are ignored (written for an instance killed before it read them)."""
    state = {"host": Host(make_client, settings, forked=forked, write=write)}
    state["host"].send_hello()
    try:
        _serve_lines(state, make_client, settings, forked, read, write)
    finally:
        state["host"].flush()
        state["host"].close()


def _serve_lines(state, make_client, settings, forked, read, write):
    welcomed = False
    for number, line in enumerate(runner_lines(lambda: state["host"], read), 1):
        if not line.strip():
            continue
        message = parse(line, number)
        kind = message["type"]
        if kind == "reset":
            host = state["host"]
            host.flush()
            host.close()
            state["host"] = Host(make_client, settings, forked=forked, write=write)
            state["host"].send_hello()
            welcomed = False
        elif welcomed or kind in ("welcome", "error"):
            welcomed = True
            try:
                state["host"].handle(message)
            except ProtocolError as error:
                raise ProtocolError(f"line {number}: {error}") from None
