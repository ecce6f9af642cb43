#!/usr/bin/env python3
"""Runs the built conform against the reference connector and checks the verdict.

    conform_case.py --conform BIN --connector BIN --fixtures DIR [--fault NAME] [--image IMAGE
                    --runtime RUNTIME ...] [--strict] [--keyless] --expect CHECK[,CHECK...]|none

Writes a test config in a fresh temporary folder (faults are passed to the connector through
REFERENCE_CONNECTOR_FAULTS, which it applies to every command), runs `conform run` with a JSON
report, and asserts that exactly the expected checks did not pass (failed or warned), and that
the exit code matches: 1 when a check failed, 0 otherwise. Prints the report's failures on error.
"""
import json
import os
import shutil

import harness


def main():
    parser = harness.reference_arguments(connector_required=False)
    parser.add_argument("--fault")
    parser.add_argument("--image")
    parser.add_argument("--runtime", default="podman")
    parser.add_argument("--global-arg", action="append")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--only", help="passed to conform run --only")
    parser.add_argument("--config-set", action="append", default=[],
                        help="KEY=JSON in the connector's config.json")
    parser.add_argument("--test-config-set", action="append", default=[],
                        help="KEY=JSON in the test config (conform.json)")
    parser.add_argument("--expect-coverage", action="append", default=[],
                        help="coverage the JSON report must show (harness.coverage_problems)")
    parser.add_argument("--extension-keys", help="passed to conform run --extension-keys")
    parser.add_argument("--claims", default=harness.CLAIMS,
                        help="extensions the test config claims, comma separated, or 'none'")
    parser.add_argument("--read-timeout", type=float, default=8)
    parser.add_argument("--grace-seconds", type=float, default=1)
    parser.add_argument("--expect", required=True)
    parser.add_argument("--may-fail", default="none",
                        help="checks that may or may not pass, comma separated: their verdict "
                             "depends on timing the case cannot control")
    parser.add_argument("--expect-skipped",
                        help="scenario/check pairs (SCENARIO:CHECK, comma separated, or 'none') "
                             "that must be exactly the skipped ones")
    parser.add_argument("--expect-note", action="append", default=[],
                        help="SCENARIO:CHECK=TEXT: that check's note (a skip's reason) says TEXT")
    parser.add_argument("--keyless", action="store_true",
                        help="the configured catalog names no primary key")
    parser.add_argument("--keep", help="copy the test folder and report here (debugging)")
    args = parser.parse_args()
    expected = harness.check_set(args.expect)

    with harness.temporary_folder("e2e") as folder:
        test_config = harness.write_test_config(
            folder, args.fixtures, connector=args.connector, fault=args.fault, image=args.image,
            runtime=args.runtime, global_args=args.global_arg, claims=args.claims,
            read_timeout=args.read_timeout, grace_seconds=args.grace_seconds)
        for setting in args.config_set:
            key, _, value = setting.partition("=")
            config_path = os.path.join(folder, "config.json")
            config = harness.load_json(config_path)
            config[key] = json.loads(value)
            harness.write_file(folder, "config.json", config, indent=2)
        for setting in args.test_config_set:
            key, _, value = setting.partition("=")
            settings = harness.load_json(test_config)
            settings[key] = json.loads(value)
            harness.write_file(folder, "conform.json", settings, indent=2)
        command, report_path, _ = harness.run_command(args.conform, test_config, folder, args,
                                                      junit=False)
        if args.extension_keys:
            command += ["--extension-keys", args.extension_keys]
        if args.keyless:
            harness.strip_keys(folder)
        before = harness.container_names(args.runtime, args.global_arg) if args.image else []
        completed = harness.run(command)
        left = harness.leftover_containers(args.runtime, args.global_arg, completed.pid,
                                           before) if args.image else []
        report = harness.load_report(report_path, completed)
        if args.keep:
            shutil.copytree(folder, args.keep, dirs_exist_ok=True)

    may_fail = harness.check_set(args.may_fail)
    seen, problems = harness.verdict_problems(report, completed, expected, may_fail)
    if harness.SECRET in completed.stdout or harness.SECRET in json.dumps(report):
        problems.append("the connector's secret appears in conform's report")
    if left:
        problems.append(f"containers left behind: {left}")
    problems += harness.skipped_problems(report, args.expect_skipped)
    problems += harness.note_problems(report, args.expect_note)
    if args.expect_coverage:
        problems += harness.coverage_problems(report, args.expect_coverage, completed.stdout)
    harness.fail_with_output(problems, completed)
    harness.print_not_passing(seen, "caught")
    print(f"ok: {args.fault or 'no fault'} -> {sorted(expected) or 'all checks pass'}")


if __name__ == "__main__":
    main()
