#!/usr/bin/env python3
"""The command-line contract: exit codes, error messages that name file, line and field, reports.

usage: cli_contract.py CONFORM CONNECTOR FIXTURES
"""
import json
import os
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

import harness

conform, connector, fixtures = harness.absolute_arguments(3)
failures = []


def run(*args, expect_code, contains=(), cwd=None):
    completed = harness.run([conform, *args], timeout=300, cwd=cwd)
    output = completed.stdout + completed.stderr
    problems = []
    if completed.returncode != expect_code:
        problems.append(f"exit {completed.returncode}, expected {expect_code}")
    problems += [f"output lacks {text!r}" for text in contains if text not in output]
    name = " ".join(args)[:90]
    if problems:
        failures.append(f"conform {name}: {'; '.join(problems)}\n{output[-2000:]}")
    else:
        print(f"ok: conform {name} -> {expect_code}")
    return completed


def tailing_connector(parent):
    """The pid of a child of parent that reads with tail true (its catalog says so), or None."""
    for pid in harness.children_of(parent):
        arguments = harness.command_line(pid)
        if "--catalog" not in arguments[:-1]:
            continue
        try:
            with open(arguments[arguments.index("--catalog") + 1]) as source:
                if re.search(r'"estuary\.dev/tail"\s*:\s*true', source.read()):
                    return pid
        except OSError:
            pass
    return None


write = harness.write_file


with harness.temporary_folder("cli") as folder:
    config = harness.connector_config(fixtures, folder)
    good = {"connector": {"command": [connector]}, "config": config,
            "catalog": os.path.join(fixtures, "configured_catalog.json"),
            "volatile_fields": {"users": ["/fetched_at"]}}
    good_path = write(folder, "good.json", json.dumps(good, indent=2))

    run("--help", expect_code=0, contains=["Exit codes", "run", "validate", "list"])
    run("run", "--help", expect_code=0, contains=["--test-config", "--only", "--strict"])
    run("validate", "--help", expect_code=0, contains=["--catalog"])
    run(expect_code=2)
    run("run", expect_code=2, contains=["--test-config FILE"])
    run("run", "--test-config", good_path, "--only", "reed", expect_code=2,
        contains=["unknown scenario, suite or check 'reed'"])
    run("list", expect_code=0, contains=["AP-READ-2", "X-RANGE-1", "range-splits", "SG-INC-4",
                                         "sg-currently-syncing", "\"protocol\": \"singer\"",
                                         "DST-STATE-2", "dst-kill-resume",
                                         "\"protocol\": \"airbyte-destination\""])

    # Flags-only runs say what a test config says for the common cases.
    flags_only = ["run", "--connector", connector, "--config", config, "--catalog",
                  os.path.join(fixtures, "configured_catalog.json")]
    run(*flags_only, "--volatile", "users", expect_code=2,
        contains=["--volatile users: expected STREAM:/json/pointer"])
    os.environ["REFERENCE_CONNECTOR_FAULTS"] = "nondeterministic"
    run(*flags_only, "--only", "read-twice", "--strict", "--volatile", "users:/fetched_at",
        expect_code=1, contains=["read.full_refresh_deterministic", "/name: "])
    run(*flags_only, "--only", "read-twice", "--strict", "--volatile", "users:/name",
        "--volatile", "users:/fetched_at", expect_code=0, contains=["PASS read-twice"])
    del os.environ["REFERENCE_CONNECTOR_FAULTS"]

    bad_text = json.dumps(good, indent=2).replace('"catalog"', '"catalogue"')
    bad_path = write(folder, "bad.json", bad_text)
    bad_line = next(i for i, line in enumerate(bad_text.splitlines(), 1) if "catalogue" in line)
    run("run", "--test-config", bad_path, expect_code=3,
        contains=[f"bad.json:{bad_line}: /catalogue", "is not allowed"])
    run("run", "--test-config", os.path.join(folder, "missing.json"), expect_code=3,
        contains=["missing.json"])
    broken_json = write(folder, "broken.json", '{\n  "connector": {"command": ["x"]},\n  "config": \n}\n')
    run("run", "--test-config", broken_json, expect_code=3, contains=["broken.json:4:"])

    suite = write(folder, "suite.json", json.dumps({"suite": "mine", "scenarios": [
        {"id": "one", "title": "t", "steps": [{"id": "read", "run": "read"}],
         "checks": ["read.records_match_schemas"]}]}, indent=2))
    run("run", "--test-config", good_path, "--suite", suite, expect_code=3,
        contains=["suite.json:", "did you mean 'read.records_match_schema'"])

    missing = dict(good, connector={"command": [os.path.join(folder, "no-such-connector")]})
    run("run", "--test-config", write(folder, "missing-connector.json", json.dumps(missing)),
        expect_code=4, contains=["cannot start", "no-such-connector"])

    run("run", "--test-config", good_path, "--only", "read", "--skip", "read", expect_code=5)

    report = os.path.join(folder, "report.json")
    junit = os.path.join(folder, "report.xml")
    run("run", "--test-config", good_path, "--only", "core", "--report-json", report, "--junit",
        junit, expect_code=0, contains=["checks:"])
    data = harness.load_json(report)
    if data.get("version") != 2 or not data["scenarios"]:
        failures.append("JSON report lacks version 2 or scenarios")
    cases = ElementTree.parse(junit).getroot().findall(".//testcase")
    if len(cases) != sum(len(s["checks"]) for s in data["scenarios"]):
        failures.append("JUnit testcases do not match the JSON report's checks")

    faulty = dict(good, connector={"command": [connector],
                                   "env": {"REFERENCE_CONNECTOR_FAULTS": "record_schema_violation"}})
    faulty_path = write(folder, "faulty.json", json.dumps(faulty))
    completed = run("run", "--test-config", faulty_path, "--only", "core", expect_code=1,
                    contains=["FAIL", "read.records_match_schema [AP-READ-2]", "stdout line",
                              "rerun: ", "--only read"])
    rerun = next(line.split("rerun: ", 1)[1] for line in completed.stdout.splitlines()
                 if "rerun: " in line and line.rstrip().endswith("--only read"))
    again = harness.run(rerun, shell=True, timeout=120)
    if again.returncode != 1 or "1 scenarios, 1 failed" not in again.stdout:
        failures.append(f"the printed rerun command did not rerun just that scenario:\n{again.stdout}")
    else:
        print("ok: the printed rerun command reruns just the failed scenario")

    # A claimed extension that could not be tested: skipped with the reason in the test config's
    # terms, and a failure under --strict (not certified).
    claims_tail = dict(good, extensions=["tail"], tail={"observe_seconds": 0.2})
    claims_tail_path = write(folder, "claims_tail.json", json.dumps(claims_tail))
    run("run", "--test-config", claims_tail_path, "--only", "tail-on", expect_code=0,
        contains=["SKIP tail.delivers_new_data: the test config has no \"tail\": "
                  "{\"inject_command\"}", "PASS tail-on"])
    run("run", "--test-config", claims_tail_path, "--only", "tail-on", "--strict", expect_code=1,
        contains=["the connector claims 'tail' but this check did not run (--strict)"])

    # Ctrl-C: conform stops the tailing connector, reaps it and exits 130, leaving no process.
    tailing = dict(good, extensions=["tail"], timeouts={"read": 60},
                   tail={"inject_command": ["true"], "inject_after_seconds": 30,
                         "observe_seconds": 50})
    tailing_path = write(folder, "tailing.json", json.dumps(tailing))
    started = time.monotonic()
    process = subprocess.Popen([conform, "run", "--test-config", tailing_path, "--only", "tail-on"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The event: the tailing connector runs (it would run 50 s, then stop on conform's SIGTERM).
    harness.wait_for(lambda: process.poll() is not None or tailing_connector(process.pid), 60)
    children = harness.children_of(process.pid)
    process.send_signal(signal.SIGINT)
    try:
        _, errors = process.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        failures.append("conform did not exit within 20 s of SIGINT")
        errors = ""
    left = [pid for pid in children if os.path.exists(f"/proc/{pid}")]
    if process.returncode != 130 or not children or left:
        failures.append(f"after SIGINT: exit {process.returncode} (expected 130), connector "
                        f"processes {children}, still there: {left}\n{errors}")
    else:
        print(f"ok: SIGINT stops conform and its connector in {time.monotonic() - started:.1f} s")

if failures:
    sys.exit("FAIL:\n" + "\n".join(failures))
print("cli contract: all passed")
