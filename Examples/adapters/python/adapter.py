#!/usr/bin/env python3
"""The example Python session client (session_client.py) behind adapter protocol v1: glue on the Python kit.

The protocol host (JSON Lines, barriers answered when the asyncio loop is idle, effects as awaitables, the deadline
race with `abandon`, loopback HTTP counting, `reset` and `fork`) is `session_conformance_kit` (kits/python). This
file only says who the client is and how the options choose its mode. Run it from the repository root:

    session-conformance run --adapter "python3 Examples/adapters/python/adapter.py"

Options: the kit's (`--http loopback`, `--http-library`, `--request-timeout SECONDS`, `--no-fork`; see the kit's
README) and the client's: `--refresh MODE` chooses what starts its refreshes (`REFRESH_MODES`: `before-use`, the
default; `proactive`, also a timer of its own, declaring its `refreshTriggers`; `expiry-only`, a measuring stick),
and `--declare-triggers` makes `before-use` and `expiry-only` declare their triggers too.

It runs from a clean checkout: the installed kit when there is one, else the checkout's kits/python/src.
"""

import argparse
import os
import sys

try:
    import session_conformance_kit as kit
except ImportError:  # not installed: the checkout's copy, found from this file
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "kits", "python", "src"))
    import session_conformance_kit as kit

from session_client import CAPABILITIES, IMPLEMENTATION, OFFLINE_RESOURCES, REFRESH_MODES, SessionClient


def configure(argv=None):
    """The client factory and the kit's settings for these command-line options."""
    parser = argparse.ArgumentParser(description="The example Python session client, on session-conformance-kit")
    kit.add_arguments(parser)
    parser.add_argument("--refresh", choices=sorted(REFRESH_MODES), default="before-use")
    parser.add_argument("--declare-triggers", action="store_true")
    arguments = parser.parse_args(argv)
    mode = arguments.refresh
    implementation = IMPLEMENTATION if mode == "before-use" else dict(IMPLEMENTATION, name=f"{IMPLEMENTATION['name']} ({mode})")
    declare = arguments.declare_triggers or mode == "proactive"
    settings = kit.Settings(implementation=implementation, capabilities=CAPABILITIES,
                            offline_policy={"cachedResources": OFFLINE_RESOURCES},
                            refresh_triggers=REFRESH_MODES[mode] if declare else None,
                            rehearsal=kit.STANDARD_REHEARSAL)
    return (lambda effects: SessionClient(effects, refresh_mode=mode)), kit.apply_arguments(settings, arguments)


def main(argv=None):
    kit.run(*configure(argv))


if __name__ == "__main__":
    main()
