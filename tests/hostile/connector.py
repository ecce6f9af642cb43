#!/usr/bin/env python3
"""A hostile Airbyte source for conform's hostile-input tests (docs/hostile-input.md).

It is a correct minimal source (one stream "items", full refresh) unless HOSTILE_MODE, a comma
separated list, asks for a misbehaviour. Every process it starts inherits the environment, so
the tests find leftovers by the HOSTILE_MARKER value in /proc/*/environ.
"""
import json
import os
import signal
import sys
import time

MODES = set(filter(None, os.environ.get("HOSTILE_MODE", "").split(",")))
SECRET_SCHEMA = {
    "type": "object",
    "required": ["api_key"],
    "properties": {
        "api_key": {"type": "string", "airbyte_secret": True},
        "pin": {"type": "integer", "airbyte_secret": True},
        "note": {"type": "string"},
    },
}
STREAM_SCHEMA = {"type": "object", "properties": {"id": {"type": "integer"}, "data": {}}}


def emit(message, ensure_ascii=False):
    sys.stdout.write(json.dumps(message, ensure_ascii=ensure_ascii) + "\n")
    sys.stdout.flush()


def config():
    for index, arg in enumerate(sys.argv):
        if arg == "--config":
            with open(sys.argv[index + 1]) as file:
                return json.load(file)
    return {}


def deep_spec(depth):
    # Written by hand: json.dumps recurses and cannot write this.
    sys.stdout.write('{"type":"SPEC","spec":{"connectionSpecification":')
    sys.stdout.write('{"oneOf":[' * depth)
    sys.stdout.write(json.dumps(SECRET_SCHEMA))
    sys.stdout.write("]}" * depth)
    sys.stdout.write("}}\n")
    sys.stdout.flush()


def escape_from_group():
    """Leaves conform's process group (and session), then keeps running."""
    if "setsid" in MODES or "setpgid" in MODES:
        # A group leader cannot call setsid(): the real work moves to a child that leaves the
        # group, and this process waits and passes its exit code on (a common wrapper shape).
        child = os.fork()
        if child != 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN) if "ignore_sigterm" in MODES else None
            _, status = os.waitpid(child, 0)
            os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
        if "setsid" in MODES:
            os.setsid()
        else:
            os.setpgid(0, 0)
    if "double_fork" in MODES:
        # The grandchild detaches in a new session and outlives its parent, holding no pipes.
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                while True:
                    time.sleep(1)
            os._exit(0)
        os.wait()
    if "ignore_sigterm" in MODES:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)


def hang():
    """Never finishes; announces itself on stderr first so the test can interrupt it."""
    sys.stderr.write("hostile: hanging\n")
    sys.stderr.flush()
    announce = os.environ.get("HOSTILE_HANG_FILE")
    if announce:
        with open(announce + ".tmp", "w") as file:
            file.write(str(os.getpid()))
        os.rename(announce + ".tmp", announce)
    while True:
        time.sleep(1)


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    escape_from_group()
    if command == "spec":
        if "deep_spec" in MODES:
            deep_spec(500_000)
        else:
            emit({"type": "SPEC", "spec": {"connectionSpecification": SECRET_SCHEMA}})
        return 0
    cfg = config()
    key = cfg.get("api_key", "")
    if "leak_raw" in MODES:
        emit({"type": "LOG", "log": {"level": "INFO", "message": "key " + key}})
    if "leak_ascii_escaped" in MODES:
        emit({"type": "LOG", "log": {"level": "INFO", "message": "key " + key}}, ensure_ascii=True)
    if "leak_u_escaped" in MODES:
        sys.stdout.write('{"type":"LOG","log":{"level":"INFO","message":"key ' +
                         "".join("\\u%04x" % ord(c) for c in key) + '"}}\n')
    if "leak_pin" in MODES and "pin" in cfg:
        emit({"type": "LOG", "log": {"level": "INFO", "message": "pin %d" % cfg["pin"]}})
    if "leak_stderr_early" in MODES:
        sys.stderr.write("key=" + key + "\n")
        sys.stderr.write("x" * 200_000 + "\n")
        sys.stderr.flush()
    if command == "check":
        if "hang_check" in MODES:
            hang()
        status = "FAILED" if key.startswith("bad") else "SUCCEEDED"
        emit({"type": "CONNECTION_STATUS", "connectionStatus": {"status": status}})
        return 0
    if command == "discover":
        emit({"type": "CATALOG", "catalog": {"streams": [{
            "name": "items", "json_schema": STREAM_SCHEMA,
            "supported_sync_modes": ["full_refresh"]}]}})
        return 0
    if command == "read":
        if "hang_read" in MODES:
            hang()
        now = int(time.time() * 1000)
        for number in range(3):
            if "huge_line" in MODES and number == 1:
                # 20 MB on one line: more than the 16 MiB conform reads of a line.
                sys.stdout.write('{"type":"RECORD","record":{"stream":"items","emitted_at":%d,'
                                 '"data":{"id":1,"data":"%s"}}}\n' % (now, "x" * 20_000_000))
                continue
            if "deep_record" in MODES and number == 1:
                # Written by hand: json.dumps recurses and cannot write this.
                sys.stdout.write('{"type":"RECORD","record":{"stream":"items","emitted_at":%d,'
                                 '"data":{"id":1,"data":%s%s}}}\n' % (now, "[" * 3000, "]" * 3000))
                continue
            emit({"type": "RECORD", "record": {"stream": "items", "data": {"id": number},
                                               "emitted_at": now}})
        emit({"type": "STATE", "state": {"type": "STREAM", "stream": {
            "stream_descriptor": {"name": "items"}, "stream_state": {"done": True}}}})
        return 0
    sys.stderr.write("unknown command %r\n" % command)
    return 2


if __name__ == "__main__":
    sys.exit(main())
