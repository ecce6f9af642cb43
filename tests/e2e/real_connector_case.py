#!/usr/bin/env python3
"""Runs the built conform on a connector written the way a real CDK writes, and checks the verdict.

    real_connector_case.py --conform BIN --source-root DIR --test-config REL [--copy REL ...]
                           [--needs-node-modules REL] [--strict] [--only ...]
                           [--must-pass CHECK[,CHECK...]] [--secret TEXT]
                           --expect CHECK[,CHECK...]|none
    real_connector_case.py --conform BIN --source-root DIR --validate REL --catalog REL
                           [--must-pass ...] --expect CHECK[,CHECK...]|none
    real_connector_case.py --conform BIN --source-root DIR --flags-folder REL
                           --connector 'COMMAND' --config FILE [--catalog FILE] [--strict] ...

With --flags-folder, conform runs with flags only (no test config), as a newcomer would:
`conform run --connector COMMAND --config FILE [--catalog FILE]`, where {dir} in COMMAND is the
copied folder and FILE names are relative to it.

The connectors live in tests/connectors/ (tests/connectors/README.md says what each is and which
verdict each of its behaviours deserves). The test config's folder and every --copy folder (paths
relative to the source root) are copied, at the same relative paths, into a fresh temporary folder
(node_modules is linked, not copied), so a run never touches the source tree. Then
`conform run --test-config ... --report-json ...` runs there, or with --validate,
`conform validate --catalog ... TRANSCRIPT --report-json ...`.

Asserts: exactly the expected checks did not pass (failed or warned; "none": all passed), the exit
code is 1 when a check failed and 0 otherwise, every --must-pass check passed in at least one
scenario (so a run that skipped everything cannot pass), and the --secret value appears nowhere in
conform's output or report. Exits 77 (skipped, with the reason) when --needs-node-modules names a
folder whose node_modules lacks a package of its package.json, or node is not installed.
"""
import argparse
import json
import os
import shutil
import sys

import harness

SKIP = 77


def copy_tree(source_root, relative, destination_root):
    source = os.path.join(source_root, relative)
    destination = os.path.join(destination_root, relative)
    shutil.copytree(source, destination, symlinks=True,
                    ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
    modules = os.path.join(source, "node_modules")
    if os.path.isdir(modules):
        os.symlink(os.path.abspath(modules), os.path.join(destination, "node_modules"))


def node_modules_problem(source_root, relative):
    folder = os.path.join(source_root, relative)
    if shutil.which("node") is None:
        return "node is not installed (scripts/install-deps.sh installs nodejs and npm)"
    with open(os.path.join(folder, "package.json")) as source:
        dependencies = json.load(source).get("dependencies", {})
    missing = [name for name in dependencies
               if not os.path.isfile(os.path.join(folder, "node_modules", name, "package.json"))]
    if missing:
        return (f"{relative}/node_modules lacks {', '.join(missing)}: run "
                f"`npm ci --prefix {relative}` (scripts/install-deps.sh does)")
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conform", required=True)
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--test-config", help="test config, relative to the source root")
    parser.add_argument("--validate", help="a recorded read transcript (relative to the root)")
    parser.add_argument("--catalog", help="with --validate or --flags-folder: a configured catalog")
    parser.add_argument("--flags-folder", help="a connector folder run with flags only")
    parser.add_argument("--connector", help="with --flags-folder: the connector command")
    parser.add_argument("--config", help="with --flags-folder: the connector config")
    parser.add_argument("--copy", action="append", default=[],
                        help="another folder the test config needs, relative to the source root")
    parser.add_argument("--needs-node-modules", help="folder whose npm packages must be installed")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--only", nargs="+", help="passed to conform run --only")
    parser.add_argument("--must-pass", action="append", default=[],
                        help="checks that must run and pass, comma separated (repeatable)")
    parser.add_argument("--secret", action="append", default=[],
                        help="a config secret that must appear nowhere in conform's output")
    parser.add_argument("--expect-note", action="append", default=[],
                        help="SCENARIO:CHECK=TEXT: that check's note (a skip's reason) says TEXT")
    parser.add_argument("--expect", required=True)
    args = parser.parse_args()
    modes = [bool(args.test_config), bool(args.validate), bool(args.flags_folder)]
    if sum(modes) != 1 or (args.validate and not args.catalog) or \
            (args.flags_folder and not (args.connector and args.config)):
        parser.error("give --test-config, --validate with --catalog, or --flags-folder with "
                     "--connector and --config")
    expected = harness.check_set(args.expect)
    must_pass = {name for group in args.must_pass for name in group.split(",") if name}
    root = os.path.abspath(args.source_root)

    if args.needs_node_modules:
        problem = node_modules_problem(root, args.needs_node_modules)
        if problem:
            print(f"SKIP: {problem}")
            sys.exit(SKIP)

    with harness.temporary_folder("real") as folder:
        report_path = os.path.join(folder, "report.json")
        if args.test_config:
            for relative in [os.path.dirname(args.test_config)] + args.copy:
                copy_tree(root, relative, folder)
            command = [args.conform, "run", "--test-config", os.path.join(folder, args.test_config),
                       "--report-json", report_path]
            if args.only:
                command += ["--only"] + args.only
        elif args.flags_folder:
            copy_tree(root, args.flags_folder, folder)
            copied = os.path.join(folder, args.flags_folder)
            command = [args.conform, "run", "--connector", args.connector.replace("{dir}", copied),
                       "--config", os.path.join(copied, args.config), "--report-json", report_path]
            if args.catalog:
                command += ["--catalog", os.path.join(copied, args.catalog)]
        else:
            command = [args.conform, "validate", "--catalog", os.path.join(root, args.catalog),
                       os.path.join(root, args.validate), "--report-json", report_path]
        if args.strict:
            command.append("--strict")
        completed = harness.run(command, timeout=900, cwd=folder)
        report = harness.load_report(report_path, completed)
        with open(report_path) as source:
            report_text = source.read()

    seen, problems = harness.verdict_problems(report, completed, expected)
    ran = harness.statuses(report)
    for name in sorted(must_pass):
        if "passed" not in ran.get(name, set()):
            problems.append(f"{name} must run and pass; its statuses: {sorted(ran.get(name, []))}")
    problems += harness.note_problems(report, args.expect_note)
    for secret in args.secret:
        if secret in completed.stdout or secret in completed.stderr or secret in report_text:
            problems.append(f"the connector's secret {secret[:4]}... appears in conform's output")
    harness.print_not_passing(seen, "seen")
    harness.fail_with_output(problems, completed, stdout_tail=8000)
    print(f"ok: {args.test_config or args.validate or args.flags_folder} -> "
          f"{sorted(expected) or 'all checks pass'} (exit {completed.returncode})")


main()
