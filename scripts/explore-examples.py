#!/usr/bin/env python3
"""Explores every example adapter with each request timeout and fails on a failure its expected.yaml does not list.

For each example and each value of --request-timeout (docs/porting-guide.md, Real-time waits), and each seed, it
runs `session-conformance explore --adapter "COMMAND --request-timeout T" --runs N --seed S` and reads the distinct
failures explore prints (`FAIL REQ, ... by oracle:NAME`, or `FAIL error:KIND`). A failure is expected when every
requirement it charges is listed in the example's expected.yaml, in the format Examples/adapters/check.sh reads
(an entry with the comment line `# not with --request-timeout: WHY` is not expected with a timeout), or in its
expected-explore.yaml, same format: what only exploration finds (`run` passes it, so expected.yaml, which
`run --expected-failures` reads too, cannot list it); an adapter
error (`error:hung`, `error:protocolViolation`, ...) never is. So a correct client (the Python example, whose
expected.yaml is empty) must show no failure at all: each one it shows is either a bug of the client or a false
alarm of the suite, and both must be seen.

    python3 scripts/explore-examples.py                                  # every example, 5 10 60, seed 1, 2000 runs
    python3 scripts/explore-examples.py --runs 200 --seeds 1 python javascript
    python3 scripts/explore-examples.py --timeouts none,5 --seeds 1,2,3 --out findings java

--out DIR keeps each exploration's output (EXAMPLE-tT-sS.txt) and its shrunk cases (EXAMPLE-tT-sS/cases/*.yaml,
each playable with `session-conformance run --spec-root DIR --seed S`); without it they go to a temporary folder,
removed at the end unless something failed. SESSION_CONFORMANCE (or --binary) names the binary, .build/debug/session-conformance by
default; a release build (`swift build -c release --product session-conformance`) is about three times faster.

Exit 0: no unexpected failure; 1: at least one (or an exploration that could not run); 2: usage.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The examples as Examples/adapters/check.sh runs them: the command, the world profile (None: the runner's
# default for the adapter's HTTP mode) and the folder of its expected.yaml. java-google-oauth has no
# --request-timeout yet.
EXAMPLES = {
    "python": ("python3 Examples/adapters/python/adapter.py", None, "python"),
    "python-loopback": ("python3 Examples/adapters/python/adapter.py --http loopback", None, "python"),
    "javascript": ("NODE_PATH=/usr/share/nodejs node Examples/adapters/javascript/adapter.js", "json-v1", "javascript"),
    "java": ("Examples/adapters/java/run.sh", "json-v1", "java"),
    "swift-urlsession": ("Examples/adapters/swift-urlsession/.build/debug/URLSessionAdapter", "json-v1", "swift-urlsession"),
}
DEFAULT_EXAMPLES = ["python", "python-loopback", "javascript", "java", "swift-urlsession"]

FAILURE = re.compile(r"^FAIL (.+)$")
FIELD = re.compile(r"^  (first run|replay|finding|shrunk|run it):\s+(.*)$")


def expected_failures(path, with_timeout):
    """The requirement IDs expected.yaml lists, less those marked `# not with --request-timeout` when with_timeout."""
    expected = set()
    current = None
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            match = re.match(r"\s*-\s*id:\s*(\S+)", line)
            if match:
                current = match.group(1)
                expected.add(current)
                continue
            if with_timeout and current and re.match(r"\s*#\s*not with --request-timeout:", line):
                expected.discard(current)
                current = None
    return expected


def failures_of(output):
    """The distinct failures of explore's summary: [{key, requirements, check, first run, replay, finding, ...}]."""
    failures = []
    for line in output.splitlines():
        match = FAILURE.match(line)
        if match:
            key = match.group(1)
            requirements, _, check = key.rpartition(" by ")
            failures.append({"key": key, "check": check or key,
                             "requirements": [r.strip() for r in requirements.split(",")] if requirements else []})
            continue
        match = FIELD.match(line)
        if match and failures:
            failures[-1][match.group(1)] = match.group(2)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("examples", nargs="*", metavar="EXAMPLE", help=f"of {', '.join(EXAMPLES)} (default: all)")
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--seeds", default="1", help="comma-separated, or a range such as 1-3 (default 1)")
    parser.add_argument("--timeouts", default="5,10,60",
                        help="request timeouts in seconds, comma-separated; 'none' runs without the option (default 5,10,60)")
    parser.add_argument("--jobs", type=int, default=1, help="explore's --jobs")
    parser.add_argument("--timeout", type=int, default=60, help="explore's --timeout: real seconds one step may take (default 60)")
    parser.add_argument("--binary", default=os.environ.get("SESSION_CONFORMANCE", ".build/debug/session-conformance"))
    parser.add_argument("--out", help="keep the outputs and shrunk cases here")
    parser.add_argument("--no-shrink", action="store_true", help="explore's --no-shrink: faster, with replay ids only")
    arguments = parser.parse_args()

    os.chdir(ROOT)
    examples = arguments.examples or DEFAULT_EXAMPLES
    unknown = [name for name in examples if name not in EXAMPLES]
    if unknown:
        parser.error(f"unknown example {', '.join(unknown)} (known: {', '.join(EXAMPLES)})")
    try:
        if re.fullmatch(r"\d+-\d+", arguments.seeds):
            first, last = map(int, arguments.seeds.split("-"))
            seeds = list(range(first, last + 1))
        else:
            seeds = [int(seed) for seed in arguments.seeds.split(",")]
        timeouts = [None if value == "none" else float(value) for value in arguments.timeouts.split(",")]
    except ValueError:
        parser.error("--seeds and --timeouts take numbers (and 'none' for a timeout)")
    if any(timeout is not None and not timeout > 0 for timeout in timeouts) or arguments.runs < 1 or not seeds:
        parser.error("timeouts must be positive, runs at least 1, and one seed at least")
    if not os.access(arguments.binary, os.X_OK):
        print(f"explore-examples: {arguments.binary} not found; build first (swift build) or set SESSION_CONFORMANCE",
              file=sys.stderr)
        return 2
    if "swift-urlsession" in examples:
        built = subprocess.run(["swift", "build", "--package-path", "Examples/adapters/swift-urlsession"], stdout=sys.stderr)
        if built.returncode != 0:
            print("explore-examples: swift-urlsession: the build failed", file=sys.stderr)
            return 1

    out = arguments.out or tempfile.mkdtemp(prefix="explore-examples-")
    os.makedirs(out, exist_ok=True)
    unexpected, problems, table = [], [], []
    try:
        for name in examples:
            command, world, folder = EXAMPLES[name]
            for timeout in timeouts:
                label = "none" if timeout is None else f"{timeout:g}"
                adapter = command if timeout is None else f"{command} --request-timeout {label}"
                expected = expected_failures(os.path.join("Examples/adapters", folder, "expected.yaml"), timeout is not None)
                beyond_run = os.path.join("Examples/adapters", folder, "expected-explore.yaml")
                if os.path.exists(beyond_run):
                    expected |= expected_failures(beyond_run, timeout is not None)
                runs = listed = 0
                for seed in seeds:
                    stem = os.path.join(out, f"{name}-t{label}-s{seed}")
                    line = [arguments.binary, "explore", "--adapter", adapter, "--runs", str(arguments.runs),
                            "--seed", str(seed), "--jobs", str(arguments.jobs), "--timeout", str(arguments.timeout),
                            "--shrink-dir", stem] + (["--world", world] if world else []) \
                        + (["--no-shrink"] if arguments.no_shrink else [])
                    started = time.monotonic()
                    done = subprocess.run(line, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                    with open(stem + ".txt", "w", encoding="utf-8") as log:
                        log.write(f"$ {shlex.join(line)}\n{done.stderr}\n{done.stdout}")
                    failures = failures_of(done.stdout)
                    news = [f for f in failures if not f["requirements"] or not set(f["requirements"]) <= expected]
                    runs += arguments.runs
                    listed += len(failures) - len(news)
                    verdict = (f"{len(failures)} distinct failure(s): {len(failures) - len(news)} in expected.yaml, "
                               f"{len(news)} new" if failures else "no failure")
                    print(f"explore-examples: {name} --request-timeout {label} seed {seed}: {verdict} "
                          f"(exit {done.returncode}, {time.monotonic() - started:.0f} s)", flush=True)
                    for failure in news:
                        unexpected.append((name, label, seed, failure))
                    if done.returncode not in (0, 1) or (done.returncode == 1 and not failures):
                        # Exit 1 with no failure: nothing signed in was explored; 2 or 3: usage, or no adapter.
                        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
                        problems.append(f"{name} --request-timeout {label} seed {seed}: exit {done.returncode}\n{tail}")
                table.append((name, label, runs, listed, sum(1 for u in unexpected if u[:2] == (name, label))))
    finally:
        print()
        print("| example | request timeout | runs | in expected.yaml | new |")
        print("| --- | --- | --- | --- | --- |")
        for name, label, runs, listed, news in table:
            print(f"| {name} | {label} | {runs} | {listed} | {news} |")
        for name, label, seed, failure in unexpected:
            print(f"\nNOT IN expected.yaml: {name} --request-timeout {label}, seed {seed}: FAIL {failure['key']}")
            for field in ("first run", "replay", "finding", "shrunk", "run it"):
                if field in failure:
                    print(f"  {field + ':':11}{failure[field]}")
        for problem in problems:
            print(f"\nCOULD NOT EXPLORE: {problem}")
        if arguments.out or unexpected or problems:
            print(f"\nexplore-examples: outputs and shrunk cases in {out}")
        else:
            shutil.rmtree(out, ignore_errors=True)
    return 1 if unexpected or problems else 0


if __name__ == "__main__":
    sys.exit(main())
