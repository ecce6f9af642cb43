#!/usr/bin/env python3
"""Runs the built conform against the reference destination and checks the verdict.

    destination_case.py --conform BIN --destination BIN --fixtures DIR [--fault NAME]
                        [--quirk NAME] [--set KEY=JSON]... [--strict] [--only NAMES]
                        [--expect-skipped PAIRS|none] --expect CHECK[,CHECK...]|none

Copies the fixture's config, invalid config and catalog into a fresh temporary folder and writes
a destination test config ("protocol": "airbyte-destination") there (faults reach the fixture
through REFDEST_FAULTS, quirks through REFDEST_QUIRKS; --set changes a top-level key or one
below it, e.g. input.records_per_stream=400; a value that is no JSON is a string), runs
`conform run --test-config` with a JSON and a JUnit report, and asserts that exactly the
expected checks did not pass (failed or warned), that the exit code matches (1 when a check failed, 0 otherwise), that the fixture's secret appears
nowhere in conform's output or reports, and with --expect-skipped that exactly those
SCENARIO:CHECK pairs were skipped.
"""
import argparse
import json
import os
import shutil
import xml.etree.ElementTree as ElementTree

import harness

SECRET = "refdest-secret-key-7731"
FILES = ("config.json", "invalid_config.json", "configured_catalog.json", "spec.json")


def write_test_config(folder, args):
    for name in FILES:
        shutil.copy(os.path.join(args.fixtures, name), folder)
    destination = os.path.abspath(args.destination)
    config = {
        "protocol": "airbyte-destination",
        "destination": {"command": [destination],
                        "env": {"REFDEST_FAULTS": args.fault or "", "REFDEST_QUIRKS": args.quirk or ""}},
        "config": "config.json",
        "invalid_config": "invalid_config.json",
        "catalog": "configured_catalog.json",
        "expected_spec": "spec.json",
        "input": {"records_per_stream": 60, "state_every": 10},
        "verify": {"command": [destination, "verify", "--config", "${CONFORM_CONFIG}"]},
        "invalid_records": {"unknown_stream": "drop", "schema_violation": "keep"},
        "kill": {"after_echo": 2},
        "timeouts": {"spec": 20, "check": 20, "write": 120, "verify": 30},
        "grace_seconds": 1,
    }
    if args.known_failure:
        # Named by the test config's key, relative to it (docs/known-failures.md).
        harness.write_file(folder, "known-failures.json", [
            {"check": args.known_failure, "reason": "known: tracked upstream"}])
        config["known_failures"] = "known-failures.json"
    for setting in args.set or []:
        key, text = setting.split("=", 1)
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text  # a bare word is a string
        if "." in key:
            section, name = key.split(".", 1)
            config.setdefault(section, {})[name] = value
        else:
            config[key] = value
    return harness.write_file(folder, "destination.json", config, indent=2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conform", required=True)
    parser.add_argument("--destination", required=True)
    parser.add_argument("--fixtures", required=True)
    parser.add_argument("--fault")
    parser.add_argument("--quirk")
    parser.add_argument("--set", action="append", help="KEY=JSON or SECTION.KEY=JSON")
    parser.add_argument("--only")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--expect", required=True)
    parser.add_argument("--expect-coverage", action="append", default=[],
                        help="coverage the JSON report must show (harness.coverage_problems)")
    parser.add_argument("--known-failure", help="a check listed as a known failure: it must be "
                                                "reported expected-failure and fail nothing")
    parser.add_argument("--expect-skipped")
    parser.add_argument("--expect-note", action="append", default=[],
                        help="SCENARIO:CHECK=TEXT: that check's note (a skip's reason) says TEXT")
    args = parser.parse_args()
    expected = harness.check_set(args.expect)

    with harness.temporary_folder("dst-e2e") as folder:
        test_config = write_test_config(folder, args)
        command, report_path, junit_path = harness.run_command(args.conform, test_config, folder,
                                                               args)
        completed = harness.run(command)
        report = harness.load_report(report_path, completed)
        with open(junit_path) as source:
            junit_text = source.read()
        junit = ElementTree.fromstring(junit_text)

    seen, problems = harness.verdict_problems(report, completed, expected)
    if report["metadata"].get("protocol") != "airbyte-destination":
        problems.append(f"report protocol {report['metadata'].get('protocol')!r}")
    # With --only the selection may be just the check the fault trips.
    if not args.only and not harness.checks_with_status(report, ("passed",)):
        problems.append("no check passed")
    if SECRET in completed.stdout or SECRET in json.dumps(report) or SECRET in junit_text:
        problems.append("the destination's secret appears in conform's output or reports")
    if not junit.findall(".//testcase"):
        problems.append("the JUnit report has no test case")
    if args.known_failure:
        statuses = harness.statuses(report).get(args.known_failure, set())
        if "expected-failure" not in statuses:
            problems.append(f"{args.known_failure}: {sorted(statuses)}, expected expected-failure")
    problems += harness.skipped_problems(report, args.expect_skipped)
    problems += harness.note_problems(report, args.expect_note)
    if args.expect_coverage:
        problems += harness.coverage_problems(report, args.expect_coverage)
    harness.fail_with_output(problems, completed)
    harness.print_not_passing(seen, "caught")
    print(f"ok: {args.fault or args.quirk or 'no fault'} -> {sorted(expected) or 'all checks pass'}")


if __name__ == "__main__":
    main()
