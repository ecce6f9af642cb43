#!/usr/bin/env python3
"""Starts and stops a socket-activated service for docker-socket.sh, waiting on events only.

    socket-service.py start SOCKET PID_FILE LOG_FILE -- COMMAND...
    socket-service.py stop PID_FILE SOCKET

start: binds and listens on the Unix socket SOCKET, then starts COMMAND with that socket as fd 3
(systemd's socket activation: LISTEN_FDS=1, LISTEN_PID), in a session of its own, without
CONFORM_RUN_ID (conform's process runner kills every process carrying its run marker), stdin from
/dev/null and its output in LOG_FILE; writes its pid to PID_FILE and returns at once. The socket
accepts connections from the moment start returns: a client's first request waits in the
socket's backlog until the service serves it, so nobody polls for the service to come up. Only
the service holds the listening socket: if it dies, clients get "connection refused" at once.

stop: ends the service PID_FILE names if it is still the process start made (its environment
holds the LISTEN_PID start gave it, checked through a pidfd: a recycled pid is never signalled):
SIGTERM, then SIGKILL if it has not exited 10 s later, waiting for its exit on the pidfd (an
event, not a poll). Removes PID_FILE and SOCKET.
"""
import os
import select
import signal
import socket
import sys

STOP_GRACE_SECONDS = 10


def start(socket_path, pid_file, log_file, command):
    if os.path.exists(socket_path):
        os.remove(socket_path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(128)
    pid = os.fork()
    if pid == 0:
        become_service(listener, log_file, command)
    with open(pid_file, "w") as out:
        out.write(f"{pid}\n")


def become_service(listener, log_file, command):
    """In the forked child: fd 3 is the listening socket, then exec the command (same pid)."""
    try:
        os.setsid()
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        log = os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        if listener.fileno() != 3:
            os.dup2(listener.fileno(), 3)
        os.set_inheritable(3, True)
        env = {name: value for name, value in os.environ.items() if name != "CONFORM_RUN_ID"}
        env.update(LISTEN_FDS="1", LISTEN_PID=str(os.getpid()))
        os.execvpe(command[0], command, env)
    except OSError as error:
        print(f"socket-service.py: cannot start {command[0]}: {error}", file=sys.stderr)
    finally:
        os._exit(127)


def is_service(pid):
    """Whether pid is a process start made: its environment holds LISTEN_PID=pid."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as source:
            return f"LISTEN_PID={pid}".encode() in source.read().split(b"\0")
    except OSError:
        return False


def wait_exit(pidfd, seconds):
    """Whether the process behind pidfd exited within seconds (the pidfd becomes readable)."""
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    return bool(poller.poll(seconds * 1000))


def stop(pid_file, socket_path):
    try:
        with open(pid_file) as source:
            pid = int(source.read().split()[0])
    except (OSError, ValueError, IndexError):
        pid = None
    if pid is not None:
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            pidfd = None
        # The pidfd pins the process: checked after it is opened, the pid cannot be recycled.
        if pidfd is not None and is_service(pid):
            signal.pidfd_send_signal(pidfd, signal.SIGTERM)
            if not wait_exit(pidfd, STOP_GRACE_SECONDS):
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
                wait_exit(pidfd, STOP_GRACE_SECONDS)
        if pidfd is not None:
            os.close(pidfd)
    for path in (pid_file, socket_path):
        if os.path.exists(path):
            os.remove(path)


def main():
    if len(sys.argv) >= 7 and sys.argv[1] == "start" and sys.argv[5] == "--":
        start(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[6:])
    elif len(sys.argv) == 4 and sys.argv[1] == "stop":
        stop(sys.argv[2], sys.argv[3])
    else:
        sys.exit(f"usage: {sys.argv[0]} start SOCKET PID_FILE LOG_FILE -- COMMAND... | "
                 f"stop PID_FILE SOCKET")


if __name__ == "__main__":
    main()
