"""The Python example adapter, changed in one way: just before it answers a command, it writes a long log, then the
access token its last sign-in got, to stderr. Its last answer of a case is then preceded by a token in its log, which the runner must
read before it judges the case, however late its stderr reader runs."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..",
                                "Examples", "adapters", "python"))

import adapter  # noqa: E402 - the example's glue; it makes its kit importable
from session_conformance_kit import Host  # noqa: E402 - the host the glue runs on

handle, send = Host.handle, Host.send


def handle_remembering_tokens(self, message):
    body = (message.get("response") or {}).get("body") if message.get("type") == "reply" else None
    if isinstance(body, dict) and "access_token" in body:
        self.signed_in_with = body["access_token"]
    handle(self, message)


def send_logging_token(self, message):
    if message.get("type") == "result" and getattr(self, "signed_in_with", None):
        # A long log first (more than a pipe holds), so its end is still in the pipe when the answer is read.
        sys.stderr.write("." * 100_000 + f"\nanswering {message['id']} signed in with {self.signed_in_with}\n")
        sys.stderr.flush()
    send(self, message)


Host.handle, Host.send = handle_remembering_tokens, send_logging_token
adapter.main()
