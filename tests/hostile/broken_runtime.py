#!/usr/bin/env python3
"""A docker-compatible CLI whose containers cannot be stopped or removed.

`image ...` succeeds; `run ... --name NAME ...` becomes a client that keeps the container's name on
its command line (as real clients do), ignores SIGTERM and never ends (conform's launcher starts it
in a session of its own); `kill` and `rm` fail.
"""
import os
import signal
import sys
import time


def client(name):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(3600)


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit("broken_runtime: no command")
    if args[0] == "client":
        client(args[1])
    if args[0] == "image":
        print("sha256:" + "0" * 64)
        return
    if args[0] == "run":
        name = args[args.index("--name") + 1]
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "client", name])
    if args[0] in ("kill", "rm"):
        sys.exit(f"broken_runtime: cannot {args[0]} {args[-1]}: the engine does not answer")
    sys.exit(f"broken_runtime: unknown command {args[0]}")


if __name__ == "__main__":
    main()
