#!/usr/bin/env bash
# Tests the Python kit: its unit tests (from the checkout), then an install into a fresh venv, from which the kit
# must import and the example adapter must pass `session-conformance doctor` on the installed kit.
#
#   kits/python/test.sh                      # SESSION_CONFORMANCE=path/to/session-conformance to pick the CLI
#   SESSION_CONFORMANCE_REQUIRE_TOOLS=1 kits/python/test.sh   # requests, httpx and the CLI must be there (CI); else skipped
#
# Exits 0 when everything passed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.."
python=${PYTHON:-python3}
failed=0
step() { echo "test.sh: $*"; }

step "unit tests"
"$python" -m unittest discover -s kits/python/tests || failed=1

venv=$(mktemp -d "${TMPDIR:-/tmp}/kit-venv.XXXXXX")
trap 'rm -rf "$venv"' EXIT
step "install into a fresh venv ($venv)"
if "$python" -m venv "$venv" && "$venv/bin/pip" install --quiet --disable-pip-version-check ./kits/python; then
    # From outside the checkout, so that only the installed kit can be found.
    (cd "$venv" && bin/python -c 'import session_conformance_kit as kit, sys; assert kit.__version__ == "1.0.0"; assert kit.__file__.startswith(sys.prefix), kit.__file__; print("test.sh: imported", kit.__name__, kit.__version__, "from", kit.__file__)') || failed=1
    binary=${SESSION_CONFORMANCE:-}
    if [ -z "$binary" ]; then
        for candidate in .build/release/session-conformance .build/debug/session-conformance; do
            [ -x "$candidate" ] && { binary=$candidate; break; }
        done
    fi
    if [ -n "$binary" ] && [ -x "$binary" ]; then
        # The example imports the installed kit first: check that it did, then that doctor finds no problem.
        "$venv/bin/python" - <<'PY' || failed=1
import sys
sys.path.insert(0, "Examples/adapters/python")
import adapter  # noqa: E402
import session_conformance_kit as kit  # noqa: E402
assert kit.__file__.startswith(sys.prefix), f"the example imported {kit.__file__}, not the installed kit"
PY
        for mode in "" " --http loopback"; do
            output=$("$binary" doctor --adapter "$venv/bin/python Examples/adapters/python/adapter.py$mode" 2>&1)
            echo "$output" | tail -1
            echo "$output" | grep -q "doctor: 0 problems" || { echo "$output"; failed=1; }
        done
    else
        step "no session-conformance binary (build it, or set SESSION_CONFORMANCE): doctor not run"
        # Skipped, as the other kits do, unless every tool is required (CI).
        [ "${SESSION_CONFORMANCE_REQUIRE_TOOLS:-}" = 1 ] && failed=1
    fi
else
    step "the install failed"
    failed=1
fi

if [ "$failed" = 0 ]; then step "ok"; else step "FAILED"; fi
exit "$failed"
