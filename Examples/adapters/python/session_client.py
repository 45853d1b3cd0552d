"""An example session client that follows the design: Specs/sources/000 (session lifecycle) and 001 (refresh
as a critical section), and 000/001 wherever 003 contradicts them. It mirrors the reference (SessionKit,
docs/reference-implementation.md) in about a third of the code, and is the part a porting team replaces with
their own client.

What it does, requirement by requirement (Specs/requirements.yaml):

- One explicit state at a time (restoring, authenticated, refreshing, signingIn, signedOut), moved only by
  `_fire`, which checks the source state and applies the generation ("epoch") effect. Every transition is
  reported, never a token.                                         SESSION-STATE-MACHINE, EPOCH-INCREMENT
- Launch restores through `restoring`: read storage, establish the account, validate with GET /me (refresh
  on 401), and only then `authenticated`. A locked device or an unreachable server keeps restoring.
                                  RESTORE-*, STORAGE-LOCKED-NOT-SIGNOUT
- One refresh per account, shared by every caller (the 001 `refreshOnce`); the new pair is written to secure
  storage as ONE item, after-first-unlock, before any waiter is resumed; each request retried at most once;
  a 401 for an older token retries with the current one without refreshing.      REFRESH-*, STORAGE-*
- Only an explicit rejection (400 invalid_grant, a revoked session) signs out; timeouts, 5xx and offline
  keep the session and retry with bounded, jittered backoff.     REFRESH-ONLY-REJECTION-SIGNS-OUT, -BACKOFF
- Every request and refresh is tagged with the generation; a response or refresh result of an older
  generation is discarded, and a session end cancels what is in flight.                        EPOCH-*
- The content cache is keyed by account and cleared with the session; offline browsing shows only what the
  declared policy names.                                                  CACHE-*, OFFLINE-POLICY-DECLARED
- Sign-out blocks and clears at once; the refresh token's remote revocation is queued in the same secure
  storage item, survives a restart, and is retried with backoff.                              SIGNOUT-*
- Expiry runs on the monotonic clock from `expires_in`, so a skewed wall clock changes nothing.
                                                                                   CLOCK-SKEW-TOLERANT
- Sign-in input is validated before any request.                                  SIGNIN-VALIDATE-INPUT

What starts a refresh (`REFRESH_MODES`, chosen with the adapter's `--refresh`):

- `before-use` (the default): a request that finds the access token due (its expiry, less a leeway, on the
  monotonic clock), a 401 for the current token, and a background refresh task.
- `proactive`: the same, and a timer of its own: a `sleep` on the monotonic clock until the token is due, then
  the one shared refresh, with no request needed. The timer is re-armed for every new pair and cancelled when
  the session ends, when the app goes to the background (a suspended app runs no timer) and with the process.
- `expiry-only`: a measuring stick, not a certified client: it refreshes only when a request finds the token
  due (as authlib and requests-oauthlib do, checking expiry before use) or for a background task, never on a
  401: a request refused with a 401 fails. It stores when the pair arrived and its lifetime, on the monotonic
  clock, beside the pair, so a restarted app still knows when it is due; a pair of unknown lifetime (after a
  reboot restarted the clock) is due at once. The launch still validates the stored session with the server.
"""

import asyncio
import copy
import json
import urllib.parse

IMPLEMENTATION = {"name": "python-example", "version": "1.0.0", "language": "Python", "platform": "linux"}
CAPABILITIES = ["background-refresh", "offline-browsing"]
# The offline policy: the only cached resource that may appear before the session is validated.
OFFLINE_RESOURCES = ["news"]

RECORD_KEY = "session.record"
END_MARKER_KEY = "session/ending"  # preferences: a session end not yet durable (names no token)
ACCESSIBILITY = "afterFirstUnlock"  # background refresh must read and write tokens on a locked device
REFRESH_LEEWAY = 30.0
BACKGROUND_WINDOW = 300.0
MINIMUM_PASSWORD_LENGTH = 8
# A pair that lives shorter than this is not refreshed by the timer (it would refresh every few seconds): it is
# refreshed when it is used, as in `before-use`.
PROACTIVE_MINIMUM_LIFETIME = 60.0

# What starts a refresh in each mode, as hello's `refreshTriggers` declares it (docs/adapter-protocol.md).
REFRESH_MODES = {
    "before-use": ["unauthorized", "expiry", "background"],
    "proactive": ["unauthorized", "expiry", "background"],
    "expiry-only": ["expiry", "background"],
}


class Backoff:
    """Bounded exponential backoff with jitter: attempt n waits min(initial * 2^(n-1), maximum), shortened
    by up to half of itself at random (from the runner's seed)."""

    def __init__(self, initial, maximum, attempts):
        self.initial, self.maximum, self.attempts = initial, maximum, attempts

    def allows_retry(self, failures):
        return self.attempts is None or failures < self.attempts

    def delay(self, failures, unit_random):
        capped = min(self.initial * (2 ** min(max(failures - 1, 0), 30)), self.maximum)
        return round(capped * (1 - 0.5 * unit_random), 3)


REFRESH_BACKOFF = Backoff(1, 32, 5)
# The refresh's own deadline on the virtual clock: a refresh the server never answers becomes a timeout (retryable:
# deferred and backed off), and the host abandons it so the next attempt is not a second refresh in flight.
REFRESH_DEADLINE = 30
RESTORE_BACKOFF = Backoff(1, 60, None)
REVOCATION_BACKOFF = Backoff(2, 300, 6)

# Specs/state-machine.yaml: id -> (from, to, whether the generation increments).
TRANSITIONS = {
    "restore-validated": ("restoring", "authenticated", False),
    "restore-failed": ("restoring", "signedOut", True),
    "refresh-started": ("authenticated", "refreshing", False),
    "refresh-succeeded": ("refreshing", "authenticated", False),
    "refresh-deferred": ("refreshing", "authenticated", False),
    "refresh-rejected": ("refreshing", "signedOut", True),
    "sign-out": ("authenticated", "signedOut", True),
    "sign-out-during-refresh": ("refreshing", "signedOut", True),
    "sign-in-started": ("signedOut", "signingIn", False),
    "sign-in-succeeded": ("signingIn", "authenticated", True),
    "sign-in-failed": ("signingIn", "signedOut", False),
    "account-switch": ("authenticated", "signingIn", True),
    "switch-during-refresh": ("refreshing", "signingIn", True),
    "restore-sign-out": ("restoring", "signedOut", True),
    "sign-in-cancelled": ("signingIn", "signedOut", True),
}

RETRYABLE = {"timeout", "offline", "connectionLost", "serverError", "rateLimited", "storageLocked", "storageUnavailable"}
CONNECTIVITY = {"timeout", "offline", "connectionLost"}


class SessionError(Exception):
    """A command's failure: a stable code, a message without secrets, and whether the outcome is known."""

    def __init__(self, code, message=None, failure=None):
        super().__init__(code)
        self.code = code
        self.message = message or code
        self.failure = failure
        # A timed-out or lost exchange may have taken effect on the server.
        self.definite = failure not in ("timeout", "connectionLost")


class Credentials:
    """A token pair and when it is due, on the monotonic clock (never the wall clock: it may be skewed)."""

    def __init__(self, access, refresh, version, received_at=None, expires_in=None):
        self.access, self.refresh, self.version = access, refresh, version
        self.expires_at = self.refresh_due = None
        self.received_at = received_at
        if received_at is not None and expires_in is not None:
            lifetime = max(float(expires_in), 0.0)
            self.expires_at = received_at + lifetime
            self.refresh_due = received_at + lifetime - min(REFRESH_LEEWAY, lifetime / 2)

    def needs_refresh(self, now, unknown_is_due=False):
        if self.refresh_due is None:
            return unknown_is_due
        return now >= self.refresh_due

    def lifetime(self):
        return None if self.expires_at is None else self.expires_at - self.received_at

    def needs_background_refresh(self, now):
        return self.expires_at is None or now + BACKGROUND_WINDOW >= self.expires_at

    def __repr__(self):  # never print a token
        return f"Credentials(v{self.version}, <redacted>)"


class Ticket:
    """Permission to send one request: the token to use and the generation it belongs to."""

    def __init__(self, generation, account, credentials):
        self.generation, self.account = generation, account
        self.access, self.version = credentials.access, credentials.version


class RefreshOperation:
    """The account's single refresh (001's `inFlight` promise): everyone who needs it waits on it."""

    def __init__(self, operation_id):
        self.id = operation_id
        self.failed_attempts = 0
        self.waiters = []
        self.unpersisted = None  # a pair received but not yet written: never given up, never re-requested
        self.wake = None


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFFFFFFFFFF

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        return z ^ (z >> 31)

    def unit(self):
        return (self.next() >> 11) / float(1 << 53)


# The world profile when the runner's `welcome` names none: today's JSON endpoints (docs/adapter-protocol.md).
JSON_V1 = {
    "name": "json-v1",
    "signIn": {"path": "/auth/login", "encoding": "json", "fields": {"username": "email", "password": "password"}},
    "refresh": {"path": "/auth/refresh", "encoding": "json", "fields": {"refreshToken": "refresh_token"}},
    "revocation": {"path": "/auth/revoke", "encoding": "json", "fields": {"token": "token"}},
    "profile": {"path": "/me"},
    "resources": {"prefix": "/resources/"},
    "accountID": {"from": "tokenResponse", "field": "account_id"},
}


class AuthAPI:
    """The server's HTTP API, classified. `refresh` is a plain call: it never goes through the 401 handling
    of resource requests, and carries no access token. Paths, body encodings and field names follow the world
    profile of the runner's `welcome` (JSON at /auth/* when it names none; form-encoded RFC 6749 grants to
    /oauth/token under `rfc6749`)."""

    def __init__(self, effects):
        self.effects = effects
        self.world = getattr(effects, "world", None) or JSON_V1

    def _endpoint(self, name):
        endpoint = self.world[name]
        return endpoint["path"], endpoint.get("encoding", "json"), endpoint.get("fields", {})

    async def _exchange(self, method, path, body=None, token=None, encoding="json", deadline=None):
        headers = {}
        if body is not None and encoding == "form":
            # A form body is text: a string in message mode, the bytes of it over loopback HTTP.
            headers["content-type"] = "application/x-www-form-urlencoded"
            body = urllib.parse.urlencode(sorted(body.items()))
        elif body is not None:
            headers["content-type"] = "application/json"
        if token is not None:
            headers["authorization"] = f"Bearer {token}"
        outcome = await self.effects.http(method, path, headers, body, deadline=deadline)
        if outcome is None:
            return ("failure", "cancelled")
        if outcome[0] == "failure":
            return ("failure", outcome[1] if outcome[1] in CONNECTIVITY else "connectionLost")
        _, status, _, payload = outcome
        return ("response", status, payload if isinstance(payload, dict) else {})

    @staticmethod
    def _status_failure(status):
        return "serverError" if status >= 500 else "rateLimited" if status == 429 else "unexpectedResponse"

    @staticmethod
    def _grant(body):
        access, expires = body.get("access_token"), body.get("expires_in")
        if not isinstance(access, str) or not isinstance(expires, (int, float)):
            return None
        refresh = body.get("refresh_token")
        return {"access": access, "refresh": refresh if isinstance(refresh, str) else None, "expires_in": expires,
                "account": None}

    async def login(self, email, password):
        """("granted", grant) | ("invalidCredentials",) | ("failed", class)"""
        path, encoding, fields = self._endpoint("signIn")
        request = {fields.get("username", "username"): email, fields.get("password", "password"): password}
        if self.world["signIn"].get("grantType"):
            request["grant_type"] = self.world["signIn"]["grantType"]
        outcome = await self._exchange("POST", path, request, encoding=encoding)
        if outcome[0] == "failure":
            return ("failed", outcome[1])
        _, status, body = outcome
        if 200 <= status < 300:
            grant = self._grant(body)
            if grant and self.world["accountID"]["from"] == "tokenResponse":
                account = body.get(self.world["accountID"]["field"])
                grant["account"] = account if isinstance(account, str) else None
            elif grant:
                # The token response does not name the account: the profile, read with the new token, does.
                profile = await self.profile(grant["access"])
                if profile[0] != "profile":
                    return ("failed", profile[1] if profile[0] == "failed" else "unexpectedResponse")
                grant["account"] = profile[1]
            return ("granted", grant) if grant and grant["account"] and grant["refresh"] else ("failed", "unexpectedResponse")
        if status in (400, 401):
            return ("invalidCredentials",)
        return ("failed", self._status_failure(status))

    async def refresh(self, refresh_token):
        """("granted", grant) | ("rejected", class) | ("failed", class). Only "rejected" signs out."""
        path, encoding, fields = self._endpoint("refresh")
        request = {"grant_type": self.world["refresh"].get("grantType") or "refresh_token",
                   fields.get("refreshToken", "refresh_token"): refresh_token}
        outcome = await self._exchange("POST", path, request, encoding=encoding, deadline=REFRESH_DEADLINE)
        if outcome[0] == "failure":
            return ("failed", outcome[1])
        _, status, body = outcome
        if 200 <= status < 300:
            grant = self._grant(body)
            return ("granted", grant) if grant else ("failed", "unexpectedResponse")
        if status in (400, 401):
            error = body.get("error")
            if error == "invalid_grant":
                return ("rejected", "invalidGrant")
            if error == "session_revoked":
                return ("rejected", "sessionRevoked")
            return ("failed", "unexpectedResponse")
        return ("failed", self._status_failure(status))

    async def revoke(self, refresh_token):
        """("revoked",) | ("retryable", class) | ("refused", status)"""
        path, encoding, fields = self._endpoint("revocation")
        request = {fields.get("token", "token"): refresh_token, "token_type_hint": "refresh_token"}
        outcome = await self._exchange("POST", path, request, encoding=encoding)
        if outcome[0] == "failure":
            return ("retryable", outcome[1])
        status = outcome[1]
        if 200 <= status < 300:
            return ("revoked",)
        if status >= 500 or status == 429:
            return ("retryable", self._status_failure(status))
        return ("refused", status)

    async def profile(self, access_token):
        """("profile", account_id) | ("unauthorized",) | ("failed", class)"""
        outcome = await self._exchange("GET", self.world["profile"]["path"], token=access_token)
        if outcome[0] == "failure":
            return ("failed", outcome[1])
        _, status, body = outcome
        if 200 <= status < 300:
            field = self.world["accountID"]["field"] if self.world["accountID"]["from"] == "profile" else "account_id"
            account = body.get(field)
            return ("profile", account) if isinstance(account, str) else ("failed", "unexpectedResponse")
        if status == 401:
            return ("unauthorized",)
        return ("failed", self._status_failure(status))

    async def resource(self, name, access_token):
        """("content", body) | ("unauthorized",) | ("forbidden",) | ("notFound",) | ("failed", class)"""
        outcome = await self._exchange("GET", self.world["resources"]["prefix"] + name, token=access_token)
        if outcome[0] == "failure":
            return ("failed", outcome[1])
        _, status, body = outcome
        if 200 <= status < 300:
            return ("content", body)
        return {401: ("unauthorized",), 403: ("forbidden",), 404: ("notFound",)}.get(status, ("failed", self._status_failure(status)))


def _end_session(record, session_id, account, revoke):
    """A session end in the record: the session goes (if it is still the active one), its refresh token is queued
    for remote revocation (once)."""
    if record["active"] is not None and record["active"]["sessionID"] == session_id:
        record["active"] = None
    if revoke is not None and all(p["refreshToken"] != revoke for p in record["pendingRevocations"]):
        record["pendingRevocations"].append({"id": record["nextRevocationID"], "account": account, "refreshToken": revoke})
        record["nextRevocationID"] += 1


class CredentialVault:
    """The only writer of tokens. Secure storage holds ONE item: the active session (both tokens) and the
    queue of refresh tokens still to revoke, so a kill can never split the pair or lose a revocation.
    Operations run one at a time in arrival order, re-checking the generation inside the critical section,
    so a late write can never land after a sign-out's clear. A session end whose write fails is kept and applied
    with the next write that succeeds, so no later write (a sign-in, a refresh, revocation bookkeeping) puts the
    ended session back or loses its revocation; once it lands, the session-end note in preferences goes."""

    def __init__(self, effects, client):
        self.effects, self.client = effects, client
        self.record = None
        self.queue = FifoLock()
        self.pending_ends = []  # (session_id, account, revoke) of ends not written yet

    async def end(self, session_id, account, revoke):
        """Ends a session in the record (queuing its revocation). Returns what `commit` returns; a failed end
        stays pending and goes with the next write that succeeds."""
        return await self.commit(lambda record: _end_session(record, session_id, account, revoke),
                                 end=(session_id, account, revoke))

    async def load(self):
        """The record; raises SessionError("storageUnavailable") when storage cannot be read (locked)."""
        async with self.queue:
            return copy.deepcopy(await self._current())

    async def commit(self, mutate, if_generation=None, end=None):
        """Applies the pending ends and `mutate(record)`, and writes the whole item. Returns "committed", "stale"
        or a failure class. `end` marks `mutate` as that session end, kept pending when the write fails."""
        async with self.queue:
            if if_generation is not None and if_generation != self.client.generation:
                return "stale"
            try:
                record = copy.deepcopy(await self._current())
            except SessionError as error:
                self._keep_pending(end)
                return error.failure
            if if_generation is not None and if_generation != self.client.generation:
                return "stale"
            pending = list(self.pending_ends)
            for ended in pending:
                _end_session(record, *ended)
            mutate(record)
            if record["active"] is None and not record["pendingRevocations"]:
                outcome = await self.effects.secure_delete(RECORD_KEY)
            else:
                text = json.dumps(record, sort_keys=True, separators=(",", ":"))
                outcome = await self.effects.secure_set(RECORD_KEY, text, ACCESSIBILITY)
            if outcome[0] == "error":
                self._keep_pending(end)
                return "storageLocked" if outcome[1] == "locked" else "storageUnavailable"
            self.record = record
            if pending:
                self.pending_ends = []
                self.effects.log("info", f"storage.pending-ends-written count={len(pending)}")
                if any(revoke is not None for _, _, revoke in pending):
                    self.client.revocations.kick()  # their refresh tokens are queued now
                # The note of an end that was pending goes; not that of `end` itself, written again here: its
                # caller (`_finish`) still has the account's cache to clear, and drops its note once that is done.
                earlier = [ended for ended in pending if ended != end]
                if earlier:
                    await self._drop_note_of(earlier)
            return "committed"

    async def _drop_note_of(self, ends):
        """The ends are durable now: their session-end note goes, unless it names another session (an end still
        under way writes its own note, and drops it itself once that end is complete)."""
        text = await self.effects.preference_get(END_MARKER_KEY)
        try:
            note = json.loads(text) if text else None
        except ValueError:
            note = None
        if isinstance(note, dict) and any(note.get("sessionID") == session_id for session_id, _, _ in ends):
            await self.effects.preference_delete(END_MARKER_KEY)

    def _keep_pending(self, end):
        if end is not None and end not in self.pending_ends:
            self.pending_ends.append(end)

    async def _current(self):
        if self.record is None:
            outcome = await self.effects.secure_get(RECORD_KEY)
            if outcome[0] == "error":
                failure = "storageLocked" if outcome[1] == "locked" else "storageUnavailable"
                raise SessionError("storageUnavailable", "secure storage cannot be read", failure)
            self.record = self._decode(outcome[1])
        return self.record

    def _decode(self, text):
        empty = {"formatVersion": 1, "active": None, "pendingRevocations": [], "nextRevocationID": 1}
        if text is None:
            return empty
        try:
            record = json.loads(text)
            if isinstance(record, dict) and "pendingRevocations" in record:
                return record
        except ValueError:
            pass
        self.effects.log("warning", "storage.record-unreadable")
        return empty


class FifoLock:
    """asyncio.Lock is first come, first served already; named for what we rely on."""

    def __init__(self):
        self._lock = asyncio.Lock()

    async def __aenter__(self):
        await self._lock.acquire()

    async def __aexit__(self, *exc):
        self._lock.release()


class ContentCache:
    """The business cache, in preferences, partitioned by account: cache/<account>/<resource>."""

    def __init__(self, effects, client):
        self.effects, self.client = effects, client
        self.indexes = {}
        self.queue = FifoLock()

    async def store(self, body, resource, account, generation):
        async with self.queue:
            index = await self._index(account)
            if generation != self.client.generation:
                return  # the session ended meanwhile: nothing of it may be cached
            if resource not in index:
                # Listed before written: an entry the index does not list is one no clear would ever remove.
                if not await self.effects.preference_set(f"cache/{account}/.index", json.dumps(sorted(index | {resource}))):
                    return
                index.add(resource)
            await self.effects.preference_set(f"cache/{account}/{resource}", json.dumps(body, sort_keys=True))

    async def lookup(self, resource, account):
        async with self.queue:
            if resource not in await self._index(account):
                return None
            text = await self.effects.preference_get(f"cache/{account}/{resource}")
            try:
                return json.loads(text) if text is not None else None
            except ValueError:
                return None

    async def clear(self, account):
        """Deletes the account's cached entries; returns whether every one is gone. An entry whose delete failed
        stays in the index, so the next clear (the next end of a session of the account, or the launch that
        finishes an interrupted end) deletes it: dropped from the index, it would stay in preferences for good."""
        async with self.queue:
            left = {resource for resource in sorted(await self._index(account))
                    if not await self.effects.preference_delete(f"cache/{account}/{resource}")}
            self.indexes[account] = left
            if left:
                await self.effects.preference_set(f"cache/{account}/.index", json.dumps(sorted(left)))
                return False
            return await self.effects.preference_delete(f"cache/{account}/.index")

    async def _index(self, account):
        if account not in self.indexes:
            text = await self.effects.preference_get(f"cache/{account}/.index")
            try:
                self.indexes[account] = set(json.loads(text)) if text else set()
            except ValueError:
                self.indexes[account] = set()
        return self.indexes[account]


class RevocationWorker:
    """Drains the queue of refresh tokens to revoke (kept in the vault's record), retrying with backoff."""

    def __init__(self, client):
        self.client = client
        self.state = "idle"  # idle | running | backingOff
        self.rerun = False
        self.wake = None

    def kick(self):
        if self.state == "idle":
            self.state = "running"
            self.client.effects.spawn(self._drain())
        elif self.state == "running":
            self.rerun = True
        elif self.wake is not None:
            self.wake()

    async def _drain(self):
        failures = 0
        while True:
            failure = await self._revoke_all()
            if failure is None or self.rerun:
                if self.rerun:
                    self.rerun = False
                    continue
                self.state = "idle"
                return
            failures += 1
            self.client.log("notice", f"revocation.deferred failureClass={failure} attempt={failures}")
            if not REVOCATION_BACKOFF.allows_retry(failures):
                self.client.log("notice", "revocation.retries-exhausted")
                self.state = "idle"
                return
            sleeper = self.client.effects.sleep(REVOCATION_BACKOFF.delay(failures, self.client.random.unit()))
            self.wake = sleeper.wake
            self.state = "backingOff"
            await sleeper
            self.wake = None
            self.state = "running"

    async def _revoke_all(self):
        try:
            pending = (await self.client.vault.load())["pendingRevocations"]
        except SessionError as error:
            return error.failure
        for item in pending:
            outcome = await self.client.api.revoke(item["refreshToken"])
            if outcome[0] == "retryable":
                return outcome[1]
            self.client.log("info", f"revocation.{'succeeded' if outcome[0] == 'revoked' else 'refused'} account={item['account']}")

            def remove(record, revocation_id=item["id"]):
                record["pendingRevocations"] = [p for p in record["pendingRevocations"] if p["id"] != revocation_id]

            result = await self.client.vault.commit(remove)
            if result != "committed":
                return result
        return None


class RefreshTimer:
    """`proactive` mode: one sleep on the monotonic clock until the current pair is due, then the client's one
    shared refresh. Arming cancels the sleep before it, so at most one timer is ever live, and a timer that
    fires checks that the pair and the generation it was armed for are still current: an old timer never
    refreshes. The wall clock plays no part, so a clock jump starts no refresh."""

    def __init__(self, client):
        self.client = client
        self.armed = None  # (identity, wake) of the live sleep

    def arm(self, seconds, generation, version):
        self.cancel()
        sleeper = self.client.effects.sleep(seconds)
        wake = sleeper.wake
        identity = object()
        self.armed = (identity, wake)
        # The timer's work is the client's own: no command is its cause.
        self.client.effects.spawn_uncaused(self._wait(sleeper, identity, generation, version))

    def cancel(self):
        if self.armed is not None:
            _, wake = self.armed
            self.armed = None
            wake()

    async def _wait(self, sleeper, identity, generation, version):
        await sleeper
        if self.armed is None or self.armed[0] is not identity:
            return  # cancelled or re-armed meanwhile
        self.armed = None
        self.client._refresh_due(generation, version)


class SessionClient:
    """The client. Each public coroutine is one app or OS event; the state lives in the fields below and only
    `_fire` changes the phase."""

    def __init__(self, effects, refresh_mode="before-use"):
        assert refresh_mode in REFRESH_MODES, refresh_mode
        self.effects = effects
        self.refresh_mode = refresh_mode
        self.refresh_timer = RefreshTimer(self) if refresh_mode == "proactive" else None
        self.in_background = False  # a suspended app runs no timer
        self.random = SplitMix64(effects.seed)
        self.api = AuthAPI(effects)
        self.vault = CredentialVault(effects, self)
        self.cache = ContentCache(effects, self)
        self.revocations = RevocationWorker(self)
        self.phase = "restoring"
        self.generation = 1
        self.active = None          # authenticated/refreshing: {"account", "session_id", "credentials"}
        self.operation = None       # refreshing: the refresh in flight; authenticated: one backing off, or None
        self.next_operation = 1
        self.launched = False
        self.stored = None          # restoring: the stored session, once read
        self.restore_failure = None
        self.restore_waiters = []   # requests waiting for the restore
        self.settle_waiters = []    # launch callers waiting for the restore to end
        self.restore_wake = None
        self.signing_in_generation = None
        self.in_flight = {}         # request id -> (generation, future): cancelled when their session ends
        self.next_request = 1
        self.held_emissions = None  # while a session end becomes durable: transitions told after it

    # ------------------------------------------------------------------ commands

    async def perform(self, command):
        kind = command["command"]
        if kind == "launch":
            # The entry into the initial state is reported too; it is not a transition of the machine.
            self.effects.transition(None, None, "restoring", None, self.generation, "launch")
            return {"state": await self.launch()}
        if kind == "signIn":
            return {"account": await self.sign_in(command.get("email", ""), command.get("password", ""))}
        if kind == "switchAccount":
            return {"account": await self.switch_account(command.get("email", ""), command.get("password", ""))}
        if kind == "request":
            return await self.fetch(command.get("resource", ""))
        if kind == "signOut":
            await self.sign_out()
        elif kind == "backgroundRefresh":
            return {"outcome": await self.background_refresh()}
        elif kind == "background":
            self.in_background = True
            self._arm_refresh_timer()
        elif kind in ("unlock", "online", "foreground"):
            self.log("info", f"signal.{kind}")
            if kind == "foreground":
                self.in_background = False
                self._arm_refresh_timer()
            self._wake_deferred_work()
        return None

    def log(self, level, message):
        self.effects.log(level, message)

    # ------------------------------------------------------------------ the state machine

    def _fire(self, transition, account, reason):
        source, target, increments = TRANSITIONS[transition]
        assert self.phase == source, f"{transition} fired in {self.phase}"
        if increments:
            self.generation += 1
        self.phase = target
        emission = (transition, source, target, account, self.generation, reason)
        if self.held_emissions is not None:
            self.held_emissions.append(emission)
        else:
            self._tell(emission)

    def _tell(self, emission):
        transition, source, target, account, generation, reason = emission
        self.effects.transition(transition, source, target, account, generation, reason)
        self.log("info", f"transition {transition} {source}->{target} generation={generation} reason={reason}")

    def _hold_emissions(self):
        """A session end is told only once it is durable (`_finish`); what fires meanwhile waits behind it."""
        if self.held_emissions is None:
            self.held_emissions = []

    def _is_current(self, ticket):
        return (ticket.generation == self.generation and self.phase in ("authenticated", "refreshing")
                and self.active["account"] == ticket.account)

    def _ticket(self):
        return Ticket(self.generation, self.active["account"], self.active["credentials"])

    @staticmethod
    def _resolve(waiter, value):
        if not waiter.done():
            waiter.set_result(value)

    # ------------------------------------------------------------------ launch and restore

    async def launch(self):
        if self.phase == "restoring" and not self.launched:
            self.launched = True
            self.effects.spawn(self._restore(self.generation))
        if self.phase == "restoring":
            waiter = self.effects.future()
            self.settle_waiters.append(waiter)
            await waiter
        return self.phase

    def _restoring(self, generation):
        return self.phase == "restoring" and self.generation == generation

    async def _pause_restore(self, failure, failures):
        self.restore_failure = failure
        self.log("notice", f"restore.deferred failureClass={failure} attempt={failures}")
        sleeper = self.effects.sleep(RESTORE_BACKOFF.delay(failures, self.random.unit()))
        self.restore_wake = sleeper.wake
        await sleeper
        self.restore_wake = None

    async def _restore(self, generation):
        # 1. Read storage. A locked device is not "no session": keep restoring and retry.
        failures, record = 0, None
        while self._restoring(generation):
            try:
                record = await self.vault.load()
                break
            except SessionError as error:
                failures += 1
                await self._pause_restore(error.failure, failures)
        if record is None:
            return
        record = await self._finish_interrupted_end(record)
        self.revocations.kick()
        stored = record["active"]
        if stored is None:
            await self._end_restore("noStoredSession", None, revoke=False, generation=generation)
            return
        # 2. The account is known; private content still waits for the server.
        self.stored = stored
        self.log("info", f"restore.account-established account={stored['account']}")
        credentials = self._restored_credentials(stored)
        unpersisted, failures = None, 0
        # One refresh per attempt: a fresh access token refused again waits for the backoff instead of being
        # refreshed again at once (001: a request is retried once with the new access token).
        refreshed_this_attempt = False
        # 3. Validate with the server; a 401 exchanges the refresh token, persisted before it is used.
        while self._restoring(generation):
            if unpersisted is not None:
                session, fresh = unpersisted

                def set_active(record, session=session):
                    record["active"] = session

                result = await self.vault.commit(set_active, generation)
                if result == "stale":
                    return
                if result == "committed":
                    stored, credentials, unpersisted = session, fresh, None
                    self.stored = stored
                    continue
                failure = result
            else:
                outcome = await self.api.profile(credentials.access)
                if outcome[0] == "profile" and outcome[1] == stored["account"]:
                    self._restore_validated(stored, credentials, generation)
                    return
                if outcome[0] == "profile":
                    await self._end_restore("accountMismatch", "unexpectedResponse", revoke=True, generation=generation)
                    return
                if outcome[0] == "unauthorized" and refreshed_this_attempt:
                    failure = "unexpectedResponse"
                elif outcome[0] == "unauthorized":
                    self.log("info", f"restore.refresh account={stored['account']}")
                    refreshed_this_attempt = True
                    refreshed = await self.api.refresh(credentials.refresh)
                    if refreshed[0] == "granted":
                        grant = refreshed[1]
                        fresh = Credentials(grant["access"], grant["refresh"] or credentials.refresh,
                                            credentials.version + 1, self.effects.monotonic, grant["expires_in"])
                        unpersisted = (self._stored_session(stored["sessionID"], stored["account"], fresh), fresh)
                        continue
                    if refreshed[0] == "rejected":
                        await self._end_restore("storedSessionRejected", refreshed[1], revoke=False, generation=generation)
                        return
                    failure = refreshed[1]
                else:
                    failure = outcome[1]
            failures += 1
            await self._pause_restore(failure, failures)
            refreshed_this_attempt = False

    def _stored_session(self, session_id, account, credentials):
        """The record's session: the pair, and in `expiry-only` mode when it arrived and how long it lives, on the
        monotonic clock, which runs since the device booted, so a restarted app still knows the pair's expiry."""
        session = {"sessionID": session_id, "account": account,
                   "accessToken": credentials.access, "refreshToken": credentials.refresh}
        if self.refresh_mode == "expiry-only" and credentials.expires_at is not None:
            session["receivedAt"], session["expiresIn"] = credentials.received_at, credentials.lifetime()
        return session

    def _restored_credentials(self, stored):
        """The stored pair; in `expiry-only` mode with its expiry when the record has it and the monotonic clock has
        not started again since (a reboot): otherwise its lifetime is unknown."""
        received, lifetime = stored.get("receivedAt"), stored.get("expiresIn")
        if self.refresh_mode == "expiry-only" and isinstance(received, (int, float)) and \
                isinstance(lifetime, (int, float)) and received <= self.effects.monotonic:
            return Credentials(stored["accessToken"], stored["refreshToken"], 1, received, lifetime)
        return Credentials(stored["accessToken"], stored["refreshToken"], 1)

    def _restore_validated(self, stored, credentials, generation):
        if not self._restoring(generation):
            return
        self.active = {"account": stored["account"], "session_id": stored["sessionID"], "credentials": credentials}
        self.operation = None
        self._fire("restore-validated", stored["account"], "storedSessionValidated")
        self._arm_refresh_timer()
        waiters, self.restore_waiters = self.restore_waiters, []
        for waiter in waiters:
            self._resolve(waiter, self._ticket())
        settle, self.settle_waiters = self.settle_waiters, []
        for waiter in settle:
            self._resolve(waiter, None)

    async def _finish_interrupted_end(self, record):
        """An end a killed process (or a failed clear) left unfinished is finished before the stored session
        is trusted: its credentials dropped, its refresh token queued for revocation, its account's cache cleared
        (a later session of that account must not show it while restoring, nor another account ever)."""
        text = await self.effects.preference_get(END_MARKER_KEY)
        try:
            marker = json.loads(text) if text else None
        except ValueError:
            marker = None
        if not isinstance(marker, dict):
            return record
        self.log("notice", f"restore.finishing-interrupted-end account={marker.get('account')}")
        active, durable = record["active"], True
        if active is not None and active["sessionID"] == marker.get("sessionID"):
            revoke = active["refreshToken"] if marker.get("revoke") else None
            # Not durable yet when this fails too: the note stays, and the vault writes the end with its next
            # write that succeeds. This launch does not restore the session either way.
            durable = await self.vault.end(active["sessionID"], active["account"], revoke) == "committed"
            record = copy.deepcopy(record)
            record["active"] = None
        if isinstance(marker.get("account"), str) and not await self.cache.clear(marker["account"]):
            durable = False  # the note stays for the next launch
        if durable:
            await self.effects.preference_delete(END_MARKER_KEY)
        return record

    async def _end_restore(self, reason, failure, revoke, generation):
        if not self._restoring(generation):
            return
        stored = self.stored
        # A sign-out the user asked for while restoring is that sign-out, not a failed restore.
        self._hold_emissions()
        self._fire("restore-sign-out" if reason == "signOutRequested" else "restore-failed",
                   stored and stored["account"], reason)
        waiters, self.restore_waiters = self.restore_waiters, []
        settle, self.settle_waiters = self.settle_waiters, []
        await self._finish(account=stored and stored["account"], session_id=stored and stored["sessionID"],
                           revoke=stored["refreshToken"] if (revoke and stored) else None,
                           waiters=waiters, error=SessionError("sessionEnded", f"restore ended: {reason}", failure),
                           prompt=True)
        for waiter in settle:
            self._resolve(waiter, None)

    # ------------------------------------------------------------------ requests

    async def fetch(self, resource):
        if not resource or resource[0] == "." or len(resource) > 128 or not all(
                c.isascii() and (c.isalnum() or c in "._-") for c in resource):
            raise SessionError("invalidInput", "resource names are [A-Za-z0-9._-]+")
        provisional = await self._provisional_content(resource)
        if provisional is not None:
            return provisional
        ticket = await self._admit(self._request_admission)
        retried = False
        while True:
            outcome = await self._send(resource, ticket)
            if outcome is None:
                raise SessionError("sessionEnded", "the session ended while the request was in flight")
            if outcome[0] == "content":
                return await self._deliver(outcome[1], resource, ticket, from_network=True)
            if not self._is_current(ticket):
                self.log("notice", f"response.stale-discarded resource={resource}")
                raise SessionError("sessionChanged", "the response belonged to an older session and was discarded")
            if outcome[0] == "unauthorized":
                if self.refresh_mode == "expiry-only":
                    raise SessionError("unauthorized", "the server refused the access token; this client refreshes only from expiry")
                if retried:
                    raise SessionError("unauthorized", "refused again after one retry with a fresh token")
                retried = True
                rejected = ticket
                ticket = await self._admit(lambda waiter: self._unauthorized(rejected, waiter))
                continue
            if outcome[0] == "forbidden":
                raise SessionError("forbidden")
            if outcome[0] == "notFound":
                raise SessionError("notFound")
            failure = outcome[1]
            if failure in CONNECTIVITY and resource in OFFLINE_RESOURCES:
                cached = await self.cache.lookup(resource, ticket.account)
                if cached is not None:
                    return await self._deliver(cached, resource, ticket, from_network=False)
            code = {"serverError": "serverError", "rateLimited": "serverError", "cancelled": "cancelled",
                    "unexpectedResponse": "invalidResponse"}.get(failure, "transportFailure")
            raise SessionError(code, "request failed", failure)

    async def _admit(self, enqueue):
        """Waits until the machine admits the caller: a Ticket, or a SessionError raised."""
        waiter = self.effects.future()
        enqueue(waiter)
        result = await waiter
        if isinstance(result, SessionError):
            raise result
        return result

    def _request_admission(self, waiter):
        if self.phase == "restoring":
            if not self.launched:
                self._resolve(waiter, SessionError("notLaunched", "launch first"))
            else:
                self.restore_waiters.append(waiter)
        elif self.phase == "authenticated":
            # Expiry-only knows no other trigger, so a pair of unknown lifetime (restored) is due at once.
            if not self.active["credentials"].needs_refresh(self.effects.monotonic,
                                                            unknown_is_due=self.refresh_mode == "expiry-only"):
                self._resolve(waiter, self._ticket())
            else:
                self._join_or_start_refresh(waiter, "accessTokenExpiring")
        elif self.phase == "refreshing":
            self.operation.waiters.append(waiter)
        else:
            self._resolve(waiter, SessionError("notAuthenticated", "no session"))

    def _unauthorized(self, ticket, waiter):
        """A request sent with `ticket` got 401: retry with a newer token if there is one (no refresh),
        else join or start the account's single refresh."""
        if ticket.generation != self.generation or self.phase not in ("authenticated", "refreshing") \
                or self.active["account"] != ticket.account:
            self._resolve(waiter, SessionError("sessionChanged", "response of an older session discarded"))
        elif self.phase == "refreshing":
            self.operation.waiters.append(waiter)
        elif self.active["credentials"].version != ticket.version:
            self._resolve(waiter, self._ticket())
        else:
            self._join_or_start_refresh(waiter, "accessTokenRejected")

    def _join_or_start_refresh(self, waiter, reason):
        """In `authenticated`: join the refresh that is backing off, or start the one refresh."""
        if self.operation is None:
            self._start_refresh(reason)
        self.operation.waiters.append(waiter)

    def _start_refresh(self, reason):
        self._fire("refresh-started", self.active["account"], reason)
        self.operation = RefreshOperation(self.next_operation)
        self.next_operation += 1
        self.effects.spawn(self._run_refresh(self.operation.id))

    # ------------------------------------------------------------------ the proactive timer

    def _arm_refresh_timer(self):
        """`proactive`: (re)arms the timer for the current pair; cancels it when there is nothing to time (no
        session, the app in the background, a pair of unknown or very short lifetime)."""
        if self.refresh_timer is None:
            return
        self.refresh_timer.cancel()
        if self.phase != "authenticated" or self.in_background:
            return
        credentials = self.active["credentials"]
        lifetime = credentials.lifetime()
        if lifetime is None or lifetime < PROACTIVE_MINIMUM_LIFETIME:
            return
        seconds = round(max(credentials.refresh_due - self.effects.monotonic, 0.0), 3)
        self.log("info", f"refresh.timer-armed seconds={seconds}")
        self.refresh_timer.arm(seconds, self.generation, credentials.version)

    def _refresh_due(self, generation, version):
        """The timer fired: start the one refresh, unless the pair it was armed for is gone, or a refresh is
        already in flight or backing off (it renews the pair anyway)."""
        if generation != self.generation or self.phase != "authenticated" or self.operation is not None \
                or self.active["credentials"].version != version:
            return
        self.log("info", "refresh.due-by-timer")
        self._start_refresh("accessTokenExpiring")

    async def _send(self, resource, ticket):
        """Sends the request; None when its session ended while it was in flight (it is then cancelled)."""
        if not self._is_current(ticket):
            return None
        request_id, self.next_request = self.next_request, self.next_request + 1
        waiter = self.effects.future()
        self.in_flight[request_id] = (ticket.generation, waiter)

        async def call():
            outcome = await self.api.resource(resource, ticket.access)
            entry = self.in_flight.pop(request_id, None)
            if entry is not None:
                self._resolve(entry[1], outcome)

        self.effects.spawn(call())
        return await waiter

    def _cancel_stale_in_flight(self):
        stale = sorted(key for key, (generation, _) in self.in_flight.items() if generation != self.generation)
        for key in stale:
            self._resolve(self.in_flight.pop(key)[1], None)
        return len(stale)

    async def _deliver(self, body, resource, ticket, from_network):
        """Shows content only if its generation is still current, then caches it under its account."""
        if not self._is_current(ticket):
            self.log("notice", f"response.stale-discarded resource={resource}")
            raise SessionError("sessionChanged", "the response belonged to an older session and was discarded")
        content_id = body.get("contentId") if isinstance(body, dict) else None
        self.effects.show_content(resource, ticket.account, ticket.generation, content_id)
        if from_network:
            await self.cache.store(body, resource, ticket.account, ticket.generation)
        return {"resource": resource, "account": ticket.account, "contentId": content_id}

    async def _provisional_content(self, resource):
        """While restoring, only what the declared offline policy names may show, and only the stored
        account's own cache."""
        if resource not in OFFLINE_RESOURCES or self.phase != "restoring" or self.stored is None:
            return None
        account, generation = self.stored["account"], self.generation
        body = await self.cache.lookup(resource, account)
        if body is None or not self._restoring(generation) or self.stored["account"] != account:
            return None
        content_id = body.get("contentId") if isinstance(body, dict) else None
        self.effects.show_content(resource, account, generation, content_id)
        return {"resource": resource, "account": account, "contentId": content_id}

    # ------------------------------------------------------------------ the single refresh

    def _operation_current(self, operation_id):
        return self.operation is not None and self.operation.id == operation_id and \
            self.phase in ("authenticated", "refreshing")

    async def _run_refresh(self, operation_id):
        while True:
            if not self._operation_current(operation_id):
                return
            operation = self.operation
            if self.phase == "authenticated":  # a backoff ended: try again
                self._fire("refresh-started", self.active["account"], "retryAfterBackoff")
            if operation.unpersisted is not None:
                failure = await self._persist(operation)
            else:
                self.log("info", f"refresh.sent operation={operation_id}")
                outcome = await self.api.refresh(self.active["credentials"].refresh)
                if not self._operation_current(operation_id) or self.phase != "refreshing":
                    self.log("notice", f"refresh.stale-result-discarded operation={operation_id}")
                    return
                if outcome[0] == "granted":
                    grant, old = outcome[1], self.active["credentials"]
                    # From here the old refresh token is rotated: it is never sent again.
                    operation.unpersisted = Credentials(grant["access"], grant["refresh"] or old.refresh,
                                                        old.version + 1, self.effects.monotonic, grant["expires_in"])
                    failure = await self._persist(operation)
                elif outcome[0] == "rejected":
                    await self._refresh_rejected(operation, outcome[1])
                    return
                else:
                    failure = outcome[1]
            if failure is None:
                return
            # Retryable: keep the session, fail this attempt's waiters, back off, try again (bounded).
            if not self._operation_current(operation_id):
                return
            self._fire("refresh-deferred", self.active["account"], failure)
            operation.failed_attempts += 1
            waiters, operation.waiters = operation.waiters, []
            retry = operation.unpersisted is not None or (
                failure in RETRYABLE and REFRESH_BACKOFF.allows_retry(operation.failed_attempts))
            self.operation = operation if retry else None
            for waiter in waiters:
                self._resolve(waiter, SessionError("refreshUnavailable", "refresh deferred; the session is kept", failure))
            if not retry:
                self.log("notice", f"refresh.retries-exhausted operation={operation_id} failureClass={failure}")
                return
            sleeper = self.effects.sleep(REFRESH_BACKOFF.delay(operation.failed_attempts, self.random.unit()))
            operation.wake = sleeper.wake
            await sleeper
            operation.wake = None

    async def _persist(self, operation):
        """Writes the new pair as one item; only then are the waiters resumed with it (persist before use).
        Returns the failure to defer on, or None when the operation is over."""
        active, fresh = self.active, operation.unpersisted
        session = self._stored_session(active["session_id"], active["account"], fresh)

        def set_active(record):
            record["active"] = session

        result = await self.vault.commit(set_active, self.generation)
        if result == "stale" or not self._operation_current(operation.id):
            self.log("notice", f"refresh.stale-result-discarded operation={operation.id}")
            return None
        if result != "committed":
            self.log("warning", f"refresh.persist-failed operation={operation.id} failureClass={result}")
            return result
        active["credentials"] = fresh
        self.operation = None
        self._fire("refresh-succeeded", active["account"], "tokensRotated")
        self._arm_refresh_timer()
        ticket = self._ticket()
        for waiter in operation.waiters:
            self._resolve(waiter, ticket)
        return None

    async def _refresh_rejected(self, operation, failure):
        """Explicit rejection: one transition ends the session; everything pending is cancelled with it."""
        active = self.active
        self._hold_emissions()
        self._fire("refresh-rejected", active["account"], failure)
        self.active = self.operation = None
        await self._finish(account=active["account"], session_id=active["session_id"], revoke=None,
                           waiters=operation.waiters,
                           error=SessionError("sessionEnded", "the server rejected the session", failure), prompt=True)

    # ------------------------------------------------------------------ sign-in, switch, sign-out

    @staticmethod
    def _validate_input(email, password):
        local, at, domain = email.partition("@")
        labels = domain.split(".")
        plausible = (at and local and "@" not in domain and len(email) <= 254 and not any(c.isspace() for c in email)
                     and len(labels) >= 2 and all(labels) and all(c.isalnum() or c == "-" for c in "".join(labels)))
        if not plausible:
            raise SessionError("invalidInput", "email is not a valid address")
        if len(password) < MINIMUM_PASSWORD_LENGTH:
            raise SessionError("invalidInput", f"password must be at least {MINIMUM_PASSWORD_LENGTH} characters")

    def _begin_sign_in(self):
        if self.phase == "signedOut":
            self._fire("sign-in-started", None, "userSignIn")
            self.signing_in_generation = self.generation
            return self.generation
        raise SessionError({"signingIn": "signInInProgress", "restoring": "restoreInProgress"}.get(self.phase, "alreadySignedIn"))

    async def sign_in(self, email, password):
        self._validate_input(email, password)
        return await self._complete_sign_in(self._begin_sign_in(), email, password)

    async def switch_account(self, email, password):
        self._validate_input(email, password)
        if self.phase in ("authenticated", "refreshing"):
            active, operation = self.active, self.operation
            self._hold_emissions()
            if self.phase == "authenticated":
                self._fire("account-switch", active["account"], "switchingAccount")
            else:
                self._fire("switch-during-refresh", active["account"], "switchingAccount")
            self.signing_in_generation = self.generation
            self.active = self.operation = None
            pending = operation.unpersisted.refresh if operation and operation.unpersisted else None
            await self._finish(account=active["account"], session_id=active["session_id"],
                               revoke=pending or active["credentials"].refresh,
                               waiters=operation.waiters if operation else [],
                               error=SessionError("sessionEnded", "switched account"), prompt=False)
            generation = self.signing_in_generation
        else:
            generation = self._begin_sign_in()
        return await self._complete_sign_in(generation, email, password)

    def _signing_in(self, generation):
        return self.phase == "signingIn" and self.signing_in_generation == generation == self.generation

    def _sign_in_failed(self, generation, reason, failure, code):
        if self._signing_in(generation):
            self._fire("sign-in-failed", None, reason)
        return SessionError(code, "sign-in failed", failure)

    async def _complete_sign_in(self, generation, email, password):
        outcome = await self.api.login(email, password)
        if outcome[0] == "invalidCredentials":
            raise self._sign_in_failed(generation, "invalidCredentials", "invalidCredentials", "invalidCredentials")
        if outcome[0] == "failed":
            raise self._sign_in_failed(generation, "signInFailed", outcome[1], "transportFailure")
        grant = outcome[1]
        if not self._signing_in(generation):
            # Superseded: the server's new session is never stored or used, and its refresh token is revoked.
            await self._revoke_orphan(grant)
            raise SessionError("sessionChanged", "sign-in superseded")
        account = grant["account"]
        credentials = Credentials(grant["access"], grant["refresh"], 1, self.effects.monotonic, grant["expires_in"])
        session = self._stored_session(f"s-{self.random.next():x}{self.random.next():x}", account, credentials)

        def set_active(record):
            record["active"] = session

        result = await self.vault.commit(set_active, generation)
        if result == "stale":
            raise SessionError("sessionChanged", "sign-in superseded")
        if result != "committed":
            raise self._sign_in_failed(generation, "signInFailed", result, "storageUnavailable")
        profile = await self.api.profile(credentials.access)
        if profile[0] == "profile" and profile[1] == account:
            if not self._signing_in(generation):
                # Stored before the user signed out: drop the pair and revoke it remotely.
                await self.vault.end(session["sessionID"], account, session["refreshToken"])
                self.revocations.kick()
                raise SessionError("sessionChanged", "sign-in superseded")
            self.active = {"account": account, "session_id": session["sessionID"], "credentials": credentials}
            self.operation = None
            self._fire("sign-in-succeeded", account, "credentialsAccepted")
            self._arm_refresh_timer()
            return account
        # Stored but not usable: drop the pair and revoke it remotely.
        failure = profile[1] if profile[0] == "failed" else "unexpectedResponse"
        await self.vault.end(session["sessionID"], account, session["refreshToken"])
        self.revocations.kick()
        raise self._sign_in_failed(generation, "signInFailed", failure, "transportFailure")

    async def _revoke_orphan(self, grant):
        """Queues the revocation of a session the server granted after its sign-in was superseded."""
        await self.vault.end(None, grant["account"], grant["refresh"])
        self.revocations.kick()

    async def sign_out(self):
        """Blocks new authenticated requests and cancels pending ones at once, clears credentials and the
        account's cache, and revokes the refresh token remotely (queued in secure storage when offline)."""
        if self.phase in ("authenticated", "refreshing"):
            active, operation = self.active, self.operation
            self._hold_emissions()
            self._fire("sign-out" if self.phase == "authenticated" else "sign-out-during-refresh",
                       active["account"], "userSignedOut")
            self.active = self.operation = None
            pending = operation.unpersisted.refresh if operation and operation.unpersisted else None
            await self._finish(account=active["account"], session_id=active["session_id"],
                               revoke=pending or active["credentials"].refresh,
                               waiters=operation.waiters if operation else [],
                               error=SessionError("sessionEnded", "signed out"), prompt=True)
        elif self.phase == "restoring" and self.stored is not None:
            await self._end_restore("signOutRequested", None, revoke=True, generation=self.generation)
        elif self.phase == "signingIn":
            # The sign-in in flight belongs to the generation this ends: its late result is discarded.
            self._hold_emissions()
            self._fire("sign-in-cancelled", None, "userSignedOut")
            await self._finish(account=None, session_id=None, revoke=None, waiters=[],
                               error=SessionError("sessionEnded", "signed out"), prompt=True)
        else:
            self.log("info", f"signout.ignored phase={self.phase}")

    async def _finish(self, account, session_id, revoke, waiters, error, prompt):
        """Carries out a session end the machine already decided (the generation moved on, so nothing in
        flight can write back): fail the waiters, cancel what is in flight, clear credentials (queuing the
        revocation in the same write), clear the account's cache, then prompt once."""
        for waiter in waiters:
            self._resolve(waiter, error)
        cancelled = len(waiters) + self._cancel_stale_in_flight()
        if cancelled:
            self.log("info", f"requests.cancelled count={cancelled} code={error.code}")
        self._wake_all()
        # Durable before told: a note in preferences, then the record. A process killed before the note lands
        # restarts in the session as it was; one killed after it finishes the end at the next launch. A clear
        # that fails keeps the note, and the vault keeps the end: the next write that succeeds (a sign-in's, say)
        # carries it and drops the note.
        durable = True
        if session_id is not None and account is not None:
            marker = json.dumps({"sessionID": session_id, "account": account, "revoke": revoke is not None}, sort_keys=True)
            await self.effects.preference_set(END_MARKER_KEY, marker)
            result = await self.vault.end(session_id, account, revoke)
            if result == "storageUnavailable":  # not the lock state: maybe transient, try once more now
                result = await self.vault.end(session_id, account, revoke)
            if result != "committed":
                durable = False
                self.log("warning", f"storage.clear-failed failureClass={result}")
        held, self.held_emissions = self.held_emissions or [], None
        for emission in held:
            self._tell(emission)
        if account is not None and not await self.cache.clear(account):
            # The note must outlive this process so the next launch clears the account's cache again: written
            # again here, since the write at the start may have been refused too.
            durable = False
            self.log("warning", "cache.clear-failed")
            if session_id is not None:
                await self.effects.preference_set(END_MARKER_KEY, marker)
        if session_id is not None and account is not None and durable:
            await self.effects.preference_delete(END_MARKER_KEY)
        if prompt:
            self.effects.show_sign_in_prompt()
        if revoke is not None:
            self.revocations.kick()

    # ------------------------------------------------------------------ background and signals

    async def background_refresh(self):
        """Renews tokens about to expire (or of unknown expiry); joins a refresh in flight; never signs out
        except on an explicit rejection."""
        if self.phase == "restoring":
            return "deferred"
        if self.phase in ("signingIn", "signedOut"):
            return "notSignedIn"
        if self.phase == "authenticated" and self.operation is None and \
                not self.active["credentials"].needs_background_refresh(self.effects.monotonic):
            return "notNeeded"
        try:
            await self._admit(self._background_admission)
            return "refreshed"
        except SessionError as error:
            return {"sessionEnded": "sessionEnded", "notAuthenticated": "notSignedIn"}.get(error.code, "deferred")

    def _background_admission(self, waiter):
        if self.phase == "refreshing":
            self.operation.waiters.append(waiter)
        elif self.phase == "authenticated":
            self._join_or_start_refresh(waiter, "backgroundRefresh")
        else:
            self._resolve(waiter, SessionError("notAuthenticated", "no session"))

    def _wake_deferred_work(self):
        """Unlock, network back or foreground: retry what waits out a backoff now."""
        if self.restore_wake is not None:
            self.restore_wake()
        if self.phase == "authenticated" and self.operation is not None and self.operation.wake is not None:
            self.operation.wake()
        self.revocations.kick()

    def _wake_all(self):
        """Ends every backoff wait of the session: the work behind them is stale now."""
        if self.refresh_timer is not None:
            self.refresh_timer.cancel()
        if self.restore_wake is not None:
            self.restore_wake()
