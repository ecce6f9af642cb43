#!/usr/bin/env python3
"""Runs the built conform against the reference Meltano extension and checks the verdict.

    extension_case.py --conform BIN --bin DIR [--fault NAME] [--image IMAGE --runtime RUNTIME
                      [--global-arg ARG]...] [--set KEY=JSON]... [--only NAMES] [--strict]
                      --expect CHECK[,CHECK...]|none

Writes an extension test config ("protocol": "meltano-extension") in a fresh temporary folder
(faults reach the fixture through REFEXT_FAULTS), runs `conform run --test-config` with a JSON
report and a JUnit report, and asserts that exactly the expected checks did not pass (failed or
warned) and that the exit code matches: 1 when a check failed, 0 otherwise. With --image, also
asserts that no container this conform run started is left behind.
"""
import argparse
import json
import os
import xml.etree.ElementTree as ElementTree

import harness


def write_test_config(folder, args):
    extension = {"name": "refext", "invoker": True, "wrapped": "reftool",
                 "env": {"REFEXT_FAULTS": args.fault or ""}}
    if args.image:
        extension.update({"image": args.image, "runtime": args.runtime, "pull": "never",
                          "global_args": args.global_arg or []})
    else:
        extension["path"] = [os.path.abspath(args.bin)]
    config = {
        "protocol": "meltano-extension",
        "extension": extension,
        "commands": [
            {"name": "status", "args": ["invoke", "status"]},
            {"name": "status-direct", "executable": "invoker", "args": ["status"]},
            {"name": "fail", "args": ["invoke", "fail"], "exit": 2},
            {"name": "test", "args": ["invoke", "test"]},
        ],
        "logging": {"levels": True, "timestamps": True, "json": True},
        "timeouts": {"command": 60, "stdin": args.stdin_timeout},
        "grace_seconds": 1,
    }
    for setting in args.set or []:
        key, value = setting.split("=", 1)
        section, name = key.split(".", 1)
        config[section][name] = json.loads(value)
    path = os.path.join(folder, "extension.json")
    with open(path, "w") as out:
        json.dump(config, out, indent=2)
    return path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conform", required=True)
    parser.add_argument("--bin", help="folder with refext_extension, refext_invoker, reftool")
    parser.add_argument("--fault")
    parser.add_argument("--image")
    parser.add_argument("--runtime", default="podman")
    parser.add_argument("--global-arg", action="append")
    parser.add_argument("--set", action="append", help="SECTION.KEY=JSON in the test config")
    parser.add_argument("--only")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--stdin-timeout", type=float, default=10)
    parser.add_argument("--expect", required=True)
    parser.add_argument("--expect-coverage", action="append", default=[],
                        help="coverage the JSON report must show (harness.coverage_problems)")
    args = parser.parse_args()
    expected = harness.check_set(args.expect)

    with harness.temporary_folder("mx-e2e") as folder:
        test_config = write_test_config(folder, args)
        command, report_path, junit_path = harness.run_command(args.conform, test_config, folder,
                                                               args)
        before = harness.container_names(args.runtime, args.global_arg) if args.image else []
        completed = harness.run(command)
        left = harness.leftover_containers(args.runtime, args.global_arg, completed.pid,
                                           before) if args.image else []
        report = harness.load_report(report_path, completed)
        junit = ElementTree.parse(junit_path).getroot()

    seen, problems = harness.verdict_problems(report, completed, expected)
    if not harness.checks_with_status(report, ("passed",)) and not expected:
        problems.append("no check passed")
    if left:
        problems.append(f"containers left behind: {left}")
    cases = junit.findall(".//testcase")
    if not cases:
        problems.append("the JUnit report has no test case")
    if args.expect_coverage:
        problems += harness.coverage_problems(report, args.expect_coverage)
    harness.fail_with_output(problems, completed)
    harness.print_not_passing(seen, "caught")
    print(f"ok: {args.fault or 'no fault'} -> {sorted(expected) or 'all checks pass'}")


if __name__ == "__main__":
    main()
