#!/usr/bin/env python3
"""Connects an stdin/stdout adapter to a runner that listens on a socket (`run --listen HOST:PORT`): a stand-in, on
this machine, for a client that runs on a device and connects over TCP.

    python3 scripts/socket-client.py HOST:PORT COMMAND...

Connects to HOST:PORT (retrying for up to 10 s while the runner is not listening yet), starts COMMAND with its stdin
and stdout on the connection (its stderr stays this process's, which the runner keeps as the client's log), and ends
when either side does: COMMAND's exit closes the connection, the connection's end closes COMMAND's stdin. Used as
`--launch`, with no `--kill`: the runner's kill ends this process's group, COMMAND with it, a real process death."""

import os
import socket
import subprocess
import sys
import threading
import time


def connect(address):
    host, _, port = address.rpartition(":")
    deadline = time.monotonic() + 10
    while True:
        try:
            return socket.create_connection((host, int(port)))
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    connection = connect(sys.argv[1])
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)

    def runner_to_child():
        try:
            while True:
                data = connection.recv(1 << 16)
                if not data:
                    break
                while data:
                    data = data[os.write(child.stdin.fileno(), data):]
        except OSError:
            pass
        finally:
            try:
                child.stdin.close()
            except OSError:
                pass

    threading.Thread(target=runner_to_child, daemon=True).start()
    try:
        while True:
            data = os.read(child.stdout.fileno(), 1 << 16)
            if not data:
                break
            connection.sendall(data)
    except OSError:
        pass
    status = child.wait()
    try:
        connection.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    connection.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
