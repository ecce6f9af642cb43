#!/usr/bin/env python3
"""Runs the built conform against the reference connector and checks the verdict.

    conform_case.py --conform BIN --connector BIN --fixtures DIR [--fault NAME] [--image IMAGE
                    --runtime RUNTIME ...] [--strict] --expect CHECK[,CHECK...]|none

Writes a test config in a fresh temporary folder (faults are passed to the connector through
REFERENCE_CONNECTOR_FAULTS, which it applies to every command), runs `conform run` with a JSON
report, and asserts that exactly the expected checks did not pass (failed or warned), and that
the exit code matches: 1 when a check failed, 0 otherwise. Prints the report's failures on error.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from leftovers import leftover_containers

FIXTURE_FILES = ["config.json", "invalid_config.json", "configured_catalog.json",
                 "expected_records.jsonl", "merge_config.json", "legacy_config.json"]


def write_test_config(folder, args):
    for name in FIXTURE_FILES:
        shutil.copy(os.path.join(args.fixtures, name), folder)
    connector = {"env": {"REFERENCE_CONNECTOR_FAULTS": args.fault or ""}}
    if args.image:
        connector.update({"image": args.image, "runtime": args.runtime, "pull": "never",
                          "global_args": args.global_arg or []})
    else:
        connector["command"] = [os.path.abspath(args.connector)]
    config = {
        "connector": connector,
        "config": "config.json",
        "invalid_config": "invalid_config.json",
        "catalog": "configured_catalog.json",
        "extensions": [name for name in args.claims.split(",") if name and name != "none"],
        "volatile_fields": {"users": ["/fetched_at"]},
        "expected_records": {"path": "expected_records.jsonl", "mode": "subset"},
        "timeouts": {"spec": 20, "check": 20, "discover": 20, "read": args.read_timeout},
        "grace_seconds": 1,
        "resume": {"sample": 2},
        "merge": {"config": "merge_config.json", "full_state_config": "legacy_config.json"},
        "tail": {
            "inject_command": ["sh", "-c",
                               "echo '{\"note\":\"injected\"}' >> '${CONFORM_SCRATCH}/events.jsonl'"],
            "inject_after_seconds": 0.4,
            "observe_seconds": 1.5 if not args.image else 4,
        },
        "projections": {"events": {"note": "/payload/note", "user_id": "/user/id"}},
    }
    path = os.path.join(folder, "conform.json")
    with open(path, "w") as out:
        json.dump(config, out, indent=2)
    return path


def not_passing(report):
    found = {}
    for scenario in report["scenarios"]:
        for check in scenario["checks"]:
            if check["status"] in ("failed", "warned"):
                found.setdefault(check["id"], []).append((scenario["id"], check))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conform", required=True)
    parser.add_argument("--connector")
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--fault")
    parser.add_argument("--image")
    parser.add_argument("--runtime", default="podman")
    parser.add_argument("--global-arg", action="append")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--only", help="passed to conform run --only")
    parser.add_argument("--extension-keys", help="passed to conform run --extension-keys")
    parser.add_argument("--claims", default="tail,range,merge,projections",
                        help="extensions the test config claims, comma separated, or 'none'")
    parser.add_argument("--read-timeout", type=float, default=8)
    parser.add_argument("--expect", required=True)
    parser.add_argument("--expect-skipped",
                        help="scenario/check pairs (SCENARIO:CHECK, comma separated, or 'none') "
                             "that must be exactly the skipped ones")
    parser.add_argument("--keep", help="copy the test folder and report here (debugging)")
    args = parser.parse_args()
    expected = set() if args.expect == "none" else set(args.expect.split(","))

    with tempfile.TemporaryDirectory(prefix="conform-e2e-") as folder:
        test_config = write_test_config(folder, args)
        report_path = os.path.join(folder, "report.json")
        command = [args.conform, "run", "--test-config", test_config, "--report-json", report_path]
        if args.strict:
            command.append("--strict")
        if args.only:
            command += ["--only", args.only]
        if args.extension_keys:
            command += ["--extension-keys", args.extension_keys]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        stdout, stderr = process.communicate(timeout=600)
        completed = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
        left = leftover_containers(args, process.pid) if args.image else []
        if not os.path.exists(report_path):
            print(completed.stdout, completed.stderr)
            sys.exit(f"FAIL: no report written (exit {completed.returncode})")
        with open(report_path) as source:
            report = json.load(source)
        if args.keep:
            shutil.copytree(folder, args.keep, dirs_exist_ok=True)

    seen = not_passing(report)
    failed = any(check["status"] == "failed" for items in seen.values() for _, check in items)
    problems = []
    if set(seen) != expected:
        problems.append(f"checks not passing: {sorted(seen)}; expected exactly: {sorted(expected)}")
    expected_exit = 1 if failed else 0
    if completed.returncode != expected_exit:
        problems.append(f"exit code {completed.returncode}, expected {expected_exit}")
    secret = "ref-secret-value-1234"
    if secret in completed.stdout or secret in json.dumps(report):
        problems.append("the connector's secret appears in conform's report")
    if left:
        problems.append(f"containers left behind: {left}")
    if args.expect_skipped is not None:
        skipped = {f"{scenario['id']}:{check['id']}" for scenario in report["scenarios"]
                   for check in scenario["checks"] if check["status"] == "skipped"}
        wanted = set() if args.expect_skipped == "none" else set(args.expect_skipped.split(","))
        if skipped != wanted:
            problems.append(f"skipped: {sorted(skipped)}; expected exactly: {sorted(wanted)}")
    if problems:
        print(completed.stdout[-6000:])
        print(completed.stderr[-3000:])
        sys.exit("FAIL: " + "; ".join(problems))
    for check_id, items in sorted(seen.items()):
        scenario, check = items[0]
        print(f"caught: {check_id} [{', '.join(check['clauses'])}] {check['status']} in {scenario}: "
              f"{check['examples'][0]['message'] if check['examples'] else check['note']}")
    print(f"ok: {args.fault or 'no fault'} -> {sorted(expected) or 'all checks pass'}")


if __name__ == "__main__":
    main()
