#!/usr/bin/env python3
"""Known failures (issue 21, docs/known-failures.md) against the reference connector with faults:
a listed failure is reported as expected in every report and does not fail the run; an unlisted
one fails it; a stale entry fails it with the message to remove the entry; an unknown check id
and a malformed file are bad input (exit 3, with the file's line); --write-known-failures writes
a list that the next run accepts; the test config's "known_failures" key is read relative to it.

usage: known_failures.py CONFORM CONNECTOR FIXTURES
"""
import os
import shutil
import sys

import harness

conform, connector, fixtures = harness.absolute_arguments(3)
failures = []

LISTED = "read.emitted_at_ms"      # what the fault emitted_at_float breaks in scenario read
UNLISTED = "state.well_formed"     # what the fault malformed_state breaks in scenario read


def check(condition, what, output=""):
    if condition:
        print(f"ok: {what}")
    else:
        failures.append(f"{what}\n{output[-3000:]}")


def run_read(folder, fault, *extra):
    """conform run --only read on the reference connector with `fault`; its reports in folder."""
    test_config = harness.write_test_config(folder, fixtures, connector, fault=fault)
    reports = {"json": os.path.join(folder, "report.json"),
               "junit": os.path.join(folder, "junit.xml"),
               "markdown": os.path.join(folder, "summary.md"),
               "html": os.path.join(folder, "report.html")}
    for path in reports.values():
        if os.path.exists(path):
            os.remove(path)
    completed = harness.run([conform, "run", "--test-config", test_config, "--only", "read",
                             "--report-json", reports["json"], "--junit", reports["junit"],
                             "--markdown", reports["markdown"], "--html", reports["html"],
                             *extra], timeout=300)
    return completed, reports


def read_text(path):
    with open(path, encoding="utf-8") as source:
        return source.read()


def status_of(report, check_id, scenario_id="read"):
    found = harness.scenario(report, scenario_id)
    return next((c for c in found["checks"] if c["id"] == check_id), {}) if found else {}


# 1. A listed failure is expected in every report, counted apart, and the run passes.
with harness.temporary_folder("known-expected") as folder:
    listed = harness.write_file(folder, "known.json",
                                [{"check": LISTED, "reason": "ticket-1234: float timestamps"}],
                                indent=2)
    completed, reports = run_read(folder, "emitted_at_float", "--known-failures", listed)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 0, f"a listed failure does not fail the run "
          f"(exit {completed.returncode})", output)
    report = harness.load_report(reports["json"], completed)
    entry = status_of(report, LISTED)
    check(entry.get("status") == "expected-failure", f"JSON: {LISTED} is expected-failure "
          f"({entry.get('status')})", output)
    check(entry.get("known_failure_reason") == "ticket-1234: float timestamps",
          "JSON: the entry's reason is kept", output)
    check(report["totals"].get("expected_failures") == 1 and report["totals"]["failed"] == 0,
          f"JSON: counted apart ({report['totals']})", output)
    check(report.get("known_failures_file") == listed, "JSON: names the known-failures file")
    check("XFAIL" in completed.stdout and "ticket-1234" in completed.stdout,
          "console: XFAIL with the reason", output)
    check("1 expected failure(s)" in completed.stdout, "console: the summary counts it apart",
          output)
    junit = read_text(reports["junit"])
    check(f'name="{LISTED}">\n      <skipped message="expected failure: ticket-1234: float '
          f'timestamps"/>' in junit, "JUnit: skipped with the reason", junit)
    markdown = read_text(reports["markdown"])
    check("expected failure: ticket-1234" in markdown and "1 expected failure(s)" in markdown,
          "Markdown: listed with its reason and counted apart", markdown)
    html = read_text(reports["html"])
    check("expected-failure" in html and "ticket-1234: float timestamps" in html,
          "HTML: badge and reason", html[-2000:])

# 2. An unlisted failure fails the run even when another is listed.
with harness.temporary_folder("known-unlisted") as folder:
    listed = harness.write_file(folder, "known.json", [{"check": LISTED, "reason": "known"}])
    completed, reports = run_read(folder, "emitted_at_float,malformed_state",
                                  "--known-failures", listed)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 1, f"an unlisted failure fails the run "
          f"(exit {completed.returncode})", output)
    report = harness.load_report(reports["json"], completed)
    check(status_of(report, UNLISTED).get("status") == "failed", f"{UNLISTED} stays failed", output)
    check(status_of(report, LISTED).get("status") == "expected-failure",
          f"{LISTED} is still expected", output)

# 3. A listed failure limited to a scenario does not cover another scenario's failure, and one
#    limited to a stream no example names does not cover it either.
with harness.temporary_folder("known-narrow") as folder:
    listed = harness.write_file(folder, "known.json",
                                [{"check": LISTED, "scenario": "read-expected", "reason": "other"},
                                 {"check": LISTED, "stream": "no_such_stream", "reason": "s"}])
    completed, reports = run_read(folder, "emitted_at_float", "--known-failures", listed)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 1, "an entry for another scenario or stream does not cover the "
          f"failure (exit {completed.returncode})", output)

# 4. A stale entry (its check passes) fails the run and says to remove it.
with harness.temporary_folder("known-stale") as folder:
    listed = harness.write_file(folder, "known.json",
                                [{"check": LISTED, "reason": "was broken in 1.2"}], indent=2)
    completed, reports = run_read(folder, "", "--known-failures", listed)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 1, f"a stale entry fails the run (exit {completed.returncode})",
          output)
    check("stale known failure" in completed.stdout and
          f"remove its entry from {listed}:2" in completed.stdout,
          "console: says to remove the entry, with its line", output)
    report = harness.load_report(reports["json"], completed)
    check(status_of(report, LISTED).get("status") == "failed" and
          any("remove its entry" in item for item in report.get("stale_known_failures", [])),
          "JSON: the stale entry is listed and its check failed", output)
    check("remove its entry" in read_text(reports["junit"]), "JUnit: the stale entry fails")

# 5. An id no check has is bad input: exit 3, the file's line, did-you-mean.
with harness.temporary_folder("known-unknown") as folder:
    listed = harness.write_file(folder, "known.json",
                                [{"check": LISTED, "reason": "fine"},
                                 {"check": "read.emited_at_ms", "reason": "typo"}], indent=2)
    completed, _ = run_read(folder, "", "--known-failures", listed)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 3, f"an unknown check id exits 3 ({completed.returncode})",
          output)
    check(f"{listed}:7" in output and "did you mean 'read.emitted_at_ms'" in output,
          "names the file, the entry's line and the nearest id", output)
    missing_reason = harness.write_file(folder, "no-reason.json", '[\n  {"check": "cli.read"}\n]')
    completed, _ = run_read(folder, "", "--known-failures", missing_reason)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 3 and f"{missing_reason}:2" in output and "reason" in output,
          "an entry without a reason is bad input with its line", output)

# 6. --write-known-failures writes today's failures; the next run with that list passes; the
#    test config's "known_failures" key names the list relative to the test config.
with harness.temporary_folder("known-roundtrip") as folder:
    written = os.path.join(folder, "written.json")
    completed, reports = run_read(folder, "emitted_at_float,malformed_state",
                                  "--write-known-failures", written)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 1, "the run that writes the list still fails", output)
    failed = set(harness.checks_with_status(harness.load_report(reports["json"], completed),
                                            ("failed",)))
    entries = harness.load_json(written)
    check({LISTED, UNLISTED} <= failed and {entry["check"] for entry in entries} == failed and
          all(entry["scenario"] == "read" and entry["reason"] for entry in entries),
          f"the list holds today's failures ({entries})", output)
    completed, reports = run_read(folder, "emitted_at_float,malformed_state",
                                  "--known-failures", written)
    check(completed.returncode == 0, f"the written list makes the same run pass "
          f"(exit {completed.returncode})", completed.stdout + completed.stderr)
    test_config = os.path.join(folder, "conform.json")
    config = harness.load_json(test_config)
    config["known_failures"] = "written.json"
    harness.write_file(folder, "conform.json", config, indent=2)
    completed = harness.run([conform, "run", "--test-config", test_config, "--only", "read",
                             "--report-json", os.path.join(folder, "from-key.json")], timeout=300)
    report = harness.load_report(os.path.join(folder, "from-key.json"), completed)
    check(completed.returncode == 0 and report["totals"].get("expected_failures") == len(entries),
          f"the test config's known_failures key is read (exit {completed.returncode})",
          completed.stdout + completed.stderr)

# 7. The same rules for another protocol: a Singer tap, its list named by its test config (YAML).
with harness.temporary_folder("known-singer") as folder:
    tap = os.path.join(folder, "tap")
    shutil.copytree(os.path.join(fixtures, "..", "reference-tap"), tap)
    config = harness.load_json(os.path.join(tap, "conform.json"))
    config["tap"]["env"] = {"REFTAP_FAULTS": "discover_exit_nonzero"}
    config["known_failures"] = "known.yml"
    harness.write_file(tap, "conform.json", config, indent=2)
    harness.write_file(tap, "known.yml", "# known failures of the tap\n"
                                         "- check: sg.discover\n  reason: discover exits 1, ticket 5\n")
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--test-config", os.path.join(tap, "conform.json"),
                             "--only", "sg.discover", "--report-json", report_path], timeout=300)
    report = harness.load_report(report_path, completed)
    statuses = harness.statuses(report)
    check(completed.returncode == 0 and statuses.get("sg.discover") == {"expected-failure"},
          f"a Singer tap's listed failure is expected (exit {completed.returncode}, {statuses})",
          completed.stdout + completed.stderr)
    config["tap"]["env"] = {}
    harness.write_file(tap, "conform.json", config, indent=2)
    completed = harness.run([conform, "run", "--test-config", os.path.join(tap, "conform.json"),
                             "--only", "sg.discover"], timeout=300)
    check(completed.returncode == 1 and "known.yml:2" in completed.stdout and
          "remove its entry" in completed.stdout,
          f"a Singer tap's stale entry fails the run (exit {completed.returncode})",
          completed.stdout + completed.stderr)

if failures:
    sys.exit("FAIL:\n" + "\n".join(failures))
print("all known-failures cases passed")
