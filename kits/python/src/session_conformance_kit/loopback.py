"""Threads and loopback HTTP counting (docs/adapter-protocol.md, "Loopback HTTP").

A blocking call (an HTTP request through urllib, requests or httpx) runs on a thread of its own, a *job*. A job
is counted runnable from its start until it waits in a counted HTTP request, and again from that request's response
until its next request or its end. A request is counted started where the stack commits it to a connection (the
counting hooks below: urllib's handler, requests' transport adapter, httpx's transport), and finished when its
response arrived or its connection failed. A barrier is answered once the client has received every response the
runner sent (`httpAnswered`) and no job is runnable: every thread then either ended or waits for the runner, so its
answer's `httpStarted` counts every request the client started.

A tagged request (`X-Conformance-Request: r3`) the client abandoned is not counted finished when its connection
fails (the runner never answers it; its connection ends with the case): its job is detached, and its outcome
reaches nobody. A response that arrives for it is counted: the runner sent it before it read the abandon.
"""

import json
import threading

LIBRARIES = ("urllib", "requests", "httpx")
_current = threading.local()  # .job: the job this thread runs


class _Job:
    __slots__ = ("detached",)

    def __init__(self):
        self.detached = False


def decode(raw):
    """A response body as the runner's trace sees it: parsed JSON, else text, None when empty."""
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw


def encode(body):
    """A request body as bytes: JSON for a dict or list, UTF-8 for text, None for none."""
    if body is None:
        return None
    if isinstance(body, bytes):
        return body
    return body.encode() if isinstance(body, str) else json.dumps(body).encode()


class Loopback:
    """A host's jobs and HTTP counters. `started` is what the barrier answer reports as `httpStarted`."""

    def __init__(self, loop, library, cause):
        if library not in LIBRARIES:
            raise ValueError(f"unknown HTTP library {library!r} (urllib, requests, httpx)")
        self.loop = loop
        self.library = library
        self.cause = cause
        self.base_url = None
        self.started = 0
        self.finished = 0
        self._runnable = 0
        self._sequence = 0
        self._tags = 0
        self._condition = threading.Condition()
        self._completed = []  # (sequence, future, ok, value) of jobs ended since the last settle
        self._abandoned = set()
        self._clients = {}

    # -- Jobs (called on the loop's thread).

    def submit(self, function):
        """Runs `function` on a thread; returns the future of its result, resolved by `settle`."""
        future = self.loop.create_future()
        with self._condition:
            self._runnable += 1
            self._sequence += 1
            sequence = self._sequence
        import contextvars  # noqa: PLC0415

        context = contextvars.copy_context()

        def run():
            job = _current.job = _Job()
            try:
                ok, value = True, context.run(function)
            except BaseException as error:  # noqa: BLE001 - the awaiter gets it
                ok, value = False, error
            with self._condition:
                if job.detached:
                    return
                self._completed.append((sequence, future, ok, value))
                self._runnable -= 1
                self._condition.notify_all()

        threading.Thread(target=run, daemon=True).start()
        return future

    def settle(self, answered):
        """Waits until `answered` responses were received and no job is runnable, then resolves the futures of the
        jobs that ended, in the order they started. Returns whether it resolved any."""
        with self._condition:
            self._condition.wait_for(lambda: self.finished >= answered and self._runnable == 0)
            completed, self._completed = sorted(self._completed, key=lambda item: item[0]), []
        for _, future, ok, value in completed:
            if not future.done():
                if ok:
                    future.set_result(value)
                else:
                    future.set_exception(value)
        return bool(completed)

    def new_tag(self):
        with self._condition:
            self._tags += 1
            return f"r{self._tags}"

    def abandon(self, tag):
        """Marks a tagged request abandoned; returns whether the tag is one of this host's."""
        with self._condition:
            if not tag.startswith("r") or not tag[1:].isdigit() or not 0 < int(tag[1:]) <= self._tags \
                    or tag in self._abandoned:
                return False
            self._abandoned.add(tag)
            return True

    def close(self):
        for client in self._clients.values():
            try:
                client.close()
            except Exception:  # noqa: BLE001 - closing is best effort
                pass
        self._clients.clear()

    # -- Counting hooks (called on the job's thread, by the stacks' hooks below).

    def request_started(self, tag):
        job = getattr(_current, "job", None)
        with self._condition:
            if tag is not None and tag in self._abandoned:
                # Given up on before it left: never sent, never counted.
                if job is not None:
                    job.detached = True
                    self._runnable -= 1
                    self._condition.notify_all()
                raise ConnectionAbortedError("request abandoned before it started")
            self.started += 1
            if job is not None:
                self._runnable -= 1
            self._condition.notify_all()

    def request_finished(self, tag, answered):
        """`answered`: a response arrived (else the connection failed). A response always counts, even for a
        request abandoned meanwhile: the runner answered it before it read the abandon (the reply and the abandon
        crossed; the runner ignores the abandon and counts the response in `httpAnswered`). A failure of an abandoned
        request does not: the runner never answers it, and its connection ends when the case does."""
        job = getattr(_current, "job", None)
        with self._condition:
            if tag is not None and tag in self._abandoned and not answered:
                if job is not None:
                    job.detached = True
                return
            self.finished += 1
            if job is not None:
                self._runnable += 1
            self._condition.notify_all()

    def headers_for(self, headers):
        """`headers` with the cause of the current work added (`X-Conformance-Cause`), when it has one."""
        cause = self.cause.get()
        if cause is not None and not any(name.lower() == "x-conformance-cause" for name in headers):
            headers["X-Conformance-Cause"] = cause
        return headers

    # -- Clients.

    def urllib_opener(self):
        if "urllib" not in self._clients:
            import urllib.request  # noqa: PLC0415 - imported only when loopback HTTP is used

            self._clients["urllib"] = _Closeable(urllib.request.build_opener(
                urllib.request.ProxyHandler({}), _counting_urllib_handler(self)))
        return self._clients["urllib"].value

    def requests_session(self):
        if "requests" not in self._clients:
            import requests  # noqa: PLC0415

            session = requests.Session()
            session.trust_env = False
            adapter = _counting_requests_adapter(self)
            session.mount("http://", adapter)
            session.mount("https://", adapter)
            self._clients["requests"] = session
        return self._clients["requests"]

    def httpx_client(self):
        if "httpx" not in self._clients:
            import httpx  # noqa: PLC0415

            self._clients["httpx"] = httpx.Client(transport=_counting_httpx_transport(self), trust_env=False,
                                                  timeout=httpx.Timeout(None))
        return self._clients["httpx"]

    # -- Effects.http in loopback mode.

    def start_http(self, method, path, headers, body):
        """One request through the configured library, tagged; returns the tag and the future of its outcome:
        ("response", status, headers, body) or ("failure", "connectionLost", False) for a transport error (a reset
        connection: the outcome is unknown)."""
        tag = self.new_tag()
        request_headers = self.headers_for(dict(headers))
        request_headers["X-Conformance-Request"] = tag
        url, data = self.base_url + path, encode(body)
        exchange = {"urllib": self._urllib, "requests": self._requests, "httpx": self._httpx}[self.library]
        return tag, self.submit(lambda: exchange(method, url, request_headers, data))

    def _urllib(self, method, url, headers, data):
        import http.client  # noqa: PLC0415
        import urllib.error  # noqa: PLC0415
        import urllib.request  # noqa: PLC0415

        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self.urllib_opener().open(request) as response:
                return ("response", response.status, dict(response.headers), decode(response.read()))
        except urllib.error.HTTPError as error:
            return ("response", error.code, dict(error.headers), decode(error.read()))
        except (OSError, http.client.HTTPException):
            return ("failure", "connectionLost", False)

    def _requests(self, method, url, headers, data):
        import requests  # noqa: PLC0415

        try:
            response = self.requests_session().request(method, url, headers=headers, data=data,
                                                       allow_redirects=False)
            return ("response", response.status_code, dict(response.headers), decode(response.content))
        except (requests.RequestException, OSError):
            return ("failure", "connectionLost", False)

    def _httpx(self, method, url, headers, data):
        import httpx  # noqa: PLC0415

        try:
            response = self.httpx_client().request(method, url, headers=headers, content=data)
            return ("response", response.status_code, dict(response.headers), decode(response.content))
        except (httpx.HTTPError, OSError):
            return ("failure", "connectionLost", False)


class _Closeable:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def close(self):
        pass


def _counting_urllib_handler(loopback):
    import urllib.request  # noqa: PLC0415

    class CountingHTTPHandler(urllib.request.HTTPHandler):
        """Counts each attempt: started when it opens its connection, finished when the response's head arrived
        (the job reads its body next, counted runnable) or the connection failed."""

        def http_open(self, request):
            cause = loopback.cause.get()
            if cause is not None and not request.has_header("X-conformance-cause"):
                request.add_unredirected_header("X-conformance-cause", cause)
            tag = request.get_header("X-conformance-request")
            loopback.request_started(tag)
            try:
                response = super().http_open(request)
            except BaseException:
                loopback.request_finished(tag, False)
                raise
            loopback.request_finished(tag, True)
            return response

    return CountingHTTPHandler()


def _counting_requests_adapter(loopback):
    from requests.adapters import HTTPAdapter  # noqa: PLC0415

    class CountingAdapter(HTTPAdapter):
        """requests' transport adapter hook: one `send` per attempt (max_retries=0: urllib3 re-sends nothing)."""

        def send(self, request, **kwargs):
            loopback.headers_for(request.headers)
            tag = request.headers.get("X-Conformance-Request")
            loopback.request_started(tag)
            try:
                response = super().send(request, **kwargs)
            except BaseException:
                loopback.request_finished(tag, False)
                raise
            loopback.request_finished(tag, True)
            return response

    return CountingAdapter(max_retries=0)


def _counting_httpx_transport(loopback):
    import httpx  # noqa: PLC0415

    class CountingTransport(httpx.BaseTransport):
        """httpx's transport hook, around an `HTTPTransport(retries=0)`."""

        def __init__(self):
            self._inner = httpx.HTTPTransport(retries=0)

        def handle_request(self, request):
            cause = loopback.cause.get()
            if cause is not None and "x-conformance-cause" not in request.headers:
                request.headers["X-Conformance-Cause"] = cause
            tag = request.headers.get("X-Conformance-Request")
            loopback.request_started(tag)
            try:
                response = self._inner.handle_request(request)
            except BaseException:
                loopback.request_finished(tag, False)
                raise
            loopback.request_finished(tag, True)
            return response

        def close(self):
            self._inner.close()

    return CountingTransport()
