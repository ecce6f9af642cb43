#!/usr/bin/env python3
"""--rerun-failed N (issue 21): a scenario with an unexpected failure runs again, up to N times; a
check that failed and then passed is flaky in every report, never passed, and counted apart; a
check that keeps failing still fails; a listed known failure is not rerun.

The connector is the reference connector behind a wrapper (written here, in a temporary folder)
that counts its reads in a file and breaks the first FAIL_READS of them with the fault
emitted_at_float (read.emitted_at_ms fails).

usage: rerun_failed.py CONFORM CONNECTOR FIXTURES
"""
import os
import stat
import sys

import harness

conform, connector, fixtures = harness.absolute_arguments(3)
failures = []
CHECK = "read.emitted_at_ms"

WRAPPER = """#!/bin/sh
# Counts reads in reads.count; the first FAIL_READS reads emit float emitted_at values.
folder="$(dirname "$0")"
case " $* " in
  *" read "*)
    echo read >> "$folder/reads.count"
    reads=$(wc -l < "$folder/reads.count")
    if [ "$reads" -le "$FAIL_READS" ]; then
      REFERENCE_CONNECTOR_FAULTS=emitted_at_float exec "$CONNECTOR" "$@"
    fi;;
esac
exec "$CONNECTOR" "$@"
"""


def check(condition, what, output=""):
    if condition:
        print(f"ok: {what}")
    else:
        failures.append(f"{what}\n{output[-3000:]}")


def run_case(name, fail_reads, *extra):
    """Runs scenario read through the wrapper; returns (completed, report, reads, folder files)."""
    with harness.temporary_folder(f"rerun-{name}") as folder:
        test_config = harness.write_test_config(folder, fixtures, connector)
        wrapper = harness.write_file(folder, "connector.sh", WRAPPER)
        os.chmod(wrapper, os.stat(wrapper).st_mode | stat.S_IXUSR)
        config = harness.load_json(test_config)
        config["connector"]["command"] = [wrapper]
        config["connector"]["env"] = {"CONNECTOR": os.path.abspath(connector),
                                      "FAIL_READS": str(fail_reads)}
        harness.write_file(folder, "conform.json", config, indent=2)
        paths = {name: os.path.join(folder, name)
                 for name in ("report.json", "junit.xml", "summary.md", "report.html")}
        completed = harness.run([conform, "run", "--test-config", test_config, "--only", "read",
                                 "--report-json", paths["report.json"],
                                 "--junit", paths["junit.xml"], "--markdown", paths["summary.md"],
                                 "--html", paths["report.html"], *extra], timeout=300)
        report = harness.load_report(paths["report.json"], completed)
        count = os.path.join(folder, "reads.count")
        reads = len(open(count).read().split()) if os.path.exists(count) else 0
        texts = {}
        for key in ("junit.xml", "summary.md", "report.html"):
            with open(paths[key], encoding="utf-8") as source:
                texts[key] = source.read()
        return completed, report, reads, texts


def status_of(report, check_id):
    found = harness.scenario(report, "read")
    return next((c for c in found["checks"] if c["id"] == check_id), {}) if found else {}


# A read that fails once and then passes: flaky in every report, exit 0, counted apart.
completed, report, reads, texts = run_case("flaky", 1, "--rerun-failed", "2")
output = completed.stdout + completed.stderr
entry = status_of(report, CHECK)
check(completed.returncode == 0, f"a pass on rerun does not fail the run "
      f"(exit {completed.returncode})", output)
check(reads == 2, f"one rerun after the failed read, none after the pass ({reads} reads)", output)
check(entry.get("status") == "flaky", f"JSON: {CHECK} is flaky ({entry.get('status')})", output)
check("emitted_at" in entry.get("flaky_first_failure", ""),
      f"JSON: keeps what the failed attempt found ({entry.get('flaky_first_failure')!r})", output)
check(report["totals"].get("flaky") == 1 and report["totals"]["passed"] > 0 and
      report["totals"]["failed"] == 0, f"JSON: counted apart ({report['totals']})", output)
check(harness.scenario(report, "read")["status"] == "flaky", "JSON: the scenario is flaky")
check("FLAKY" in completed.stdout and "1 flaky" in completed.stdout,
      "console: FLAKY and counted in the summary", output)
check(f'name="{CHECK}">\n      <system-out>FLAKY: failed, then passed on a rerun'
      in texts["junit.xml"], "JUnit: flaky in system-out", texts["junit.xml"])
check("flaky, failed then passed on a rerun" in texts["summary.md"] and
      "1 flaky" in texts["summary.md"], "Markdown: listed and counted", texts["summary.md"])
check('class="badge flaky"' in texts["report.html"], "HTML: flaky badge")

# Without --rerun-failed the same connector fails the run.
completed, report, reads, _ = run_case("no-rerun", 1)
check(completed.returncode == 1 and status_of(report, CHECK).get("status") == "failed" and
      reads == 1, f"without --rerun-failed the failure stands (exit {completed.returncode}, "
      f"{reads} reads)", completed.stdout + completed.stderr)

# A failure that keeps failing is rerun N times and still fails.
completed, report, reads, _ = run_case("always", 99, "--rerun-failed", "2")
check(completed.returncode == 1 and status_of(report, CHECK).get("status") == "failed" and
      reads == 3, f"a failure on every attempt fails after 2 reruns (exit "
      f"{completed.returncode}, {reads} reads)", completed.stdout + completed.stderr)

# A listed known failure is expected, not unexpected: no rerun.
with harness.temporary_folder("rerun-known") as folder:
    known = harness.write_file(folder, "known.yaml",
                               f"- check: {CHECK}\n  reason: float timestamps, ticket 9\n")
    completed, report, reads, _ = run_case("known", 99, "--rerun-failed", "2",
                                           "--known-failures", known)
    check(completed.returncode == 0 and
          status_of(report, CHECK).get("status") == "expected-failure" and reads == 1,
          f"a listed failure (YAML list) is not rerun (exit {completed.returncode}, "
          f"{reads} reads)", completed.stdout + completed.stderr)

if failures:
    sys.exit("FAIL:\n" + "\n".join(failures))
print("all --rerun-failed cases passed")
