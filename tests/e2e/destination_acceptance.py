#!/usr/bin/env python3
"""A destination's acceptance-test-config.yml (docs/acceptance-test-config.md, "Destinations"):

1. a file with spec and connection tests (as destination-duckdb's) runs the destination suite's
   dst-spec, dst-check and dst-check-invalid against the reference destination and they pass,
   dst.spec_matches_expected against its spec_path; the write scenarios are skipped saying the
   file gives no catalog, nothing is certified, and each section a destination has not is
   reported; the same with a stale spec_path fails dst.spec_matches_expected;
2. --catalog gives it a catalog: the writes run;
3. a file that tests spec only (as destination-astra's) runs spec; check is skipped saying the file
   gives no config;
4. a file whose image is not destination-* is a destination's when the metadata.yaml beside it
   says connectorType: destination.

usage: destination_acceptance.py CONFORM DESTINATION FIXTURES
"""
import json
import os
import shutil
import sys

import harness

conform, destination, fixtures = harness.absolute_arguments(3)
failures = []


def check(condition, what, output=""):
    if condition:
        print(f"ok: {what}")
    else:
        failures.append(f"{what}\n{output[-4000:]}")


def status_of(report, scenario_id, check_id=None):
    found = harness.scenario(report, scenario_id) or {"checks": [], "status": None}
    if check_id is None:
        return found["status"]
    return next((c["status"] for c in found["checks"] if c["id"] == check_id), None)


def run(folder, yml, *extra):
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--acceptance-test-config", yml, "--connector",
                             destination, "--report-json", report_path, *extra], timeout=300)
    return completed, harness.load_report(report_path, completed)


SPEC_AND_CONNECTION = """connector_image: airbyte/destination-reference:dev
acceptance_tests:
  spec:
    tests:
      - spec_path: "spec.json"
        config_path: "config.json"
  connection:
    tests:
      - config_path: "config.json"
        status: "succeed"
      - config_path: "invalid_config.json"
        status: "failed"
  basic_read:
    bypass_reason: "a destination reads nothing"
"""

# 1. Spec and connection tests.
with harness.temporary_folder("destination-acceptance") as folder:
    for name in ("config.json", "invalid_config.json", "spec.json", "configured_catalog.json"):
        shutil.copyfile(os.path.join(fixtures, name), os.path.join(folder, name))
    yml = harness.write_file(folder, "acceptance-test-config.yml", SPEC_AND_CONNECTION)
    completed, report = run(folder, yml)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 0 and report["metadata"].get("protocol") ==
          "airbyte-destination", f"the file runs the destination suite, green "
          f"(exit {completed.returncode})", output)
    for scenario in ("dst-spec", "dst-check", "dst-check-invalid"):
        check(status_of(report, scenario) == "passed", f"{scenario} passed", output)
    check(status_of(report, "dst-spec", "dst.spec_matches_expected") == "passed",
          "spec_path is mapped: dst.spec_matches_expected passed", output)
    syncs = harness.scenario(report, "dst-syncs") or {}
    check(syncs.get("status") == "skipped" and
          "tests a destination's spec and check only" in json.dumps(syncs),
          "the writes are skipped: the file gives no catalog", output)
    certification = {c["area"]: c for c in report.get("certification", [])}
    check(any(c["level"] == "incomplete" for c in certification.values()) and
          not any(c["level"] == "certified" for c in certification.values()),
          f"nothing is certified ({certification})", output)
    check("basic_read: not honoured: a destination has no 'basic_read'" in completed.stdout,
          "a section a destination has not is reported", output)

    spec = json.load(open(os.path.join(fixtures, "spec.json")))
    spec["supported_destination_sync_modes"] = ["append"]
    harness.write_file(folder, "spec.json", spec, indent=2)
    completed, report = run(folder, yml, "--only", "dst-spec")
    check(completed.returncode == 1 and
          status_of(report, "dst-spec", "dst.spec_matches_expected") == "failed" and
          "/supported_destination_sync_modes" in json.dumps(harness.scenario(report, "dst-spec")),
          f"a stale spec_path fails dst.spec_matches_expected where it differs "
          f"(exit {completed.returncode})", completed.stdout + completed.stderr)
    shutil.copyfile(os.path.join(fixtures, "spec.json"), os.path.join(folder, "spec.json"))

    # 2. --catalog: the writes run (what landed is not read: the file has no verify command).
    completed, report = run(folder, yml, "--catalog",
                            os.path.join(folder, "configured_catalog.json"), "--only", "dst-syncs")
    check(completed.returncode == 0 and
          status_of(report, "dst-syncs", "dst.write_exit") == "passed",
          f"--catalog makes the writes run (exit {completed.returncode})",
          completed.stdout + completed.stderr)

# 3. Spec only: no config.
with harness.temporary_folder("destination-acceptance-spec-only") as folder:
    shutil.copyfile(os.path.join(fixtures, "spec.json"), os.path.join(folder, "spec.json"))
    yml = harness.write_file(folder, "acceptance-test-config.yml",
                             "acceptance_tests:\n  spec:\n    tests:\n"
                             "      - spec_path: spec.json\n"
                             "connector_image: airbyte/destination-reference:dev\n")
    completed, report = run(folder, yml)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 0 and status_of(report, "dst-spec") == "passed",
          f"a spec-only file runs and judges spec (exit {completed.returncode})", output)
    skipped = harness.scenario(report, "dst-check") or {}
    check(skipped.get("status") == "skipped" and "gives no destination config" in
          json.dumps(skipped), "check is skipped: the file gives no config", output)
    dry = harness.run([conform, "run", "--acceptance-test-config", yml, "--connector", destination,
                       "--dry-run"], timeout=120)
    check(dry.returncode == 0 and "skipped without running: " in dry.stdout and
          "gives no destination config" in dry.stdout and "nothing to write without" in dry.stdout,
          "a dry run says which scenarios would be skipped, and why", dry.stdout + dry.stderr)

# 4. Told apart by metadata.yaml.
with harness.temporary_folder("destination-acceptance-metadata") as folder:
    for name in ("config.json", "spec.json"):
        shutil.copyfile(os.path.join(fixtures, name), os.path.join(folder, name))
    harness.write_file(folder, "metadata.yaml", "data:\n  connectorType: destination\n")
    yml = harness.write_file(folder, "acceptance-test-config.yml",
                             SPEC_AND_CONNECTION.replace("airbyte/destination-reference:dev",
                                                         "example/loader:1.0").replace(
                                 "      - config_path: \"invalid_config.json\"\n"
                                 "        status: \"failed\"\n", ""))
    completed, report = run(folder, yml, "--only", "dst-spec,dst-check")
    check(completed.returncode == 0 and report["metadata"].get("protocol") ==
          "airbyte-destination" and status_of(report, "dst-check") == "passed",
          f"metadata.yaml's connectorType makes it a destination's (exit {completed.returncode})",
          completed.stdout + completed.stderr)

if failures:
    sys.exit("FAIL:\n" + "\n".join(failures))
print("all destination acceptance-test-config cases passed")
