#!/usr/bin/env python3
"""`conform validate` on a saved read transcript gives the live run's verdicts.

usage: validate_matches_live.py CONFORM CONNECTOR FIXTURES

For the good connector and several faulty variants: record the connector's `read` stdout, run
`conform validate` on it, run `conform run --only read` live with the same fault, and require the
same status for every check both reports contain (and at least one failure for a faulty variant).
"""
import os
import subprocess
import sys

import harness

conform, connector, fixtures = harness.absolute_arguments(3)
CASES = ["", "record_schema_violation", "stdout_garbage", "malformed_state", "null_primary_key",
         "emitted_at_float", "record_unknown_stream", "missing_cursor", "no_final_state"]


def statuses(report, scenario_id):
    found = harness.scenario(report, scenario_id)
    if found is None:
        sys.exit(f"FAIL: no scenario {scenario_id} in report")
    return {check["id"]: check["status"] for check in found["checks"]}


def run_case(folder, fault):
    env = dict(os.environ, REFERENCE_CONNECTOR_FAULTS=fault)
    config = harness.connector_config(fixtures, folder)
    catalog = os.path.join(fixtures, "configured_catalog.json")
    transcript = os.path.join(folder, "read.jsonl")
    with open(transcript, "w") as out:
        subprocess.run([connector, "read", "--config", config, "--catalog", catalog], stdout=out, stderr=subprocess.DEVNULL,
                       env=env, timeout=60, check=False)
    offline_report = os.path.join(folder, "offline.json")
    offline = harness.run([conform, "validate", "--catalog", catalog, transcript,
                           "--report-json", offline_report])
    test_config = harness.write_file(folder, "conform.json", {
        "connector": {"command": [connector], "env": {"REFERENCE_CONNECTOR_FAULTS": fault}},
        "config": config, "catalog": catalog, "volatile_fields": {"users": ["/fetched_at"]}})
    live_report = os.path.join(folder, "live.json")
    live = harness.run([conform, "run", "--test-config", test_config, "--only", "read",
                        "--report-json", live_report])
    if not os.path.exists(live_report) or not os.path.exists(offline_report):
        sys.exit(f"FAIL [{fault}]: no report: {offline.stderr} {live.stderr}")
    offline_statuses = statuses(harness.load_json(offline_report), "transcript")
    live_statuses = statuses(harness.load_json(live_report), "read")
    shared = sorted(set(offline_statuses) & set(live_statuses))
    differ = [(c, offline_statuses[c], live_statuses[c]) for c in shared
              if offline_statuses[c] != live_statuses[c]]
    if differ or len(shared) < 8 or offline.returncode != live.returncode:
        print(offline.stdout, live.stdout)
        sys.exit(f"FAIL [{fault or 'no fault'}]: validate vs live differ: {differ}; "
                 f"exit {offline.returncode} vs {live.returncode}; {len(shared)} shared checks")
    core = next(area for area in harness.load_json(offline_report)["certification"]
                if area["area"] == "core")
    if not fault and core["level"] != "incomplete":
        sys.exit(f"FAIL: validate of one recorded read certifies core: {core}")
    failing = [c for c in shared if offline_statuses[c] != "passed"]
    if fault and not failing:
        sys.exit(f"FAIL [{fault}]: the fault was not caught by any shared check")
    print(f"ok [{fault or 'no fault'}]: {len(shared)} checks agree; not passing: {failing}")


for case in CASES:
    with harness.temporary_folder("validate") as case_folder:
        run_case(case_folder, case)
