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


def scratch_folder():
    """The run's scratch folder, when the test config's connector config names it."""
    return config().get("scratch", "")


def own_transcript():
    """conform's transcript of this run, where conform kept it before it stopped keeping its
    files in the scratch folder: the newest run-N.jsonl there (None when there is none)."""
    folder = scratch_folder()
    if not folder or not os.path.isdir(folder):
        return None
    runs = [name for name in os.listdir(folder) if name.startswith("run-") and
            name.endswith(".jsonl")]
    if not runs:
        return None
    newest = max(runs, key=lambda name: int(name[len("run-"):-len(".jsonl")]))
    return os.path.join(folder, newest)


def tamper_with_transcript():
    """Replaces this run's transcript in the scratch folder by a symlink to HOSTILE_VICTIM, a
    FIFO or /dev/zero, as a connector that wants conform to read something else would."""
    path = own_transcript()
    if path is None:
        return
    os.remove(path)
    if "swap_transcript" in MODES:
        os.symlink(os.environ["HOSTILE_VICTIM"], path)
    elif "fifo_transcript" in MODES:
        os.mkfifo(path)
    elif "zero_transcript" in MODES:
        os.symlink("/dev/zero", path)


def plant_symlinks():
    """Symlinks at the names conform's next transcripts would take, pointing at HOSTILE_VICTIM."""
    folder = scratch_folder()
    if not folder or not os.path.isdir(folder):
        return
    for number in range(1, 400):
        path = os.path.join(folder, "run-%d.jsonl" % number)
        if not os.path.lexists(path):
            os.symlink(os.environ["HOSTILE_VICTIM"], path)


def detached(run):
    """Calls run() in a grandchild that double-forked into a session of its own and holds no
    pipes: it outlives its parent, which this process reaps."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            run()
        os._exit(0)
    os.wait()


def daemon_without_environment():
    """A detached daemon exec'd with an empty environment: no marker to find it by."""
    detached(lambda: os.execve(sys.executable, [sys.executable, os.path.abspath(__file__), "daemon",
                                                os.environ["HOSTILE_DAEMON_PID_FILE"]], {}))
    # Returns once the daemon runs, so that the test knows its pid.
    while not os.path.exists(os.environ["HOSTILE_DAEMON_PID_FILE"]):
        time.sleep(0.01)


def daemon(pid_file):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with open(pid_file + ".tmp", "w") as file:
        file.write(str(os.getpid()))
    os.rename(pid_file + ".tmp", pid_file)
    while True:
        time.sleep(1)


def signal_conform():
    """Sends SIGINT to conform (this process's parent), and SIGTERM from a child in a session of
    its own that stays until conform ends the run: as a connector that wants the run to end as
    if the user had stopped it. Returns once both signals were sent."""
    conform = os.getppid()
    os.kill(conform, signal.SIGINT)
    sent = os.pipe()
    if os.fork() == 0:
        os.setsid()
        os.kill(conform, signal.SIGTERM)
        os.write(sent[1], b"x")
        while True:
            time.sleep(1)
    os.read(sent[0], 1)


SPEC_REF = {
    "type": "object",
    "definitions": {"credentials": {"type": "object", "properties": {
        "token": {"type": "string", "airbyte_secret": True}}}},
    "properties": {"api_key": {"type": "string"},
                   "auth": {"$ref": "#/definitions/credentials"}},
}
SPEC_ADDITIONAL = {
    "type": "object",
    "properties": {"api_key": {"type": "string"},
                   "headers": {"type": "object",
                               "additionalProperties": {"type": "string", "airbyte_secret": True}}},
}


def deep_spec(depth):
    # Written by hand: json.dumps recurses and cannot write this.
    sys.stdout.write('{"type":"SPEC","spec":{"connectionSpecification":')
    sys.stdout.write('{"oneOf":[' * depth)
    sys.stdout.write(json.dumps(SECRET_SCHEMA))
    sys.stdout.write("]}" * depth)
    sys.stdout.write("}}\n")
    sys.stdout.flush()


def ignore_sigterm_forever():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(1)


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
        detached(ignore_sigterm_forever)
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


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)


def main():
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "daemon":
        daemon(sys.argv[2])
    if os.environ.get("HOSTILE_STARTED_FILE"):
        open(os.environ["HOSTILE_STARTED_FILE"], "w").close()
    escape_from_group()
    if "daemon_without_environment" in MODES:
        daemon_without_environment()
    if "signal_conform" in MODES and command == "check":
        signal_conform()
    if command == "spec":
        if "hang_spec" in MODES:
            hang()
        if "no_spec" in MODES:
            return 0
        if "deep_spec" in MODES:
            deep_spec(int(os.environ.get("HOSTILE_DEPTH", "500000")))
        elif "spec_ref" in MODES:
            emit({"type": "SPEC", "spec": {"connectionSpecification": SPEC_REF}})
        elif "spec_additional" in MODES:
            emit({"type": "SPEC", "spec": {"connectionSpecification": SPEC_ADDITIONAL}})
        else:
            emit({"type": "SPEC", "spec": {"connectionSpecification": SECRET_SCHEMA}})
        return 0
    cfg = config()
    key = cfg.get("api_key", "")
    if "leak_all_config" in MODES:
        for value in strings_in(cfg):
            emit({"type": "LOG", "log": {"level": "INFO", "message": "config value " + value}})
    if "leak_config_plain" in MODES:
        # Not JSON: io.json_lines shows these lines in its examples.
        for value in strings_in(cfg):
            sys.stdout.write("config value " + value + "\n")
    if "leak_double_encoded" in MODES:
        inner = json.dumps({"key": key}, ensure_ascii=True)
        emit({"type": "LOG", "log": {"level": "INFO", "message": json.dumps(inner)}},
             ensure_ascii=True)
    if "leak_many_escaped" in MODES:
        # One line of about 1 MB that holds the secret 10,000 times, every character a \u escape.
        spelled = "".join("\\u%04x" % ord(c) for c in key)
        sys.stdout.write('{"type":"LOG","log":{"level":"INFO","message":"' +
                         " ".join([spelled] * 10_000) + '"}}\n')
    if "plant_symlinks" in MODES:
        plant_symlinks()
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
    stream = "items" if "huge_stream_name" not in MODES else "s" * (1024 * 1024)
    if command == "discover":
        emit({"type": "CATALOG", "catalog": {"streams": [{
            "name": stream, "json_schema": STREAM_SCHEMA,
            "supported_sync_modes": ["full_refresh"]}]}})
        return 0
    if command == "read":
        if "hang_read" in MODES:
            hang()
        now = int(time.time() * 1000)
        if "control_bytes" in MODES:
            sys.stdout.write("not json \x1b[31mred\x07 bell\n")
        if "secret_property" in MODES:
            emit({"type": "RECORD", "record": {"stream": "items", "emitted_at": now,
                                               "data": {"id": 7, key: 1}}})
        if MODES & {"swap_transcript", "fifo_transcript", "zero_transcript"}:
            sys.stdout.write("this line is not JSON\n")
            sys.stdout.flush()
            tamper_with_transcript()
        for number in range(3):
            if "huge_line" in MODES and number == 1:
                # 20 MB on one line: more than the 16 MiB conform reads of a line.
                sys.stdout.write('{"type":"RECORD","record":{"stream":"items","emitted_at":%d,'
                                 '"data":{"id":1,"data":"%s"}}}\n' % (now, "x" * 20_000_000))
                continue
            if "deep_record" in MODES and number == 1:
                depth = int(os.environ.get("HOSTILE_DEPTH", "3000"))
                # Written by hand: json.dumps recurses and cannot write this.
                sys.stdout.write('{"type":"RECORD","record":{"stream":"items","emitted_at":%d,'
                                 '"data":{"id":1,"data":%s%s}}}\n' % (now, "[" * depth, "]" * depth))
                continue
            emit({"type": "RECORD", "record": {"stream": stream, "data": {"id": number},
                                               "emitted_at": now}})
        if "huge_stream_name" in MODES:
            # A record of a stream the catalog lacks, and one that breaks the stream's schema.
            emit({"type": "RECORD", "record": {"stream": stream + "-other", "data": {"id": 1},
                                               "emitted_at": now}})
            emit({"type": "RECORD", "record": {"stream": stream, "data": {"id": "x"},
                                               "emitted_at": now}})
        emit({"type": "STATE", "state": {"type": "STREAM", "stream": {
            "stream_descriptor": {"name": stream}, "stream_state": {"done": True}}}})
        return 0
    sys.stderr.write("unknown command %r\n" % command)
    return 2


if __name__ == "__main__":
    sys.exit(main())
