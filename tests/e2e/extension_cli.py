#!/usr/bin/env python3
"""The command line around extension test configs: exit codes, messages and selection.

    extension_cli.py CONFORM EXTENSION_BIN_DIR
"""
import json
import os
import signal
import subprocess
import sys

import harness

conform, bin_dir = sys.argv[1], os.path.abspath(sys.argv[2])
failures = []


def config(**changes):
    base = {"protocol": "meltano-extension",
            "extension": {"name": "refext", "invoker": True, "wrapped": "reftool",
                          "path": [bin_dir]},
            "commands": [{"name": "status", "args": ["invoke", "status"]}]}
    base.update(changes)
    return base


def run(folder, test_config, *flags):
    path = harness.write_file(folder, "extension.json", test_config)
    report = os.path.join(folder, "report.json")
    if os.path.exists(report):
        os.remove(report)
    completed = harness.run([conform, "run", "--test-config", path, "--report-json", report,
                             *flags], timeout=300)
    return completed, harness.load_json_if_present(report)


def initializing(parent):
    """The pid of a child of parent running an `initialize` command, or None."""
    return next((pid for pid in harness.children_of(parent)
                 if any("initialize" in part for part in harness.command_line(pid))), None)


def expect(name, condition, completed):
    if not condition:
        failures.append(f"{name}: exit {completed.returncode}\n{completed.stdout[-2000:]}\n"
                        f"{completed.stderr[-2000:]}")
    else:
        print(f"ok: {name}")


with harness.temporary_folder("mx-cli") as folder:
    completed, report = run(folder, config(), "--only", "mx-help")
    expect("--only mx-help runs one scenario",
           completed.returncode == 0 and [s["id"] for s in report["scenarios"]] == ["mx-help"],
           completed)

    completed, report = run(folder, config(), "--only", "mx.passthrough")
    expect("--only a check reports only that check",
           completed.returncode == 0 and
           [c["id"] for s in report["scenarios"] for c in s["checks"]] == ["mx.passthrough"],
           completed)

    completed, report = run(folder, config(), "--skip", "mx-stdin,mx.log_json")
    ids = {c["id"] for s in report["scenarios"] for c in s["checks"]}
    expect("--skip drops scenarios and checks",
           completed.returncode == 0 and "mx.stdin_unused" not in ids and "mx.log_json" not in ids
           and "mx.help" in ids, completed)

    completed, _ = run(folder, config(), "--only", "mx.helpp")
    expect("an unknown --only name is a usage error (2) with a suggestion",
           completed.returncode == 2 and "mx.help" in completed.stderr, completed)

    completed, _ = run(folder, config(), "--skip", "meltano")
    expect("nothing selected exits 5", completed.returncode == 5, completed)

    bad = config()
    bad["extension"]["nmae"] = "typo"
    completed, _ = run(folder, bad)
    expect("an unknown key in the test config exits 3 naming it",
           completed.returncode == 3 and "/extension/nmae" in completed.stderr, completed)

    completed, report = run(folder, config(), "--only", "mx-help", "mx-initialize")
    rerun = report["scenarios"][0]["rerun"] if report else ""
    again = harness.run(["sh", "-c", rerun], timeout=300, cwd=folder)
    expect("the rerun command printed after `--only A B` runs that one scenario (exit 0)",
           completed.returncode == 0 and len(report["scenarios"]) == 2 and
           rerun.endswith("--only mx-help") and again.returncode == 0 and
           "mx-help" in again.stdout and "mx-initialize" not in again.stdout, again)

    marker = os.path.join(folder, "ran-a-command")
    marking = config(commands=[{"name": "mark", "executable": "sh",
                                "args": ["-c", f"touch '{marker}'"]}])
    completed, _ = run(folder, marking, "--dry-run")
    expect("--dry-run lists the extension scenarios and starts nothing",
           completed.returncode == 0 and "mx-commands" in completed.stdout and
           "step commands" in completed.stdout and not os.path.exists(marker), completed)

    completed, report = run(folder, config(), "--only", "mx-help", "--connector-version", "2.1.0")
    expect("--connector-version is recorded for an extension too",
           completed.returncode == 0 and report["metadata"]["connector_version"] == "2.1.0", completed)

    completed, _ = run(folder, config(), "--connector", "true")
    expect("--connector with an extension test config is a usage error (2)",
           completed.returncode == 2, completed)

    missing = config()
    missing["extension"]["name"] = "nosuch"
    missing["extension"]["wrapped"] = "nosuchtool"
    missing["commands"] = []
    completed, report = run(folder, missing)
    failed = {c["id"] for s in report["scenarios"] for c in s["checks"]
              if c["status"] == "failed"} if report else set()
    expect("an extension that is not on PATH fails its checks (exit 1), conform does not crash",
           completed.returncode == 1 and "mx.help" in failed, completed)

    secret = "tok-secret-9876"
    leaky = config()
    leaky["extension"]["env"] = {"REFTOOL_TOKEN": secret}
    leaky["extension"]["secret_env"] = ["REFTOOL_TOKEN"]
    leaky["commands"] = [{"name": "leak", "executable": "sh",
                          "args": ["-c", 'echo "token is $REFTOOL_TOKEN" >&2; exit 1']}]
    completed, report = run(folder, leaky, "--only", "mx-commands", "-v")
    failed = {c["id"] for s in report["scenarios"] for c in s["checks"]
              if c["status"] == "failed"} if report else set()
    expect("secret_env values are reported as leaked (MX-SEC-1) and masked in the reports",
           completed.returncode == 1 and failed == {"mx.invoke_commands", "mx.secrets_not_leaked"} and
           secret not in completed.stdout and secret not in json.dumps(report) and
           "**********" in json.dumps(report), completed)

    # Ctrl-C while a command waits on stdin: conform stops it and exits 130, leaving no process.
    waiting = config()
    waiting["extension"]["env"] = {"REFEXT_FAULTS": "reads_stdin"}
    waiting["timeouts"] = {"stdin": 120}
    waiting_path = harness.write_file(folder, "waiting.json", waiting)
    process = subprocess.Popen([conform, "run", "--test-config", waiting_path, "--only",
                                "mx-stdin"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    harness.wait_for(lambda: process.poll() is not None or initializing(process.pid), 60)
    blocked = initializing(process.pid)
    process.send_signal(signal.SIGINT)
    try:
        stdout, stderr = process.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
    stopped = subprocess.CompletedProcess([], process.returncode, stdout, stderr)
    expect("SIGINT stops conform (130) and the command waiting on stdin",
           blocked is not None and process.returncode == 130 and
           not os.path.exists(f"/proc/{blocked}"), stopped)

if failures:
    sys.exit("FAIL:\n" + "\n".join(failures))
