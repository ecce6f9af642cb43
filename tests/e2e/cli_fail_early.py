#!/usr/bin/env python3
"""Fail early, in the user's words (issue 20, item 8): report paths checked before anything runs,
skip reasons in the flags' terms, unclaimed extensions folded into one line, did-you-mean, enum
values listed, --read-timeout ranges, `validate` of nothing valid, rerun lines of `validate` and
`diff`, example locations and the test-config hint.

usage: cli_fail_early.py CONFORM CONNECTOR FIXTURES
"""
import json
import os
import re
import sys

import harness

conform, connector, fixtures = harness.absolute_arguments(3)
failures = []


def run(*args, expect_code, contains=(), lacks=(), env=None):
    environment = dict(os.environ, **(env or {}))
    completed = harness.run([conform, *args], timeout=300, env=environment)
    output = completed.stdout + completed.stderr
    problems = []
    if completed.returncode != expect_code:
        problems.append(f"exit {completed.returncode}, expected {expect_code}")
    problems += [f"output lacks {text!r}" for text in contains if text not in output]
    problems += [f"output has {text!r}" for text in lacks if text in output]
    name = " ".join(os.path.basename(arg) if os.sep in arg else arg for arg in args)[:100]
    if problems:
        failures.append(f"conform {name}: {'; '.join(problems)}\n{output[-3000:]}")
    else:
        print(f"ok: conform {name} -> {expect_code}")
    return completed


def check(condition, what):
    if condition:
        print(f"ok: {what}")
    else:
        failures.append(what)


with harness.temporary_folder("fail-early") as folder:
    config = harness.connector_config(fixtures, folder)
    catalog = os.path.join(fixtures, "configured_catalog.json")
    flags_only = ["run", "--connector", connector, "--config", config, "--catalog", catalog]
    missing_connector = ["run", "--connector", os.path.join(folder, "no-such-connector"),
                         "--config", config, "--catalog", catalog]

    # Report paths: missing folders are created; a path that cannot be written is refused before
    # anything starts (a missing connector would exit 4 once the run began).
    junit = os.path.join(folder, "reports", "new", "junit.xml")
    run(*flags_only, "--only", "spec", "--junit", junit, expect_code=0)
    check(os.path.exists(junit), "--junit creates the report's missing folders")
    blocker = harness.write_file(folder, "a-file", "not a folder")
    run(*missing_connector, "--markdown", os.path.join(blocker, "summary.md"), expect_code=2,
        contains=["--markdown", "cannot write the report there", "cannot create its folder"],
        lacks=["cannot start"])
    run(*missing_connector, "--report-json", folder, expect_code=2,
        contains=["--report-json", "it is a folder"])

    # Skip reasons of a flags-only run name the flags, never test-config keys.
    run(*flags_only, "--only", "check-invalid", expect_code=5,
        contains=["no --invalid-config FILE was given"], lacks=['"invalid_config"'])
    run(*flags_only, "--only", "read-expected", expect_code=5,
        contains=['no test config says "expected_records" (only a test config can'])

    # Extensions nobody claimed: one line for all of them, in the flags' terms, also in Markdown.
    summary = os.path.join(folder, "unclaimed.md")
    run(*flags_only, "--only", "read,range-splits,tail-on", "--markdown", summary, expect_code=0,
        contains=["of extensions the connector does not claim: tail, range, merge; "
                  "a connector that supports one claims it with --extensions tail,range,merge"],
        lacks=["SKIP range-splits", "SKIP merge.reduction_valid", "SKIP tail-on"])
    with open(summary, encoding="utf-8") as source:
        markdown = source.read()
    check("extensions the connector does not claim: tail, range, merge" in markdown
          and "| range-splits |" not in markdown,
          "the Markdown summary folds the unclaimed extensions into one line")

    # Did you mean: sub-commands, flags, --only ids, test-config keys; enums list their values.
    run("rnu", expect_code=2, contains=["unknown sub-command 'rnu' (did you mean 'run'?)"])
    run(*flags_only, "--stirct", expect_code=2,
        contains=["unknown flag --stirct of `conform run` (did you mean '--strict'?)"])
    run(*flags_only, "--only", "state.resume_no_los", expect_code=2,
        contains=["did you mean 'state.resume_no_loss'?"])
    good = {"connector": {"command": [connector]}, "config": config, "catalog": catalog}
    typo = harness.write_file(folder, "typo.json", json.dumps(dict(good, catalogue=catalog)))
    run("run", "--test-config", typo, expect_code=3,
        contains=["(did you mean 'catalog'?)", "docs/test-config.md in conform's documentation"],
        lacks=["schemas/"])
    wrong_enum = harness.write_file(folder, "enum.json", json.dumps(dict(good, extensions=["tial"])))
    run("run", "--test-config", wrong_enum, expect_code=3,
        contains=['"tial" is not one of the values the enum allows: "tail", "range", "merge", '
                  '"projections" (did you mean \'tail\'?)'])

    # --read-timeout: a clear range, never a 300-digit number.
    for value in ("-3", "0", "1e300"):
        completed = run(*flags_only, "--read-timeout", value, expect_code=2,
                        contains=["out of range: a read timeout is more than 0 and at most"])
        check(not re.search(r"\d{30}", completed.stdout + completed.stderr),
              f"--read-timeout {value} prints no huge number")
    run(*flags_only, "--read-timeout", "soon", expect_code=2,
        contains=["'soon' is not a number of seconds"])

    # validate: a transcript with no Airbyte message validated nothing (exit 5); rerun lines
    # are the validate command; an example with no stdout line names none.
    garbage = harness.write_file(folder, "garbage.jsonl", "hello\nworld\n")
    run("validate", "--catalog", catalog, garbage, expect_code=5,
        contains=["no line of", "is an Airbyte message"])
    record = {"type": "RECORD", "record": {"stream": "no_such_stream", "data": {"id": 1},
                                           "emitted_at": 1}}
    unknown = harness.write_file(folder, "unknown.jsonl", json.dumps(record) + "\n")
    validate_md = os.path.join(folder, "validate.md")
    completed = run("validate", "--catalog", catalog, unknown, "--markdown", validate_md,
                    expect_code=1, contains=[f"rerun: {conform} validate --catalog {catalog}"])
    with open(validate_md, encoding="utf-8") as source:
        markdown = source.read()
    check("stdout line 0" not in markdown and "(run ," not in markdown,
          "Markdown examples name only the location they have")
    check(f"{conform} validate --catalog" in markdown, "the Markdown rerun is the validate command")

    # diff: the rerun line reruns the diff for that scenario.
    target = f"env REFERENCE_CONNECTOR_FAULTS=record_schema_violation {connector}"
    run("diff", "--control", connector, "--target", target, "--config", config, "--catalog",
        catalog, "--only", "read", expect_code=1,
        contains=[f"rerun: {conform} diff --control {connector} --target", "--only read"])

    # A Singer test config refuses the flags only an Airbyte source's test config takes (before,
    # --inject was accepted and never ran).
    tap_config = os.path.join(os.path.dirname(fixtures), "reference-tap", "conform.json")
    for flag in (["--inject", "true"], ["--volatile", "users:/name"], ["--read-timeout", "5"],
                 ["--states-are-patches"]):
        run("run", "--test-config", tap_config, *flag, expect_code=2,
            contains=["a Singer test config takes no", flag[0]])

if failures:
    sys.exit("FAIL:\n" + "\n\n".join(failures))
print("fail early: all passed")
