"""session-conformance-kit: the protocol host of a session-conformance adapter, in Python.

The kit speaks adapter protocol v1 (docs/adapter-protocol.md) on stdin/stdout; your client is written against
`Effects` (HTTP, secure storage, preferences, sleeps, clock readings, events), and the adapter is glue:

    import session_conformance_kit as kit

    class Client:
        def __init__(self, effects):          # built at every `welcome`
            self.effects = effects
        async def perform(self, command):     # each runner command; the return value is the result's content
            ...

    kit.run(Client, kit.Settings(implementation={"name": "my-client", "version": "1.0"}))

The kit's major version is the protocol version it speaks: 1.x speaks v1.
"""

from .host import (CAUSE, PROTOCOL_VERSION, CommandError, Effects, Host, ProtocolError, Rehearsal, Settings, Sleep,
                   parse, runner_lines, serve)
from .process import STANDARD_REHEARSAL, add_arguments, apply_arguments, rehearse, run, zygote

__version__ = "1.0.0"

__all__ = [
    "CAUSE", "PROTOCOL_VERSION", "STANDARD_REHEARSAL", "CommandError", "Effects", "Host", "ProtocolError", "Rehearsal",
    "Settings", "Sleep", "__version__", "add_arguments", "apply_arguments", "parse", "rehearse", "run",
    "runner_lines", "serve", "zygote",
]
