#!/usr/bin/env bash
# Runs each example adapter through `session-conformance doctor` (it must find no problem), then against the
# suite, and compares its verdicts with the expected.yaml beside it:
# the requirements expected not to pass (fail, warn for a SHOULD, or untested), each with a reason, in the
# expected-failures format of `session-conformance run --expected-failures`. Fails when any verdict changed:
# a requirement that newly fails, one expected to fail that passes, or any case that errors (crash, hang,
# broken protocol), which is never expected.
#
#   Examples/adapters/check.sh                   # all of them
#   Examples/adapters/check.sh python java       # some
#
# swift-urlsession is its own Swift package beside the suite's; it is built here (swift build, once per run)
# before it runs.
# python-loopback is the Python example in loopback mode (real HTTP through urllib): the same client, so the
# same verdicts as in message mode, from the same expected.yaml. python-proactive is the same client refreshing
# ahead of expiry on a timer of its own too (--refresh proactive): the same verdicts again, from the same
# expected.yaml. python-no-fork runs the client in the adapter's own process (every kill a new process), the
# same verdicts again. In loopback mode the Python example follows the world profile the runner's
# welcome names, so it runs under the loopback default, rfc6749; javascript, java and swift-urlsession speak
# the json-v1 endpoints they were written for, so they run with --world json-v1.
#   SESSION_CONFORMANCE=path/to/binary Examples/adapters/check.sh
#
# NAME-timeout-SECONDS (python-timeout-5, javascript-timeout-60, python-loopback-timeout-10, ...) is that adapter
# with a deadline of SECONDS on every HTTP request (--request-timeout, the same option in every example;
# docs/porting-guide.md, Real-time waits): the request timeouts real stacks have (httpx 5 s, OkHttp 10 s,
# URLSession 60 s), on the runner's virtual clock. Compared with the same expected.yaml: a deadline changes no
# verdict, except where an entry says it does. An entry whose failure the deadline itself cures carries the
# comment line `# not with --request-timeout: WHY` (before its reason); check.sh and
# scripts/explore-examples.py then expect it to pass in these modes. `timeouts` runs every example with each of
# 5, 10 and 60; `all` runs the default list and `timeouts`.
#
# Needs: python3; node and Debian's node-axios (javascript); a JDK and libokhttp-java (java); a JDK and
# libgoogle-oauth-client-java (java-google-oauth); the Swift toolchain (swift-urlsession).
set -euo pipefail
cd "$(dirname "$0")/../.."

binary=${SESSION_CONFORMANCE:-.build/debug/session-conformance}
[ -x "$binary" ] || { echo "check: $binary not found; build first (swift build) or set SESSION_CONFORMANCE" >&2; exit 2; }

# The request timeout of a NAME-timeout-SECONDS mode; empty for the others.
request_timeout() {
    case "$1" in
        *-timeout-*) echo "${1##*-timeout-}" ;;
        *) echo "" ;;
    esac
}

# The adapter a mode runs: NAME-timeout-SECONDS is NAME's.
base_adapter() {
    echo "${1%-timeout-*}"
}

adapter_command() {
    local timeout
    timeout=$(request_timeout "$1")
    case "$timeout" in
        '') [[ "$1" != *-timeout-* ]] || { echo "check: '$1': the request timeout is missing" >&2; exit 2; } ;;
        *[!0-9.]*|.|*.*.*) echo "check: '$1': the request timeout must be a number of seconds" >&2; exit 2 ;;
    esac
    set -- "$(base_adapter "$1")" "$1"
    local command
    case "$1" in
        python) command="python3 Examples/adapters/python/adapter.py" ;;
        python-loopback) command="python3 Examples/adapters/python/adapter.py --http loopback" ;;
        python-proactive) command="python3 Examples/adapters/python/adapter.py --refresh proactive" ;;
        python-no-fork) command="python3 Examples/adapters/python/adapter.py --no-fork" ;;
        javascript) command="NODE_PATH=/usr/share/nodejs node Examples/adapters/javascript/adapter.js" ;;
        java) command="Examples/adapters/java/run.sh" ;;
        java-google-oauth) command="Examples/adapters/java-google-oauth/run.sh" ;;
        swift-urlsession)
            if [ -z "${swift_urlsession_built:-}" ]; then
                swift build --package-path Examples/adapters/swift-urlsession >&2 || { echo "check: swift-urlsession: the build failed" >&2; exit 2; }
            fi
            command="Examples/adapters/swift-urlsession/.build/debug/URLSessionAdapter" ;;
        *) echo "check: unknown adapter '$2' (python, python-loopback, python-proactive, python-no-fork, javascript, java, java-google-oauth, swift-urlsession, each also as NAME-timeout-SECONDS)" >&2; exit 2 ;;
    esac
    if [ -n "$timeout" ]; then
        [ "$1" != java-google-oauth ] || { echo "check: java-google-oauth has no --request-timeout yet" >&2; exit 2; }
        command="$command --request-timeout $timeout"
    fi
    echo "$command"
}

# The folder of an adapter's example (and its expected.yaml): python-loopback, python-proactive and python-no-fork
# are python; NAME-timeout-SECONDS is NAME's.
example_folder() {
    case "$(base_adapter "$1")" in
        python-*) echo "python" ;;
        *) base_adapter "$1" ;;
    esac
}

# The world profile an adapter is run under; empty: the runner's default.
adapter_world() {
    case "$(base_adapter "$1")" in
        javascript|java|swift-urlsession) echo "json-v1" ;;
        *) echo "" ;;
    esac
}

defaults=(python python-loopback python-proactive python-no-fork javascript java java-google-oauth swift-urlsession)
timeout_modes=()
for seconds in 5 10 60; do
    for example in python python-loopback javascript java swift-urlsession; do
        timeout_modes+=("$example-timeout-$seconds")
    done
done
adapters=()
for name in "$@"; do
    case "$name" in
        all) adapters+=("${defaults[@]}" "${timeout_modes[@]}") ;;
        timeouts) adapters+=("${timeout_modes[@]}") ;;
        *) adapters+=("$name") ;;
    esac
done
[ ${#adapters[@]} -gt 0 ] || adapters=("${defaults[@]}")
failed=0
for name in "${adapters[@]}"; do
    command=$(adapter_command "$name")
    [ "$(base_adapter "$name")" != swift-urlsession ] || swift_urlsession_built=1
    output=$(mktemp)
    started=$(date +%s)
    set +e
    # --timeout bounds each step, not the gap between lines: a thousand requests through a real HTTP stack
    # on a loaded 2-core machine need room, and a hang still ends the case. FoundationNetworking's URLSession
    # (libcurl) takes from 9 to 60 s for the thousand-request case on the 2-core machine, so it gets 300.
    timeout=60
    [ "$(base_adapter "$name")" = swift-urlsession ] && timeout=300
    world=$(adapter_world "$name")
    # doctor first: an adapter that breaks the protocol fails here with the fix, before any verdict is read.
    if ! "$binary" doctor --adapter "$command" --timeout "$timeout" ${world:+--world "$world"} >"$output" 2>&1; then
        echo "check: $name: doctor found a problem with the adapter:"
        cat "$output"
        failed=1
        rm -f "$output"
        continue
    fi
    echo "check: $name: doctor: $(tail -n 1 "$output")"
    "$binary" run --adapter "$command" --timeout "$timeout" ${world:+--world "$world"} --report "json=$output.json" >"$output" 2>&1
    status=$?
    set -e
    echo "check: $name: session-conformance exited $status after $(( $(date +%s) - started )) s"
    if ! python3 - "$output" "Examples/adapters/$(example_folder "$name")/expected.yaml" "$name" "$status" "$(request_timeout "$name")" <<'PY'
import json, re, sys
output, expected_path, name, status, request_timeout = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
text = open(output, encoding="utf-8").read()
verdicts = {m.group(3): m.group(1) for m in re.finditer(r"^(PASS|FAIL|WARN|ERROR|SKIPPED|UNTESTED|KNOWN|NOT ?TESTABLE)\s+(MUST|SHOULD|MAY|INFO\S*|SERVER)?\s*([A-Z][A-Z0-9-]+)\b", text, re.M)}
errors = re.findall(r"^ERROR case (\S+)", text, re.M)
if not verdicts:
    print(f"check: {name}: no verdicts in the output; its tail:\n" + text[-3000:])
    sys.exit(1)
expected = {}
current = None
for line in open(expected_path, encoding="utf-8"):
    m = re.match(r"\s*-\s*id:\s*(\S+)", line)
    if m:
        current = m.group(1)
        expected[current] = ""
        continue
    m = re.match(r"\s*#\s*not with --request-timeout:", line)
    if m and current and request_timeout:
        # The deadline cures this one: expected to pass in the NAME-timeout-SECONDS modes.
        del expected[current]
        current = None
        continue
    m = re.match(r"\s*reason:\s*(.*)", line)
    if m and current:
        expected[current] = m.group(1).strip()
# UNTESTED counts too: a requirement no case could exercise on this client is not a pass, and expected.yaml
# must say why (for example, a client that never refreshes on a 401 leaves the 401-only behaviours untested).
not_passing = {req for req, verdict in verdicts.items() if verdict in ("FAIL", "WARN", "ERROR", "KNOWN", "UNTESTED")}
problems = []
for req in sorted(not_passing - set(expected)):
    problems.append(f"  {req}: {verdicts[req]}, expected to pass")
for req in sorted(set(expected) - not_passing):
    problems.append(f"  {req}: {verdicts.get(req, 'absent')}, expected to fail ({expected[req]})")
for case in errors:
    problems.append(f"  case {case} errored (an error is never expected)")
if not expected and status != 0:
    problems.append(f"  session-conformance exited {status}; expected 0")
if problems:
    print(f"check: {name}: the verdicts changed ({expected_path}):")
    print("\n".join(problems))
    print(f"check: {name}: the run's output follows")
    print(text[-12000:])
    sys.exit(1)
print(f"check: {name}: {sum(v == 'PASS' for v in verdicts.values())} requirements pass; "
      f"{len(not_passing)} fail or warn, as expected.yaml says")
PY
    then
        failed=1
    fi
    rm -f "$output" "$output.json"
done
exit $failed
