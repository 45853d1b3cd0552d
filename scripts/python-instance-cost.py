#!/usr/bin/env python3
"""What a client instance's birth and death cost the Python example adapter (docs/performance.md).

Explores through the example with `fork` (every kill ends the process the instance runs in), records each
instance's CPU and page faults as its zygote reaps it, and the runner messages it read. Then replays those
messages into the example's host twice, with the output dropped: cold, each in a process forked from one that
imported the example and rehearsed as the zygote does; and warm, one instance after another in this process. Cold
minus warm is what a birth and a death cost, beyond the client's own work.

    python3 scripts/python-instance-cost.py --runs 500 [--cli .build/release/session-conformance]

The recorded messages (they hold the simulated world's tokens) stay in a temporary folder, removed at the end.
"""

import argparse
import gc
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLE = os.path.join(ROOT, "Examples", "adapters", "python")


def import_example():
    """The example's glue and the kit it runs on (the installed kit, else the checkout's kits/python/src)."""
    sys.path.insert(0, EXAMPLE)
    import adapter  # noqa: PLC0415 - the example, as its zygote imports it
    import session_conformance_kit  # noqa: PLC0415

    return adapter, session_conformance_kit


def serve(folder, example_arguments):
    """Runs the example's adapter, recording what each instance read and, at its reaping, its rusage."""
    adapter, kit = import_example()
    runner_lines = kit.host.runner_lines

    def recorded_lines(host_of, read=None):
        with open(os.path.join(folder, f"lines.{os.getpid()}"), "ab", buffering=0) as record:
            for line in runner_lines(host_of, read):
                record.write(line + b"\n")
                yield line

    def waitpid(pid, options):
        _, status, usage = os.wait4(pid, options)
        with open(os.path.join(folder, f"usage.{os.getpid()}"), "a") as record:
            record.write(f"{usage.ru_utime} {usage.ru_stime} {usage.ru_minflt}\n")
        return pid, status

    kit.host.runner_lines = recorded_lines  # what the kit's serve reads with
    os.waitpid = waitpid  # the zygote reaps its instances with it
    adapter.main(example_arguments)


def replay(kit, make_client, settings, lines):
    """Plays one instance's messages into a host as `serve` does, dropping what the host writes."""
    host = None
    for line in lines:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "reset":
            if host is not None:
                host._output.clear()  # noqa: SLF001
                host.close()
                host = None
            continue
        if host is None:
            if kind != "welcome":
                continue
            host = kit.Host(make_client, settings, write=lambda data: None)
        host.handle(message)
        host._output.clear()  # noqa: SLF001
    if host is not None:
        host.close()


def measure(cli, runs, seed, jobs):
    folder = tempfile.mkdtemp(prefix="instance-cost-")
    try:
        command = f"{sys.executable} {os.path.abspath(__file__)} --serve {folder} --"
        subprocess.run([cli, "explore", "--adapter", command, "--runs", str(runs), "--seed", str(seed),
                        "--jobs", str(jobs), "--shrink-dir", os.path.join(folder, "shrunk")],
                       check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        usages = [tuple(map(float, row.split())) for path in glob.glob(os.path.join(folder, "usage.*"))
                  for row in open(path)]
        instances = [open(path, "rb").read().split(b"\n") for path in glob.glob(os.path.join(folder, "lines.*"))]
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if not usages or not instances:
        sys.exit("python-instance-cost: the exploration recorded no instance")

    adapter, kit = import_example()
    make_client, settings = adapter.configure([])
    # Cold first, from a process prepared as the zygote prepares itself before it forks: its rehearsal, then gc.freeze.
    kit.rehearse(make_client, settings, settings.rehearsal)
    gc.collect()
    gc.freeze()
    cold_cpu, cold_faults = 0.0, 0
    for lines in instances:
        child = os.fork()
        if child == 0:
            replay(kit, make_client, settings, lines)
            os._exit(0)
        _, _, usage = os.wait4(child, 0)
        cold_cpu += usage.ru_utime + usage.ru_stime
        cold_faults += usage.ru_minflt
    cold = cold_cpu / len(instances)

    for lines in instances:  # once, so that the warm pass below is warm
        replay(kit, make_client, settings, lines)
    started = time.process_time()
    for lines in instances:
        replay(kit, make_client, settings, lines)
    warm = (time.process_time() - started) / len(instances)

    played = sum(user + system for user, system, _ in usages) / len(usages)
    per_run = len(usages) / runs
    print(f"instances: {len(usages)} in {runs} runs ({per_run:.2f} a run)")
    print(f"as played, each in its own forked process: {played * 1e3:.1f} ms CPU an instance, "
          f"{sum(f for _, _, f in usages) / len(usages):.0f} page faults")
    print(f"the same messages replayed, warm, in one process: {warm * 1e3:.1f} ms an instance")
    print(f"replayed cold, each in a process forked for it: {cold * 1e3:.1f} ms an instance, "
          f"{cold_faults / len(instances):.0f} page faults")
    print(f"a birth and a death: {(cold - warm) * 1e3:.1f} ms an instance, {(cold - warm) * per_run * 1e3:.1f} ms a run")


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--serve":
        separator = sys.argv.index("--") if "--" in sys.argv else len(sys.argv)
        serve(sys.argv[2], sys.argv[separator + 1:])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    release = os.path.join(ROOT, ".build", "release", "session-conformance")
    parser.add_argument("--cli", default=release if os.path.exists(release)
                        else os.path.join(ROOT, ".build", "debug", "session-conformance"))
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    arguments = parser.parse_args()
    measure(arguments.cli, arguments.runs, arguments.seed, arguments.jobs)


if __name__ == "__main__":
    main()
