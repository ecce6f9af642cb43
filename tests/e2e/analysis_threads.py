#!/usr/bin/env python3
"""A read analysed on one thread or with a worker thread gives the same report.

usage: analysis_threads.py CONFORM CONNECTOR FIXTURES

For the good connector and faulty variants, `conform run --only read` (live, from the
connector's pipe) and `conform validate` (its recorded stdout) run with CONFORM_ANALYSIS_THREADS=1
and =2; each pair of JSON reports must be equal but for timings, the run's own folders and the
connector's clock, the line numbers and texts of every finding included. A malformed
CONFORM_ANALYSIS_THREADS is a usage error for the commands that analyse a read; `list` ignores it.
"""
import json
import os
import re
import subprocess
import sys

import harness

conform, connector, fixtures = harness.absolute_arguments(3)
FAULTS = ["", "record_schema_violation", "stdout_garbage", "malformed_state", "null_primary_key",
          "duplicate_record", "missing_cursor"]
# The copy of the duplicated record carries the connector's clock (fetched_at, volatile in the test
# config `run` gets): `validate`, which has no volatile fields, sees a duplicate only when the two
# copies fall in the same millisecond.
CAUGHT_LIVE_ONLY = {"duplicate_record"}
VARYING_KEYS = ("duration", "elapsed", "started", "finished", "time", "_ms", "seconds")


def normalized(report_path, folder):
    """The report's JSON text without timings, and with the case's folder replaced."""
    def strip(value):
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items()
                    if not any(part in key for part in VARYING_KEYS)}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value
    text = json.dumps(strip(harness.load_json(report_path)), sort_keys=True, indent=1)
    # A live run's records carry the connector's clock (emitted_at, fetched_at): milliseconds.
    text = re.sub(r"\b1[0-9]{12}\b", "MILLISECONDS", text.replace(folder, "FOLDER"))
    return re.sub(r"20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{3}Z", "TIMESTAMP", text)


def first_difference(left, right):
    for number, (a, b) in enumerate(zip(left.splitlines(), right.splitlines()), start=1):
        if a != b:
            return f"line {number}: {a.strip()} | {b.strip()}"
    return "one report is longer"


def compare(label, folder, command):
    reports = []
    for threads in ("1", "2"):
        report = os.path.join(folder, f"{label}-{threads}.json")
        completed = harness.run(command + ["--report-json", report],
                                env=dict(os.environ, CONFORM_ANALYSIS_THREADS=threads))
        if not os.path.exists(report):
            sys.exit(f"FAIL [{label}]: no report with {threads} thread(s): {completed.stderr}")
        reports.append((completed.returncode, normalized(report, folder)))
    (code_one, one), (code_two, two) = reports
    if code_one != code_two or one != two:
        sys.exit(f"FAIL [{label}]: one thread and two differ: exit {code_one} vs {code_two}; "
                 f"{first_difference(one, two)}")
    return harness.not_passing(harness.load_json(os.path.join(folder, f"{label}-1.json")))


def run_case(folder, fault):
    config = harness.connector_config(fixtures, folder)
    with open(config) as source:
        settings = json.load(source)
    settings.update(users=300, events=900)  # about 1,300 lines: many batches of 64
    config = harness.write_file(folder, "config.json", settings)
    catalog = os.path.join(fixtures, "configured_catalog.json")
    env = dict(os.environ, REFERENCE_CONNECTOR_FAULTS=fault)
    transcript = os.path.join(folder, "read.jsonl")
    with open(transcript, "w") as out:
        subprocess.run([connector, "read", "--config", config, "--catalog", catalog], stdout=out,
                       stderr=subprocess.DEVNULL, env=env, timeout=120, check=False)
    offline = compare(f"validate {fault or 'no fault'}", folder,
                      [conform, "validate", "--catalog", catalog, transcript])
    test_config = harness.write_file(folder, "conform.json", {
        "connector": {"command": [connector], "env": {"REFERENCE_CONNECTOR_FAULTS": fault}},
        "config": config, "catalog": catalog, "volatile_fields": {"users": ["/fetched_at"]}})
    live = compare(f"run {fault or 'no fault'}", folder,
                   [conform, "run", "--test-config", test_config, "--only", "read"])
    if fault and not (live and (offline or fault in CAUGHT_LIVE_ONLY)):
        sys.exit(f"FAIL [{fault}]: the fault was not caught: {sorted(offline)}, {sorted(live)}")
    print(f"ok [{fault or 'no fault'}]: validate and run give the same reports on 1 and 2 threads;"
          f" not passing: {sorted(live)}")


def malformed_setting_is_a_usage_error(folder):
    catalog = os.path.join(fixtures, "configured_catalog.json")
    transcript = harness.write_file(folder, "empty.jsonl", "")
    completed = harness.run([conform, "validate", "--catalog", catalog, transcript],
                            env=dict(os.environ, CONFORM_ANALYSIS_THREADS="many"))
    if completed.returncode != 2 or "CONFORM_ANALYSIS_THREADS is 'many'" not in completed.stderr:
        sys.exit(f"FAIL: CONFORM_ANALYSIS_THREADS=many gave exit {completed.returncode}: "
                 f"{completed.stderr}")
    listed = harness.run([conform, "list"], env=dict(os.environ, CONFORM_ANALYSIS_THREADS="many"))
    if listed.returncode != 0:
        sys.exit(f"FAIL: `conform list`, which reads nothing, refused CONFORM_ANALYSIS_THREADS=many: "
                 f"{listed.stderr}")
    print("ok: a malformed CONFORM_ANALYSIS_THREADS is a usage error where a read is analysed")


for case in FAULTS:
    with harness.temporary_folder("threads") as case_folder:
        run_case(case_folder, case)
with harness.temporary_folder("threads") as case_folder:
    malformed_setting_is_a_usage_error(case_folder)
