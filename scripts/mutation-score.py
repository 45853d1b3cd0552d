#!/usr/bin/env python3
"""Mutation score of the suite over the Python example client, with cosmic-ray (docs/known-bad.md, Mutation score).

The Python example (Examples/adapters/python/session_client.py) is a complete, correct client of the design that the
suite did not grow up with. cosmic-ray (pinned: COSMIC_RAY below) makes its mutants, one small change each (an
operator, a constant, a comparison, a `not`), and this script plays the suite against each mutant as its test:

    1. session-conformance run --adapter "python3 adapter.py"                                   (every case)
    2. session-conformance run --adapter "python3 adapter.py --refresh proactive --request-timeout 5"
    3. session-conformance run --adapter "python3 adapter.py" --world rfc6749
    4. session-conformance explore --adapter "python3 adapter.py" --runs 100 --seed 1 --no-shrink

each only when the one before passed. A step kills the mutant when it exits non-zero, or (a `run`) when any
requirement is anything but pass or notTestable, so a SHOULD's warning kills too. A mutant whose steps outlive
--timeout is killed by timeout (a hang). The unmutated client must survive first, or nothing is measured.

    python3 scripts/mutation-score.py                              # every mutant, in a seeded order
    python3 scripts/mutation-score.py --sample 20 --jobs 2 --threshold 100   # CI: a fixed seeded sample of 20
    python3 scripts/mutation-score.py --jobs 2 --time-budget 3600 --out mutation-out

Mutants run in a seeded random order (--seed), so a run cut short by --time-budget is itself a random sample;
--keys FILE runs only the mutants it names (the survivors of a run, to play them again).
Each job mutates its own copy of the client in a temporary folder: the checkout is never changed. SESSION_CONFORMANCE
(or --cli) names the binary, .build/debug/session-conformance by default.

Survivors are judged in scripts/mutation-survivors.txt, one line each: `equivalent` (nothing observable changes:
dead code, a log's wording, a default never used), `conforming` (the behaviour changes, within what 000 and 001
allow: a backoff's jitter, a retry count the design leaves open), or `gap` (a client contrary to the design that
the suite certifies), the mutant's key, and why. The score is killed / non-equivalent, non-equivalent being the
mutants run less the equivalent and conforming survivors (a suite must pass a conforming client); a survivor not
listed there counts as a gap and is printed with its diff. --out DIR keeps cosmic-ray's session database (`cr-report DIR/session.sqlite`) and results.jsonl.

Exit 0: the score is at least --threshold; 1: below it, or the unmutated client was killed; 2: usage.
"""

import argparse
import concurrent.futures
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

COSMIC_RAY = "8.7.0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "Examples", "adapters", "python")
KIT = os.path.join(ROOT, "kits", "python", "src", "session_conformance_kit")
CLIENT = "session_client.py"
SURVIVORS = os.path.join(ROOT, "scripts", "mutation-survivors.txt")
PASSING = {"pass", "notTestable"}
KINDS = ("equivalent", "conforming", "gap")


# --- the test command: one mutant, in a folder holding adapter.py, its kit and the mutated session_client.py -------

def play(cli, folder, explore_runs):
    """Exit status of the suite against the client in `folder`: 0 when it survives every step, 1 when killed."""
    adapter = "python3 " + shlex.quote(os.path.join(folder, "adapter.py"))
    report = os.path.join(folder, "report.json")
    for label, extra, world in (("run", "", []), ("run proactive", " --refresh proactive --request-timeout 5", []),
                                ("run rfc6749", "", ["--world", "rfc6749"])):
        status = subprocess.run([cli, "run", "--adapter", adapter + extra, "--report", "json=" + report] + world,
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        try:
            with open(report, encoding="utf-8") as handle:
                statuses = {r["id"]: r["status"] for r in json.load(handle)["requirements"]}
            os.unlink(report)
        except (OSError, ValueError, KeyError):
            statuses = {}
        failing = sorted(f"{rid}={s}" for rid, s in statuses.items() if s not in PASSING)
        if status != 0 or failing or not statuses:
            print(f"killed by {label} (exit {status}): {' '.join(failing[:5])}")
            return 1
    if explore_runs:
        status = subprocess.run([cli, "explore", "--adapter", adapter, "--runs", str(explore_runs), "--seed", "1",
                                 "--no-shrink"], cwd=ROOT, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL).returncode
        if status != 0:
            print(f"killed by explore (exit {status})")
            return 1
    print("survived")
    return 0


# --- the driver ----------------------------------------------------------------------------------------------------

def mutant_key(spec, lines):
    """A name for a mutant that survives edits elsewhere in the file: operator, function, the mutated column and
    the line's text (the column tells apart two mutants of one operator on one line: `Backoff(1, 32, 5)`)."""
    text = lines[spec.start_pos[0] - 1]
    column = spec.start_pos[1] - (len(text) - len(text.lstrip()))
    return f"{spec.operator_name.removeprefix('core/')} @ {spec.definition_name or '-'} +{column}: {text.strip()}"


def mutant_keys(items, lines):
    """{job id: key} for every mutant; two mutants with one key (NumberReplacer makes n + 1 and n - 1 of the same
    number) get ` #2` on the second, in cosmic-ray's order."""
    keys, seen = {}, {}
    for item in sorted(items, key=lambda i: (i.mutations[0].operator_name, i.mutations[0].occurrence)):
        key = mutant_key(item.mutations[0], lines)
        seen[key] = seen.get(key, 0) + 1
        keys[item.job_id] = key if seen[key] == 1 else f"{key} #{seen[key]}"
    return keys


def read_survivors(path):
    """{key: (kind, reason)} from scripts/mutation-survivors.txt: `KIND | KEY | REASON` lines, `#` comments."""
    judged = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                if line.strip() and not line.lstrip().startswith("#"):
                    kind, rest = line.rstrip("\n").split(" | ", 1)  # a key may hold " | ", a reason may not
                    key, reason = (part.strip() for part in rest.rsplit(" | ", 1))
                    if kind not in KINDS:
                        sys.exit(f"mutation-score: {path}: kind must be one of {', '.join(KINDS)}: {line.strip()}")
                    judged[key] = (kind, reason)
    return judged


def score(outcomes, judged):
    """Counts and the score from [(key, outcome)], outcome killed, timeout or survived."""
    counts = {"killed": 0, "timeout": 0, "equivalent": 0, "conforming": 0, "gap": 0, "unjudged": 0}
    for key, outcome in outcomes:
        if outcome != "survived":
            counts[outcome] += 1
        else:
            counts[judged.get(key, ("unjudged",))[0]] += 1
    killed = counts["killed"] + counts["timeout"]
    non_equivalent = len(outcomes) - counts["equivalent"] - counts["conforming"]
    return counts, non_equivalent, (100.0 * killed / non_equivalent if non_equivalent else 100.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default=os.environ.get("SESSION_CONFORMANCE", ".build/debug/session-conformance"))
    parser.add_argument("--sample", type=int, default=0, help="run N mutants of the seeded order (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=0, help="seconds per mutant (default: 10 x the unmutated)")
    parser.add_argument("--time-budget", type=float, default=0, help="start no mutant after this many seconds")
    parser.add_argument("--explore-runs", type=int, default=100)
    parser.add_argument("--threshold", type=float, default=0, help="fail below this score, in percent")
    parser.add_argument("--keys", help="run only the mutants whose key is a line of this file (survivors, say)")
    parser.add_argument("--out", help="keep the session database and results.jsonl here")
    parser.add_argument("--test", metavar="FOLDER", help=argparse.SUPPRESS)  # cosmic-ray's test command
    args = parser.parse_args()
    cli = os.path.abspath(args.cli)
    if args.test:
        sys.exit(play(cli, args.test, args.explore_runs))
    if not os.access(cli, os.X_OK):
        parser.error(f"no session-conformance binary at {args.cli} (--cli or SESSION_CONFORMANCE)")
    try:
        import attrs
        from cosmic_ray.mutating import mutate_and_test
        from cosmic_ray.work_db import WorkDB, use_db
        from cosmic_ray.work_item import WorkerOutcome, WorkResult
    except ImportError:
        sys.exit(f"mutation-score: needs cosmic-ray: python3 -m pip install cosmic-ray=={COSMIC_RAY}")

    out = args.out or tempfile.mkdtemp(prefix="mutation-score-")
    os.makedirs(out, exist_ok=True)
    folders = []
    for job in range(max(1, args.jobs)):
        folder = tempfile.mkdtemp(prefix=f"mutation-job{job}-")
        for name in ("adapter.py", CLIENT):
            shutil.copy(os.path.join(EXAMPLE, name), folder)
        # The kit the glue runs on, beside it: adapter.py imports it from its own folder first.
        shutil.copytree(KIT, os.path.join(folder, "session_conformance_kit"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        folders.append(folder)

    def test_command(folder):
        return shlex.join([sys.executable, os.path.abspath(__file__), "--cli", cli, "--explore-runs",
                           str(args.explore_runs), "--test", folder])

    started = time.monotonic()
    unmutated = subprocess.run(shlex.split(test_command(folders[0])), capture_output=True, text=True)
    baseline = time.monotonic() - started
    if unmutated.returncode != 0:
        sys.exit(f"mutation-score: the unmutated client does not pass: {unmutated.stdout.strip()}")
    timeout = args.timeout or max(60.0, 10 * baseline)

    # cosmic-ray's session: every mutant of the client (cosmic-ray init), with its results as they come.
    session = os.path.join(out, "session.sqlite")
    config = os.path.join(out, "cosmic-ray.toml")
    with open(config, "w", encoding="utf-8") as handle:
        handle.write(f'[cosmic-ray]\nmodule-path = "{CLIENT}"\ntimeout = {timeout}\nexcluded-modules = []\n'
                     f'test-command = "{test_command("<job folder>")}"\n\n[cosmic-ray.distributor]\nname = "local"\n')
    subprocess.run(["cosmic-ray", "init", "--force", config, session], cwd=folders[0], check=True)
    with open(os.path.join(EXAMPLE, CLIENT), encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    with use_db(session, WorkDB.Mode.open) as db:
        items = sorted(db.work_items, key=lambda i: (i.mutations[0].operator_name, i.mutations[0].occurrence))
    keys = mutant_keys(items, lines)
    order = random.Random(args.seed).sample(items, len(items))
    chosen = order[:args.sample] if args.sample else order
    if args.keys:
        with open(args.keys, encoding="utf-8") as handle:
            wanted = {line.strip() for line in handle if line.strip()}
        chosen = [item for item in chosen if keys[item.job_id] in wanted]
    print(f"mutation-score: cosmic-ray {COSMIC_RAY}, {len(items)} mutants of {CLIENT}; running {len(chosen)} "
          f"(seed {args.seed}), {args.jobs} job(s), unmutated {baseline:.1f}s, timeout {timeout:.0f}s", flush=True)

    free = list(folders)
    judged = read_survivors(SURVIVORS)
    outcomes = []

    def one(item):
        folder = free.pop()
        try:
            mutation = item.mutations[0]
            local = attrs.evolve(mutation, module_path=os.path.join(folder, CLIENT))
            return item, mutate_and_test([local], test_command(folder), timeout)
        finally:
            free.append(folder)

    with concurrent.futures.ThreadPoolExecutor(len(folders)) as pool, \
            use_db(session, WorkDB.Mode.open) as db, open(os.path.join(out, "results.jsonl"), "w") as log:
        pending = set()
        queue = iter(chosen)
        while True:
            while len(pending) < len(folders):
                item = next(queue, None) if not args.time_budget or time.monotonic() - started < args.time_budget \
                    else None
                if item is None:
                    break
                pending.add(pool.submit(one, item))
            if not pending:
                break
            done, pending = concurrent.futures.wait(pending, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                item, result = future.result()
                db.set_result(item.job_id, result)
                key = keys[item.job_id]
                if result.worker_outcome != WorkerOutcome.NORMAL:
                    sys.exit(f"mutation-score: cosmic-ray could not test {key}: {result.output}")
                outcome = "survived" if not result.is_killed else \
                    "timeout" if (result.output or "").strip() == "timeout" else "killed"
                outcomes.append((key, outcome))
                log.write(json.dumps({"key": key, "job": item.job_id, "outcome": outcome,
                                      "output": (result.output or "").strip()[-300:], "diff": result.diff}) + "\n")
                log.flush()
                if outcome == "survived" and judged.get(key, ("",))[0] not in ("equivalent", "conforming"):
                    print(f"survived: {key} [{judged.get(key, ('unjudged',))[0]}]\n{result.diff}", flush=True)
        ran = {item.job_id for item in chosen[:len(outcomes)]}
        for item in (item for item in order if item.job_id not in ran):
            db.set_result(item.job_id, WorkResult(output="not in this sample", worker_outcome=WorkerOutcome.SKIPPED))

    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)
    counts, non_equivalent, value = score(outcomes, judged)
    survived = sum(counts[kind] for kind in KINDS + ("unjudged",))
    print(f"mutants: {len(items)}, run: {len(outcomes)} in {time.monotonic() - started:.0f}s; killed: "
          f"{counts['killed']} + {counts['timeout']} by timeout; survived: {survived} ({counts['equivalent']} "
          f"equivalent, {counts['conforming']} conforming, {counts['gap']} gap, {counts['unjudged']} unjudged)")
    print(f"score: {counts['killed'] + counts['timeout']} / {non_equivalent} non-equivalent killed ({value:.1f}%), "
          f"threshold {args.threshold:g}%; session: {session}")
    sys.exit(0 if value >= args.threshold else 1)


if __name__ == "__main__":
    main()
