#!/usr/bin/env python3
"""Approval (golden) files: conform's console output, JUnit XML and Markdown summary, as approved.

    approval.py --conform BIN --connector BIN --fixtures DIR --source-root DIR --case NAME
                [--approve]

Runs one case (CASES below) of the built conform in a fresh temporary folder, with stdout and
stderr piped (so the console is not interactive: no live progress line, no colours), masks what
varies between runs and machines (MASKS below), and compares the three texts with the approved
files tests/e2e/approved/NAME.console.txt, NAME.junit.xml and NAME.summary.md. On a mismatch it
prints a unified diff, writes what it received next to the approved file as
NAME.*.received.* (gitignored) and fails. With --approve or CONFORM_APPROVE=1 it writes the
received texts as the approved files instead (review the diff before committing them).

What the masks replace, in this order (nothing else is masked; a new volatile field needs a
rule here):
- the exact paths of the temporary folder, the conform binary, the connector and the source
  checkout: <tmp>, <conform>, <connector>, <source>; conform's own private folders
  (TMPDIR/conform-XXXXXX): <private>;
- durations ("3 ms", "2.5 s", JUnit time="0.033"), timestamps (ISO 8601) and emitted_at values;
- pids and container or run names (conform-PID-N-RANDOM, "pid 1234");
- record throughput in progress lines ("1234 records/s");
- the conform version ("conform 0.1.0").
"""
import difflib
import os
import re
import sys
import tempfile

import harness

APPROVED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "approved")
HARDCODED = "tests/data/airbyte/transcripts/source-hardcoded-records"

# name: (fault of the reference connector or None for `conform validate`, conform arguments).
# Paths in the arguments: {source} is the source checkout; relative paths are in the run folder.
CASES = {
    # The full suite against the correct reference connector: every scenario passes.
    "reference_passes": ("", ["run", "--test-config", "conform.json"]),
    # --fail-fast on a fault that fails the third scenario (check-invalid): two scenarios pass,
    # the run stops at the failure.
    "fail_fast_check_always_succeeds": ("check_always_succeeds",
                                        ["run", "--test-config", "conform.json", "--fail-fast"]),
    # `conform validate` on Airbyte's recorded source-hardcoded-records read.
    "validate_hardcoded_records": (None, ["validate", "--catalog",
                                          f"{{source}}/{HARDCODED}/configured_catalog.json",
                                          f"{{source}}/{HARDCODED}/read.jsonl"]),
}
REPORTS = ["--junit", "junit.xml", "--markdown", "summary.md"]
# (approved file suffix, received file suffix, what the run wrote: console or a report file)
TEXTS = [("console.txt", "console.received.txt", None),
         ("junit.xml", "junit.received.xml", "junit.xml"),
         ("summary.md", "summary.received.md", "summary.md")]

MASKS = [
    (re.escape(tempfile.gettempdir()) + r"/conform-[A-Za-z0-9]{6}\b", "<private>"),
    (r"\b\d+(\.\d+)? ?(ms|s)\b", "N \\2"),
    (r'\btime="[0-9.]+"', 'time="N"'),
    (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?", "<timestamp>"),
    (r'(\\?"emitted_at\\?":)\d+', "\\1<ms>"),
    (r"\bconform-\d+-\d+-[0-9a-f]+\b", "conform-<pid>-N-<random>"),
    (r"\bpid \d+\b", "pid <pid>"),
    (r"\b\d+(\.\d+)? records/s\b", "N records/s"),
    (r"\bconform \d+\.\d+\.\d+\S*", "conform <version>"),
]


def masked(text, paths):
    for path, name in paths:
        text = text.replace(path, name)
    for pattern, replacement in MASKS:
        text = re.sub(pattern, replacement, text)
    return text


def run_case(args, folder):
    """Runs the case in folder; returns {approved suffix: received text, unmasked}."""
    fault, arguments = CASES[args.case]
    if fault is not None:
        harness.write_test_config(folder, args.fixtures, connector=args.connector, fault=fault)
    arguments = [argument.format(source=args.source_root) for argument in arguments] + REPORTS
    completed = harness.run([args.conform, *arguments], timeout=600, cwd=folder)
    console = f"$ conform {' '.join(arguments)}\n{completed.stdout}"
    if completed.stderr:
        console += f"[stderr]\n{completed.stderr}"
    console += f"[exit {completed.returncode}]\n"
    texts = {}
    for approved, _, written in TEXTS:
        path = os.path.join(folder, written or "")
        texts[approved] = console if written is None else \
            read_text(path, missing=f"[conform wrote no {written}]\n")
    return texts


def read_text(path, missing=""):
    if not os.path.isfile(path):
        return missing
    with open(path, encoding="utf-8") as source:
        return source.read()


def write_text(path, text):
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)


def differs(case, approved_suffix, received_suffix, received):
    """Whether received differs from the approved file; if so, prints the diff and writes the
    received file next to the approved one (else removes a stale one)."""
    approved_path = os.path.join(APPROVED, f"{case}.{approved_suffix}")
    received_path = os.path.join(APPROVED, f"{case}.{received_suffix}")
    approved = read_text(approved_path)
    if received == approved:
        if os.path.exists(received_path):
            os.remove(received_path)
        return False
    write_text(received_path, received)
    sys.stdout.writelines(difflib.unified_diff(
        approved.splitlines(keepends=True), received.splitlines(keepends=True),
        fromfile=approved_path, tofile=received_path))
    return True


def main():
    parser = harness.reference_arguments()
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--case", required=True, choices=sorted(CASES))
    parser.add_argument("--approve", action="store_true",
                        help="write the received texts as the approved files")
    args = parser.parse_args()
    for name in ("conform", "connector", "fixtures", "source_root"):
        setattr(args, name, os.path.abspath(getattr(args, name)))
    approve = args.approve or os.environ.get("CONFORM_APPROVE") == "1"

    with harness.temporary_folder("approval") as folder:
        texts = run_case(args, folder)
        paths = [(folder, "<tmp>"), (args.conform, "<conform>"), (args.connector, "<connector>"),
                 (args.source_root, "<source>")]
        received = {suffix: masked(text, paths) for suffix, text in texts.items()}

    os.makedirs(APPROVED, exist_ok=True)
    if approve:
        for approved, received_suffix, _ in TEXTS:
            write_text(os.path.join(APPROVED, f"{args.case}.{approved}"), received[approved])
            stale = os.path.join(APPROVED, f"{args.case}.{received_suffix}")
            if os.path.exists(stale):
                os.remove(stale)
        print(f"approved: {args.case} ({', '.join(a for a, _, _ in TEXTS)})")
        return
    differing = [f"{args.case}.{approved}" for approved, received_suffix, _ in TEXTS
                 if differs(args.case, approved, received_suffix, received[approved])]
    if differing:
        sys.exit(f"FAIL: {', '.join(differing)} differ from the approved files (received: "
                 f"tests/e2e/approved/{args.case}.*.received.*). If the change is intended, "
                 f"approve it: CONFORM_APPROVE=1 ctest -R e2e.approval.{args.case}")
    print(f"ok: {args.case}: console, JUnit and Markdown match the approved files")


if __name__ == "__main__":
    main()
