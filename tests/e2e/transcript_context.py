#!/usr/bin/env python3
"""A failure's report shows the transcript lines around it, with secrets masked.

    transcript_context.py --conform BIN --connector BIN --fixtures DIR

Runs `conform run --only read` on the reference connector with the faults stdout_garbage (a
non-JSON line 3, right after the first record) and leak_secret (line 1 logs the config's
api_key), and asserts that the JSON, HTML and Markdown reports show lines 1 to 6 around line 3,
line 3 marked, and that the secret in the neighbouring line 1 is masked everywhere.
"""
import html
import json
import os
import sys

import harness

SECRET = harness.SECRET
OFFENDING = "DEBUG: fetching page 2"


def json_lines_example(report):
    for scenario in report["scenarios"]:
        for check in scenario["checks"]:
            if check["id"] == "io.json_lines" and check["examples"]:
                return check["examples"][0]
    sys.exit("FAIL: no io.json_lines example in the report")


def main():
    args = harness.reference_arguments().parse_args()
    problems = []
    with harness.temporary_folder("context") as folder:
        test_config = harness.write_test_config(folder, args.fixtures, connector=args.connector,
                                                fault="stdout_garbage,leak_secret", claims="none")
        paths = {kind: os.path.join(folder, "report." + kind) for kind in ("json", "html", "md")}
        command = [args.conform, "run", "--test-config", test_config, "--only", "read",
                   "--report-json", paths["json"], "--html", paths["html"],
                   "--markdown", paths["md"]]
        completed = harness.run(command, timeout=300)
        if completed.returncode != 1:
            print(completed.stdout[-4000:], completed.stderr[-2000:])
            sys.exit(f"FAIL: exit {completed.returncode}, expected 1 (io.json_lines fails)")
        texts = {}
        for kind, path in paths.items():
            with open(path, encoding="utf-8") as source:
                texts[kind] = source.read()

    example = json_lines_example(json.loads(texts["json"]))
    context = {line["line"]: line["text"] for line in example.get("context", [])}
    if example["line"] != 3 or sorted(context) != [1, 2, 3, 4, 5, 6]:
        problems.append(f"expected lines 1-6 around line 3, got line {example['line']} with "
                        f"{sorted(context)}")
    if context.get(3) != OFFENDING:
        problems.append(f"line 3 is {context.get(3)!r}, expected {OFFENDING!r}")
    if "authenticating with key **********" not in context.get(1, ""):
        problems.append(f"line 1 (the leaked secret) is not masked: {context.get(1)!r}")
    if not context.get(2, "").startswith('{"type":"RECORD"'):
        problems.append(f"line 2 is not the first record: {context.get(2)!r}")
    for kind, text in texts.items():
        if SECRET in text or SECRET[:10] in text:
            problems.append(f"the secret (or its start) appears in the {kind} report")
    marked_html = f'<mark class="offending">&gt;       3 | {html.escape(OFFENDING)}</mark>'
    if marked_html not in texts["html"]:
        problems.append("the HTML report does not mark line 3 among its neighbours")
    if html.escape("      1 | " + context.get(1, "")) not in texts["html"]:
        problems.append("the HTML report does not show line 1 next to the failure")
    if f">       3 | {OFFENDING}" not in texts["md"] or "        2 | {" not in texts["md"]:
        problems.append("the Markdown summary does not show lines 2 and 3 (marked)")
    if problems:
        sys.exit("FAIL: " + "; ".join(problems))
    print("ok: lines 1-6 around the failing line 3, line 1's secret masked, in JSON, HTML and "
          "Markdown")


if __name__ == "__main__":
    main()
