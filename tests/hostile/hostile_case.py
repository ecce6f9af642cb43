#!/usr/bin/env python3
"""One hostile-input case against the built conform (docs/hostile-input.md).

usage: hostile_case.py CONFORM CASE

Each case runs conform against tests/hostile/connector.py in a misbehaving mode and asserts the
exit code, the JSON report, and that no process carrying this run's marker is left behind (found
by the HOSTILE_MARKER value in /proc/*/environ, not by name). Nothing here waits on a clock:
conform's own timeouts end the hanging cases, and the subprocess timeout is only a safety net.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
CONNECTOR = os.path.join(HERE, "connector.py")
conform = os.path.abspath(sys.argv[1])
case = sys.argv[2]
marker = uuid.uuid4().hex
problems = []


def processes_with_marker():
    found = []
    needle = ("HOSTILE_MARKER=" + marker).encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as file:
                if needle in file.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            pass
    return found


def kill_leftovers(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def write(folder, name, value):
    path = os.path.join(folder, name)
    with open(path, "w") as file:
        file.write(value if isinstance(value, str) else json.dumps(value))
    return path


def conform_run(folder, modes, *args, config=None, timeouts=None):
    config_path = write(folder, "config.json", config or {"api_key": "k3y-abcdef-123456"})
    test_config = {
        "connector": {"command": [sys.executable, CONNECTOR]},
        "config": config_path,
        "invalid_config": write(folder, "invalid.json", {"api_key": "bad-invalid-key-778899"}),
        "grace_seconds": 1,
        "timeouts": timeouts or {"spec": 60, "check": 60, "discover": 60, "read": 60},
    }
    test_config_path = write(folder, "conform.json", test_config)
    report = os.path.join(folder, "report.json")
    env = dict(os.environ, HOSTILE_MODE=",".join(modes), HOSTILE_MARKER=marker)
    command = [conform, "run", "--test-config", test_config_path, "--report-json", report, *args]
    completed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    data = None
    if os.path.exists(report):
        with open(report) as file:
            data = json.load(file)
    return completed, data


def check_statuses(report):
    statuses = {}
    for scenario in (report or {}).get("scenarios", []):
        for check in scenario.get("checks", []):
            statuses.setdefault(check["id"], set()).add(check["status"])
    return statuses


def expect(condition, message):
    if not condition:
        problems.append(message)


def expect_exit(completed, codes):
    expect(completed.returncode in codes,
           f"exit {completed.returncode}, expected one of {codes}\n"
           f"stdout: {completed.stdout[-3000:]}\nstderr: {completed.stderr[-3000:]}")


def case_deep_spec(folder):
    # A SPEC nested 500,000 oneOf levels deep: conform must give a verdict, not crash.
    completed, report = conform_run(folder, ["deep_spec"], "--only", "spec")
    expect_exit(completed, (0, 1))
    expect(report is not None, "no JSON report written")


def case_deep_record(folder):
    # A valid record nested 3,000 levels deep passes every MUST check of the read.
    completed, report = conform_run(folder, ["deep_record"], "--only", "read")
    expect_exit(completed, (0,))
    statuses = check_statuses(report)
    expect(statuses.get("read.records_match_schema") == {"passed"},
           f"read.records_match_schema: {statuses.get('read.records_match_schema')}")


CASES = {name[len("case_"):]: function for name, function in globals().items()
         if name.startswith("case_")}


def main():
    if case not in CASES:
        print(f"unknown case {case!r}; known: {', '.join(sorted(CASES))}")
        return 2
    with tempfile.TemporaryDirectory(prefix="conform-hostile-") as folder:
        try:
            CASES[case](folder)
        finally:
            left = processes_with_marker()
            if left:
                problems.append(f"processes left behind: {left}")
                kill_leftovers(left)
    for problem in problems:
        print("FAIL:", problem)
    if not problems:
        print(f"ok: {case}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
