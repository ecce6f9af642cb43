#!/usr/bin/env python3
"""Runs `conform diff` between the reference connector and a changed version of it.

    diff_case.py --conform BIN --connector BIN --fixtures DIR --changes NAME[,NAME...]
                 --expect-breaking RULE[,RULE...]|none [--expect-harmless RULE[,RULE...]]
                 [--expect-detail RULE=TEXT ...] [--expect-note TEXT ...]
                 [--keyless] [--no-volatile] [--control-changes NAME[,NAME...]]
                 [--accept RULE=REASON ...] [--image CONTROL --target-image TARGET --runtime R]
                 [-- extra conform arguments]

The target is the same connector with CONFORM_REF_CHANGES=NAME (natively: `env ... CONNECTOR`;
as an image: --target-image, built with that variable set). Asserts that the unaccepted breaking
changes of the diff are exactly the expected rules, that every expected harmless rule is reported
and not breaking, that the exit code is 1 exactly when something breaks, and that the JSON and JUnit
reports carry the same diff. --expect-detail: a change of RULE whose detail contains TEXT;
--expect-note: a note containing TEXT. --keyless: the configured catalog names no primary key
(with the change keyless_streams, nothing does); --no-volatile: the test config declares no
volatile field; --no-catalog: it names no catalog (each version's comes from its discover). The HTML report and the Markdown summary must head with the diff's verdict and
carry every rule, the per-stream counts and the notes.
"""
import html as html_module
import os
import re
import sys
import xml.etree.ElementTree as ElementTree

import harness


def write_test_config(folder, args, changes=""):
    harness.copy_fixtures(folder, args.fixtures)
    if args.keyless:
        harness.strip_keys(folder)
    connector = {"command": [os.path.abspath(args.connector)],
                 "env": {"CONFORM_REF_CHANGES": changes}}
    if args.image:
        connector = {"image": args.image, "runtime": args.runtime, "pull": "never",
                     "global_args": args.global_arg or []}
    accepted = []
    for entry in args.accept or []:
        rule, _, reason = entry.partition("=")
        accepted.append({"change": rule, "reason": reason})
    config = {
        "connector": connector,
        "config": "config.json",
        "invalid_config": "invalid_config.json",
        "catalog": None if args.no_catalog else "configured_catalog.json",
        "volatile_fields": {} if args.no_volatile else {"users": ["/fetched_at"]},
        "expected_records": {"path": "expected_records.jsonl", "mode": "subset"},
        "timeouts": {"spec": 20, "check": 20, "discover": 20, "read": 60},
        "grace_seconds": 1,
        "accepted_changes": accepted,
    }
    config = {key: value for key, value in config.items() if value is not None}
    return harness.write_file(folder, f"conform{'-' + changes if changes else ''}.json", config,
                              indent=2)


def rule_set(text):
    return set() if text in ("", "none") else set(text.split(","))


def escaped(text):
    """As conform's markup_escaped writes text into HTML."""
    return html_module.escape(text, quote=True).replace("&#x27;", "&#39;")


def inline(text):
    """As conform's Markdown summary writes text inline."""
    text = re.sub(r"[\n\r\t]", " ", text)
    return re.sub(r"([|<>*_`\[\]\\])", r"\\\1", text)


def page_problems(html_path, markdown_path, diff):
    """The HTML report and the Markdown summary head with the diff's verdict and carry the same
    differences, per-stream counts and notes as the JSON report."""
    problems = []
    if not os.path.exists(html_path) or not os.path.exists(markdown_path):
        return ["no HTML report or Markdown summary was written"]
    with open(html_path) as html_file, open(markdown_path) as markdown_file:
        html, markdown = html_file.read(), markdown_file.read()
    if "Differences from" not in html or "### Differences from" not in markdown:
        return ["the HTML report or the Markdown summary has no differences section"]
    for change in diff["changes"]:
        if change["rule"] not in html or change["rule"] not in markdown:
            problems.append(f"{change['rule']} is missing from the HTML or Markdown report")
    if f"{diff['breaking']} breaking and not accepted" not in html:
        problems.append("the HTML report's breaking count disagrees with the JSON report")
    verdict = ("no breaking change" if diff["breaking"] == 0
               else f"{diff['breaking']} breaking change(s)")
    headline = markdown.splitlines()[0] if markdown else ""
    mark = "\u2705" if diff["breaking"] == 0 else "\u274c"
    if not headline.startswith(f"## {mark} conform diff:") or not headline.endswith(verdict):
        problems.append(f"the Markdown headline is not the diff's verdict: {headline!r}")
    heading = re.search(r"<h1>(.*?)</h1>", html)
    if not heading or not heading.group(1).startswith(f"conform diff: {verdict}"):
        problems.append("the HTML headline is not the diff's verdict: "
                        f"{heading.group(1) if heading else None!r}")
    for row in diff["streams"]:
        cells = f"| {inline(row['stream'])} | {row['control']} \u2192 {row['target']} |"
        if cells not in markdown or f"<code>{escaped(row['stream'])}</code>" not in html:
            problems.append(f"the per-stream counts of {row['stream']} are missing from the "
                            "HTML or Markdown report")
    for note in diff["notes"]:
        if escaped(note) not in html or inline(note) not in markdown:
            problems.append(f"the note {note!r} is missing from the HTML or Markdown report")
    return problems


def expectation_problems(args, diff):
    """--expect-detail and --expect-note."""
    problems = []
    for entry in args.expect_detail or []:
        rule, _, text = entry.partition("=")
        if not any(c["rule"] == rule and text in c["detail"] for c in diff["changes"]):
            problems.append(f"no {rule} whose detail contains {text!r}")
    for text in args.expect_note or []:
        if not any(text in note for note in diff["notes"]):
            problems.append(f"no note contains {text!r}")
    return problems


def help_problems(conform):
    """`conform diff --help` states diff's own exit codes, not only run's."""
    result = harness.run([conform, "diff", "--help"])
    text = " ".join(result.stdout.split())
    wanted = ["Exit codes of diff: 0 no breaking difference", "1 at least one breaking difference"]
    missing = [phrase for phrase in wanted if phrase not in text]
    if result.returncode != 0 or missing:
        print(result.stdout, result.stderr, sep="\n")
        print(f"FAIL: exit {result.returncode}; missing from the help: {missing}")
        return 1
    print("PASS: conform diff --help states diff's exit codes")
    return 0


def main():
    parser = harness.reference_arguments()
    parser.add_argument("--changes", required=True)
    parser.add_argument("--control-changes", default="",
                        help="CONFORM_REF_CHANGES of the control (default: none)")
    parser.add_argument("--expect-breaking", required=True)
    parser.add_argument("--expect-harmless", default="")
    parser.add_argument("--expect-detail", action="append")
    parser.add_argument("--expect-note", action="append")
    parser.add_argument("--keyless", action="store_true")
    parser.add_argument("--no-volatile", action="store_true")
    parser.add_argument("--no-catalog", action="store_true",
                        help="the test config names no catalog: each version's is discovered")
    parser.add_argument("--accept", action="append")
    parser.add_argument("--image")
    parser.add_argument("--target-image")
    parser.add_argument("--runtime", default="podman")
    parser.add_argument("--global-arg", action="append")
    parser.add_argument("--baseline", action="store_true",
                        help="save the control's report with --record-digests, then run the "
                             "target with --baseline instead of `conform diff`")
    parser.add_argument("--help-only", action="store_true",
                        help="only check that `conform diff --help` states diff's exit codes")
    parser.add_argument("extra", nargs="*")
    args = parser.parse_args()
    if args.help_only:
        return help_problems(args.conform)

    with harness.temporary_folder("diff") as folder:
        test_config = write_test_config(folder, args)
        report_path = os.path.join(folder, "report.json")
        junit_path = os.path.join(folder, "report.xml")
        html_path = os.path.join(folder, "report.html")
        markdown_path = os.path.join(folder, "summary.md")
        pages = ["--html", html_path, "--markdown", markdown_path]
        command = [args.conform, "diff", "--test-config", test_config,
                   "--report-json", report_path, "--junit", junit_path] + pages
        if args.baseline:
            baseline_path = os.path.join(folder, "baseline.json")
            saved = harness.run([args.conform, "run", "--test-config", test_config,
                                 "--record-digests", "--report-json", baseline_path] + args.extra)
            if saved.returncode != 0 or "streams" not in harness.load_json(baseline_path):
                print(saved.stdout, saved.stderr, sep="\n")
                print(f"FAIL: the control's run with --record-digests exited {saved.returncode}"
                      " or its report has no streams")
                return 1
            command = [args.conform, "run", "--test-config",
                       write_test_config(folder, args, args.changes), "--baseline",
                       baseline_path, "--report-json", report_path, "--junit", junit_path] + pages
        elif args.image:
            command += ["--control-image", args.image, "--target-image", args.target_image]
        else:
            connector = os.path.abspath(args.connector)
            command += ["--control", f"env CONFORM_REF_CHANGES={args.control_changes} {connector}",
                        "--target", f"env CONFORM_REF_CHANGES={args.changes} {connector}"]
        command += args.extra
        result = harness.run(command)
        problems = []
        if not os.path.exists(report_path):
            print(result.stdout, result.stderr, sep="\n")
            print(f"FAIL: no JSON report (exit {result.returncode})")
            return 1
        whole = harness.load_json(report_path)
        diff = whole["diff"]
        # The target's report says what its run judged (a diff once left its clauses out).
        clauses = whole.get("coverage", {}).get("clauses", [])
        if not any(clause["state"] == "judged" for clause in clauses):
            problems.append("the report's coverage says no clause was judged")
        breaking = {c["rule"] for c in diff["changes"] if c["breaking"] and "accepted" not in c}
        harmless = {c["rule"] for c in diff["changes"] if not c["breaking"]}
        expected_breaking = rule_set(args.expect_breaking)
        if breaking != expected_breaking:
            problems.append(f"breaking rules {sorted(breaking)}, expected "
                            f"{sorted(expected_breaking)}")
        missing = rule_set(args.expect_harmless) - harmless
        if missing:
            problems.append(f"harmless rules not reported: {sorted(missing)}")
        if diff["breaking"] != sum(1 for c in diff["changes"]
                                   if c["breaking"] and "accepted" not in c):
            problems.append("the JSON report's breaking count disagrees with its changes")
        for entry in args.accept or []:
            rule = entry.partition("=")[0]
            if not any(c["rule"] == rule and c.get("accepted") for c in diff["changes"]):
                problems.append(f"{rule} is not marked accepted")
        expected_exit = 1 if expected_breaking else 0
        if result.returncode != expected_exit:
            problems.append(f"exit code {result.returncode}, expected {expected_exit}")
        suites = [s for s in ElementTree.parse(junit_path).getroot().iter("testsuite")
                  if s.get("name") == "diff"]
        if len(suites) != 1 or int(suites[0].get("failures")) != diff["breaking"]:
            problems.append("the JUnit report has no diff testsuite with one failure per "
                            "breaking change")
        problems += expectation_problems(args, diff)
        problems += page_problems(html_path, markdown_path, diff)
        # The saved report renders the same differences again (conform report).
        html_again = os.path.join(folder, "again.html")
        markdown_again = os.path.join(folder, "again.md")
        harness.run([args.conform, "report", report_path, "--html", html_again,
                     "--markdown", markdown_again])
        problems += [f"conform report of the saved report: {problem}"
                     for problem in page_problems(html_again, markdown_again, diff)]
        if problems:
            print(result.stdout[-6000:], result.stderr[-3000:], sep="\n")
            for problem in problems:
                print("FAIL:", problem)
            return 1
        print(f"PASS: breaking {sorted(breaking)}, harmless {sorted(harmless)}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
