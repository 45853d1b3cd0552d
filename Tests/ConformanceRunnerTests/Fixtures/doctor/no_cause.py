"""The Python example adapter, changed in one way: its `http` effects name no `cause`, so the runner cannot tell which
command a request serves."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "Examples", "adapters", "python"))

import adapter  # noqa: E402 - the example's glue; it makes its kit importable
from session_conformance_kit import Host  # noqa: E402 - the host the glue runs on

send = Host.send


def send_without_cause(self, message):
    if message.get("type") == "http":
        message = {key: value for key, value in message.items() if key != "cause"}
    send(self, message)


Host.send = send_without_cause
adapter.main()
