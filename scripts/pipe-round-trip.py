#!/usr/bin/env python3
"""What a pipe round trip between two processes costs in CPU, on two CPUs and on one (docs/performance.md).

A barrier of the adapter protocol is such a round trip: the runner writes and waits, the adapter wakes, answers and
waits. This plays 20,000 of them (one byte each way) with the two processes pinned to two CPUs, then to one, and
prints the CPU both used per round trip.

    python3 scripts/pipe-round-trip.py [--round-trips N]
"""

import argparse
import os
import sys


def measure(round_trips, parent_cpu, child_cpu):
    down_read, down_write = os.pipe()  # parent to child
    up_read, up_write = os.pipe()  # child to parent
    child = os.fork()
    if child == 0:
        try:
            os.sched_setaffinity(0, {child_cpu})
            for _ in range(round_trips):
                os.read(down_read, 1)
                os.write(up_write, b"x")
        finally:
            os._exit(0)
    saved = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {parent_cpu})
    before = os.times()
    for _ in range(round_trips):
        os.write(down_write, b"x")
        os.read(up_read, 1)
    after = os.times()
    os.sched_setaffinity(0, saved)
    _, _, usage = os.wait4(child, 0)
    for descriptor in (down_read, down_write, up_read, up_write):
        os.close(descriptor)
    own = (after.user - before.user) + (after.system - before.system)
    return (own + usage.ru_utime + usage.ru_stime) / round_trips * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=20_000)
    arguments = parser.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) >= 2:
        print(f"two CPUs: {measure(arguments.round_trips, cpus[0], cpus[1]):.1f} µs of CPU a round trip")
    else:
        print("two CPUs: not measured, this process may use one CPU only", file=sys.stderr)
    print(f"one CPU: {measure(arguments.round_trips, cpus[0], cpus[0]):.1f} µs of CPU a round trip")


if __name__ == "__main__":
    main()
