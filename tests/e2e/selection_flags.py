#!/usr/bin/env python3
"""--only/--skip globs, --dry-run and --fail-fast on the built conform and the reference connector.

    selection_flags.py --conform BIN --connector BIN --fixtures DIR
"""
import os
import re
import sys

import harness


def main():
    args = harness.reference_arguments().parse_args()
    problems = []

    with harness.temporary_folder("select") as folder:
        def test_config(fault):
            sub = os.path.join(folder, fault or "clean")
            os.makedirs(sub)
            return harness.write_test_config(sub, args.fixtures, connector=args.connector,
                                             fault=fault)

        def conform(*arguments):
            return harness.run([args.conform, "run", *arguments], cwd=folder)

        clean = test_config(None)
        listed = conform("--test-config", clean, "--dry-run", "--only", "range-*,read",
                         "--skip", "range-malformed")
        scenarios = re.findall(r"^([a-z][a-z0-9-]*)  ", listed.stdout, re.MULTILINE)
        if listed.returncode != 0 or scenarios != ["read", "range-splits", "range-subdivide",
                                                   "range-absent"]:
            problems.append(f"--dry-run with globs listed {scenarios} (exit {listed.returncode})")
        if "step halves" not in listed.stdout or "split halves -> 2 run(s)" not in listed.stdout:
            problems.append("--dry-run does not show range-splits' halves step and its 2 runs")
        if "scenario(s) would run" not in listed.stdout:
            problems.append("--dry-run prints no total")

        checks_only = conform("--test-config", clean, "--dry-run", "--only", "state.resume_*")
        wanted = "checks: state.resume_no_loss, state.resume_exactly_once"
        if wanted not in checks_only.stdout or "state.well_formed" in checks_only.stdout:
            problems.append(f"a check glob in --only: {checks_only.stdout[-800:]!r}")

        unknown = conform("--test-config", clean, "--dry-run", "--only", "nothing-like-this*")
        if unknown.returncode != 2 or "unknown scenario, suite or check" not in unknown.stderr:
            problems.append(f"a glob that matches nothing: exit {unknown.returncode}")

        report = os.path.join(folder, "fail-fast.json")
        faulty = test_config("record_schema_violation")
        fast = conform("--test-config", faulty, "--fail-fast", "--report-json", report)
        ran = harness.load_json(report)
        statuses = [s["status"] for s in ran["scenarios"]]
        if fast.returncode != 1 or statuses[-1] != "failed" or "failed" in statuses[:-1] or \
                ran["scenarios"][-1]["id"] != "read" or not ran["metadata"]["filtered"]:
            problems.append(f"--fail-fast ran {[s['id'] for s in ran['scenarios']]} "
                            f"(exit {fast.returncode}); expected to stop after 'read'")

    if problems:
        sys.exit("FAIL: " + "\n  ".join(problems))
    print("ok: globs select scenarios and checks, --dry-run lists steps and runs, --fail-fast "
          "stops at the first failed scenario")


if __name__ == "__main__":
    main()
