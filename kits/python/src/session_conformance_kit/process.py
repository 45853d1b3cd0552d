"""Processes: the zygote that forks one process per client instance (`fork`), its rehearsal, and `run`, the entry
point of an adapter (docs/adapter-protocol.md, "`fork`")."""

import argparse
import gc
import json
import os
import signal
import sys
import traceback

from .host import PROTOCOL_VERSION, Host, ProtocolError, Rehearsal, Settings, serve


def _standard_answer(effect, state):
    """A world of one server that accepts everything (json-v1 and rfc6749 paths) and refuses each resource's first
    request with a 401, so a refresh runs; storage and preferences kept in `state`."""
    kind = effect["type"]
    if kind in ("storage", "preferences"):
        stored = state.setdefault("stored", {})
        key = (kind, effect["key"])
        if effect["op"] == "get":
            return {"value": stored.get(key)}
        if effect["op"] == "set":
            stored[key] = effect["value"]
        else:
            stored.pop(key, None)
        return {}
    refused = state.setdefault("refused", set())
    path = effect["request"]["path"]
    if path.startswith("/resources/") and path not in refused:
        refused.add(path)
        return {"response": {"status": 401, "headers": {}, "body": {"error": "invalid_token"}}}
    body = {"account_id": "acct-rehearsal", "display_name": "rehearsal", "email": "rehearsal@example.com",
            "items": [], "contentId": "content-1", "resource": path.rsplit("/", 1)[-1]}
    if path in ("/auth/login", "/auth/refresh", "/oauth/token"):
        body = {"access_token": "rehearsal-access", "refresh_token": "rehearsal-refresh", "expires_in": 300,
                "token_type": "Bearer", "account_id": "acct-rehearsal"}
    return {"response": {"status": 200, "headers": {"content-type": "application/json"}, "body": body}}


#: Sign in, two requests (the first refused once with a 401, so a refresh runs), a switch of account, a sign-out,
#: against `_standard_answer`'s world (json-v1 endpoints).
STANDARD_REHEARSAL = Rehearsal(messages=[
    {"type": "welcome", "protocol": PROTOCOL_VERSION, "seed": "1", "clock": {"wall": 1767225600.0, "monotonic": 0.0}},
    {"type": "command", "id": "c1", "command": "launch"},
    {"type": "command", "id": "c2", "command": "signIn", "email": "rehearsal@example.com", "password": "rehearsal"},
    {"type": "command", "id": "c3", "command": "request", "resource": "news"},
    {"type": "command", "id": "c4", "command": "request", "resource": "news"},
    {"type": "command", "id": "c5", "command": "switchAccount", "email": "other@example.com", "password": "rehearsal"},
    {"type": "command", "id": "c6", "command": "signOut"},
], answer=_standard_answer)


def rehearse(make_client, settings: Settings, rehearsal: Rehearsal) -> None:
    """Plays `rehearsal` once on a host of this process, answering its effects here, then drops the host. CPython
    specializes a function's bytecode the first times it runs; rehearsed in the zygote, the instances forked
    afterwards start with that done. The client must keep no state outside its host (module-level caches,
    singletons), so that nothing of the rehearsal is left."""
    host = Host(make_client, settings.replace(http="message"), write=lambda data: None)
    state = {}
    for message in rehearsal.messages:
        host.handle(message)
        while host._output:  # noqa: SLF001 - what the host sent: answer its effects until it waits for nothing
            sent = [json.loads(line) for line in host._output]  # noqa: SLF001
            host._output.clear()  # noqa: SLF001
            for effect in sent:
                # A sleep is never answered: no timer of the client fires, and no request waits out its deadline.
                if effect["type"] in ("storage", "preferences", "http"):
                    host.handle({"type": "reply", "id": effect["id"], **rehearsal.answer(effect, state)})
    host.close()


def _instance(make_client, settings, forked):
    """Serves one process's instances; returns the exit status (2 for a protocol error, 1 for a crash)."""
    try:
        serve(make_client, settings, forked=forked)
        return 0
    except ProtocolError as error:
        sys.stderr.write(f"session-conformance-kit: protocol error: {error}\n")
        return 2
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else 1


def zygote(make_client, settings: Settings) -> None:
    """`fork`: this process never runs a client. It forks one process per client instance, whose `hello` names it;
    the runner's kill ends that process alone (SIGKILL), and this one forks the next. A kill is still a real
    process death, and costs a fork instead of an interpreter's start and imports."""
    if settings.rehearsal is not None and settings.http == "message":
        rehearse(make_client, settings, settings.rehearsal)
    gc.collect()
    gc.freeze()  # what is imported stays shared with the children, not copied at their first collection
    while True:
        instance = os.fork()
        if instance == 0:
            try:
                code = _instance(make_client, settings, forked=True)
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


def run(make_client, settings: Settings) -> None:
    """The adapter's main: forks an instance per client (`zygote`) when `settings.fork` and the platform can, else
    serves in this process. Exits 2 on a protocol error (one line on stderr)."""
    if settings.fork and hasattr(os, "fork"):
        zygote(make_client, settings)
    else:
        sys.exit(_instance(make_client, settings, forked=False))


def _positive_seconds(text):
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text}")
    return int(seconds) if seconds == int(seconds) else seconds


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Adds the kit's options to an adapter's parser: --http, --http-library, --request-timeout, --no-fork."""
    parser.add_argument("--http", choices=["message", "loopback"], default="message",
                        help="HTTP as protocol messages (default) or real HTTP to the runner's loopback server")
    parser.add_argument("--http-library", choices=["urllib", "requests", "httpx"], default="urllib",
                        help="the stack of loopback requests (default urllib)")
    parser.add_argument("--request-timeout", type=_positive_seconds, metavar="SECONDS",
                        help="a deadline on every HTTP request, on the runner's virtual clock")
    parser.add_argument("--no-fork", action="store_true",
                        help="run the client in this process, a new process per kill")


def apply_arguments(settings: Settings, arguments: argparse.Namespace) -> Settings:
    """`settings` with the options of `add_arguments` applied."""
    return settings.replace(http=arguments.http, http_library=arguments.http_library,
                            request_timeout=arguments.request_timeout, fork=settings.fork and not arguments.no_fork)
