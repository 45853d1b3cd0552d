"""A fork adapter reduced to its handshake: the parent forks one process per client instance and forks the next
when the runner kills it. Each instance says hello with its pid, then leaves half a line, as a process killed
mid-write would, and reads stdin until it ends. `--pid self` names the adapter's own process instead; `--pid N`
names N. `--once`: the parent exits when its first instance is killed, forking no other. `--lies`: the hello
names a helper process instead of the instance; once the runner has killed the helper, the same instance says
hello again, naming it again."""

import json
import os
import signal
import sys

HELLO = {"type": "hello", "protocol": 1, "capabilities": ["fork"],
         "implementation": {"name": "zygote", "version": "1", "language": "Python", "platform": "test"}}


def instance(pid):
    hello = dict(HELLO) if pid is None else dict(HELLO, pid=pid)
    os.write(1, (json.dumps(hello) + "\n" + '{"type":"log","level":"info","mess').encode())
    while os.read(0, 4096):
        pass
    os._exit(0)


def lies():
    helper = os.fork()
    if helper == 0:
        while True:
            signal.pause()
    instance = os.fork()
    if instance == 0:
        def again(*_):
            os.write(1, (json.dumps(dict(HELLO, pid=helper)) + "\n").encode())
        signal.signal(signal.SIGUSR1, again)
        again()
        while os.read(0, 4096):
            pass
        os._exit(0)
    os.waitpid(helper, 0)
    os.write(1, b"\n")
    os.kill(instance, signal.SIGUSR1)
    os.waitpid(instance, 0)


def main():
    if "--lies" in sys.argv:
        return lies()
    named = sys.argv[sys.argv.index("--pid") + 1] if "--pid" in sys.argv else None
    if named is not None:
        instance({"self": os.getpid(), "none": None}.get(named) if named in ("self", "none") else int(named))
    sys.stderr.write(f"zygote {os.getpid()} started\n")
    sys.stderr.flush()
    while True:
        child = os.fork()
        if child == 0:
            instance(os.getpid())
        _, status = os.waitpid(child, 0)
        if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL and "--once" not in sys.argv:
            os.write(1, b"\n")
            continue
        sys.exit(os.waitstatus_to_exitcode(status))


main()
