#!/usr/bin/env python3
"""A docker-compatible CLI whose containers cannot be stopped or removed.

`image ...` succeeds; `run ... --name NAME ...` becomes a client that keeps the container's name on
its command line (as real clients do), ignores SIGTERM and never ends (conform's launcher starts it
in a session of its own); `kill` and `rm` fail. With BROKEN_RUNTIME_EXEC=PROGRAM, `run` exec's
PROGRAM with the image's arguments instead (a runtime that runs the connector in its own process),
so no process keeps the container's name.
"""
import os
import signal
import sys
import time

IMAGE = "conform-hostile/never-removed:1"


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
        if os.environ.get("BROKEN_RUNTIME_EXEC"):
            # Becomes the connector itself: the container's name is on no command line any more.
            os.execv(sys.executable, [sys.executable, os.environ["BROKEN_RUNTIME_EXEC"],
                                      *args[args.index(IMAGE) + 1:]])
        os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "client", name])
    if args[0] in ("kill", "rm"):
        sys.exit(f"broken_runtime: cannot {args[0]} {args[-1]}: the engine does not answer")
    sys.exit(f"broken_runtime: unknown command {args[0]}")


if __name__ == "__main__":
    main()
