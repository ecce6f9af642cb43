#!/usr/bin/env python3
"""Runs the built conform against a Singer tap and checks the verdict.

    singer_case.py --conform BIN --tap-dir DIR [--fault NAME[,NAME...]] [--set KEY=JSON]...
                   [--only NAMES] [--strict] [--expect-skipped SCENARIO:CHECK,...]
                   [--must-pass CHECK,...] [--secret TEXT] --expect CHECK[,CHECK...]|none
                   [--expect-input-error TEXT]

The tap's folder (fixtures/reference-tap, or a test tap of tests/connectors/) is copied to a fresh
temporary folder; its conform.json is rewritten there with REFTAP_FAULTS / the test tap's quirk
variable in the tap's environment, --set values, and a batch config whose batch_dir lies in that
folder. Then `conform run --test-config ... --report-json ... --junit ...` runs, and the driver
asserts that exactly the expected checks did not pass (failed or warned), that the exit code is 1
when one failed and 0 otherwise, that every --must-pass check passed somewhere, that the
--expect-skipped pairs (and, when given, only they) were skipped, and that the secret appears
nowhere in conform's output or reports. With --expect-input-error, the run must instead be refused
as bad input (exit 3) with TEXT on stderr.
"""
import argparse
import json
import os
import shutil

import harness


def write_test_config(folder, args):
    path = os.path.join(folder, "conform.json")
    with open(path) as source:
        config = json.load(source)
    env = config["tap"].setdefault("env", {})
    if args.fault:
        env[args.fault_variable] = args.fault
    batch = os.path.join(folder, "config.batch.json")
    with open(os.path.join(folder, config["config"])) as source:
        tap_config = json.load(source)
    for setting in args.tap_set or []:
        key, value = setting.split("=", 1)
        tap_config[key] = json.loads(value)
    if args.tap_set:
        harness.write_file(folder, config["config"], tap_config)
    if args.fault_variable == "SDKSTYLE_QUIRKS" or "auth_token" in tap_config:
        tap_config["batch_config"] = {
            "encoding": {"format": "jsonl", "compression": "gzip"},
            "storage": {"root": "file://" + os.path.join(folder, "batches"), "prefix": "batch-"}}
    else:
        tap_config["batch_dir"] = os.path.join(folder, "batches")
    harness.write_file(folder, "config.batch.json", tap_config)
    config.setdefault("batch_config", os.path.basename(batch))
    for setting in args.set or []:
        key, value = setting.split("=", 1)
        target = config
        parts = key.split(".")
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = json.loads(value)
    harness.write_file(folder, "conform.json", config, indent=2)
    return path


def expect_input_error(completed, text):
    problems = []
    if completed.returncode != 3:
        problems.append(f"exit {completed.returncode}, expected 3 (bad input)")
    if text not in completed.stderr:
        problems.append(f"stderr does not say {text!r}")
    harness.fail_with_output(problems, completed)
    print(f"ok: refused with {text!r}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conform", required=True)
    parser.add_argument("--tap-dir", required=True)
    parser.add_argument("--fault")
    parser.add_argument("--fault-variable", default="REFTAP_FAULTS")
    parser.add_argument("--set", action="append", help="KEY.PATH=JSON in the test config")
    parser.add_argument("--tap-set", action="append", help="KEY=JSON in the tap's config")
    parser.add_argument("--only")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--expect-skipped", default="")
    parser.add_argument("--must-pass", action="append", default=[])
    parser.add_argument("--must-warn", action="append", default=[],
                        help="checks that must warn (a SHOULD), never fail")
    parser.add_argument("--must-fail", action="append", default=[],
                        help="checks that must fail (a MUST) somewhere, not only warn")
    parser.add_argument("--must-skip", action="append", default=[],
                        help="checks that must be skipped wherever they appear (never passed)")
    parser.add_argument("--secret", action="append", default=[])
    parser.add_argument("--expect-note", action="append", default=[],
                        help="SCENARIO:CHECK=TEXT: that check's note (a skip's reason) says TEXT")
    parser.add_argument("--expect", required=True)
    parser.add_argument("--expect-coverage", action="append", default=[],
                        help="coverage the JSON report must show (harness.coverage_problems)")
    parser.add_argument("--expect-input-error")
    args = parser.parse_args()
    expected = harness.check_set(args.expect)
    must_pass = {name for group in args.must_pass for name in group.split(",") if name}

    with harness.temporary_folder("singer-e2e") as folder:
        tap = os.path.join(folder, "tap")
        shutil.copytree(args.tap_dir, tap, ignore=shutil.ignore_patterns("__pycache__"))
        test_config = write_test_config(tap, args)
        command, report_path, junit_path = harness.run_command(args.conform, test_config, folder,
                                                               args)
        completed = harness.run(command, timeout=900)
        if args.expect_input_error is not None:
            expect_input_error(completed, args.expect_input_error)
            return
        report = harness.load_report(report_path, completed)
        texts = [completed.stdout, completed.stderr]
        for path in (report_path, junit_path):
            with open(path) as source:
                texts.append(source.read())

    seen, problems = harness.verdict_problems(report, completed, expected)
    protocol = report.get("metadata", {}).get("protocol")
    if protocol != "singer":
        problems.append(f"the report's protocol is {protocol!r}, expected 'singer'")
    ran = harness.statuses(report)
    for name in sorted(must_pass):
        if "passed" not in ran.get(name, set()):
            problems.append(f"{name} must run and pass; its statuses: {sorted(ran.get(name, []))}")
    for name in sorted({name for group in args.must_warn for name in group.split(",") if name}):
        if "warned" not in ran.get(name, set()) or "failed" in ran.get(name, set()):
            problems.append(f"{name} must warn, not fail; its statuses: "
                            f"{sorted(ran.get(name, []))}")
    problems += harness.note_problems(report, args.expect_note)
    for name in sorted({name for group in args.must_fail for name in group.split(",") if name}):
        if "failed" not in ran.get(name, set()):
            problems.append(f"{name} must fail; its statuses: {sorted(ran.get(name, []))}")
    for name in sorted({name for group in args.must_skip for name in group.split(",") if name}):
        if ran.get(name, set()) != {"skipped"}:
            problems.append(f"{name} must be skipped (nothing to judge); its statuses: "
                            f"{sorted(ran.get(name, []))}")
    if args.expect_skipped:
        wanted = set(filter(None, args.expect_skipped.split(",")))
        skipped = harness.skipped_pairs(report)
        if wanted != {"-"} and skipped != wanted:
            problems.append(f"skipped: {sorted(skipped)}; expected exactly: {sorted(wanted)}")
    for secret in args.secret:
        if any(secret in text for text in texts):
            problems.append(f"the secret {secret[:4]}... appears in conform's output or reports")
    if args.expect_coverage:
        problems += harness.coverage_problems(report, args.expect_coverage)
    harness.fail_with_output(problems, completed)
    harness.print_not_passing(seen, "caught")
    print(f"ok: {args.fault or 'no fault'} -> {sorted(expected) or 'all checks pass'}")


if __name__ == "__main__":
    main()
