#!/usr/bin/env python3
"""The shards of a run, merged by `conform report`, equal the report of the whole run.

    shard_merge.py --conform BIN --connector BIN --fixtures DIR [--shards N]

Runs the reference connector (with a fault, so that the merged report must carry a failure)
once whole and once per shard (--shard K/N), merges the shard reports with `conform report`, and
compares the merged JSON report with the whole run's after removing what depends on the clock:
dates, durations, the connector's emitted_at values and the "at N ms" of timing notes. Also checks
that every shard alone certifies nothing, that every scenario ran in exactly one shard, and that
`conform report` refuses an incomplete or duplicated set of shards (exit 3, naming the shard).
"""
import copy
import json
import os
import re
import sys

import harness

FAULT = "record_schema_violation"


def without_clock(report):
    report = copy.deepcopy(report)
    metadata = report["metadata"]
    metadata.pop("started_at")
    metadata.pop("duration_ms")
    for scenario in report["scenarios"]:
        scenario.pop("duration_ms")
        for check in scenario["checks"]:
            check.pop("duration_ms")
            # A tailing run's note logs each poll that caught up: how many depends on the clock.
            clauses = re.sub(r"\b\d+ ms\b", "N ms", check["note"]).split("; ")
            check["note"] = "; ".join(c for i, c in enumerate(clauses)
                                      if i == 0 or c != clauses[i - 1])
        for run in scenario["runs"]:
            run.pop("duration_ms")
    text = json.dumps(report, indent=1, sort_keys=True)
    text = re.sub(r'\\"emitted_at\\":\d+', r'\\"emitted_at\\":T', text)
    return re.sub(r"\b\d+ ms\b", "N ms", text)


def without_clock_scenario(scenario):
    return without_clock({"metadata": {"started_at": 0, "duration_ms": 0},
                          "scenarios": [scenario]})[-3000:]


def differences(whole, merged):
    found = []
    if [s["id"] for s in whole["scenarios"]] != [s["id"] for s in merged["scenarios"]]:
        found.append(f"scenario order: {[s['id'] for s in merged['scenarios']]}")
    for one, other in zip(whole["scenarios"], merged["scenarios"]):
        if without_clock({"metadata": {"started_at": 0, "duration_ms": 0}, "scenarios": [one]}) != \
                without_clock({"metadata": {"started_at": 0, "duration_ms": 0}, "scenarios": [other]}):
            found.append(f"scenario {one['id']} differs:\n{without_clock_scenario(one)}\n"
                         f"{without_clock_scenario(other)}")
    return found or ["metadata, certification or totals differ"]


def judged_clauses(report):
    return {c["clause"] for c in report["coverage"]["clauses"] if c["state"] == "judged"}


def coverage_problems(whole, merged, shards):
    """The merged coverage is the whole run's, and the union of the shards': no shard alone
    judged every clause the run judged (so the last shard's coverage would be wrong)."""
    if "coverage" not in merged or "coverage" not in whole:
        return ["a report has no coverage"]
    problems = []
    if merged["coverage"] != whole["coverage"]:
        problems.append("the merged coverage differs from the whole run's:\n"
                        f"{json.dumps(merged['coverage'])[:3000]}\n"
                        f"{json.dumps(whole['coverage'])[:3000]}")
    union = set().union(*(judged_clauses(shard) for shard in shards))
    if judged_clauses(merged) != union:
        problems.append(f"merged judged clauses {sorted(judged_clauses(merged))} are not the "
                        f"shards' union {sorted(union)}")
    if any(judged_clauses(shard) == union for shard in shards):
        problems.append("one shard alone judged every clause: the union is not tested")
    return problems


def check_registry(conform, folder, args, failing_report):
    """Reports of two connectors (test configs) render as one registry page, and only as HTML."""
    other = os.path.join(folder, "other")
    os.makedirs(other)
    test_config = harness.write_test_config(other, args.fixtures, connector=args.connector,
                                            claims="none")
    clean = conform("run", "--test-config", test_config, "--only", "core",
                    "--report-json", "clean.json")
    if clean.returncode != 0:
        return [f"the clean run exited {clean.returncode}: {clean.stderr}"]
    problems = []
    page = conform("report", failing_report, "clean.json", "--html", "registry.html")
    if page.returncode != 1 or "registry page: 2 connector(s)" not in page.stdout:
        problems.append(f"registry: exit {page.returncode}, {page.stdout!r} {page.stderr!r}")
    else:
        with open(os.path.join(folder, "registry.html")) as source:
            html = source.read()
        ids = re.findall(r' id="([^"]*)"', html)
        if len(ids) != len(set(ids)):
            problems.append("the registry page repeats element ids")
        for wanted in ['id="c0fail-s-read--read_records_match_schema"', "read.records_match_schema",
                       "incomplete"]:
            if wanted not in html:
                problems.append(f"the registry page lacks {wanted!r}")
    as_json = conform("report", failing_report, "clean.json", "--json", "both.json")
    if as_json.returncode != 2 or "registry page" not in as_json.stderr:
        problems.append(f"two connectors as --json: exit {as_json.returncode}")
    return problems


def main():
    parser = harness.reference_arguments()
    parser.add_argument("--shards", type=int, default=3)
    args = parser.parse_args()
    problems = []

    with harness.temporary_folder("shards") as folder:
        test_config = harness.write_test_config(folder, args.fixtures, connector=args.connector,
                                                fault=FAULT)
        conform = harness.ConformIn(args.conform, folder)
        load = conform.load

        whole = conform("run", "--test-config", test_config, "--report-json", "whole.json")
        if whole.returncode != 1:
            sys.exit(f"FAIL: the whole run exited {whole.returncode}, expected 1: {whole.stderr}")
        shard_files = []
        for k in range(1, args.shards + 1):
            name = f"shard-{k}.json"
            conform("run", "--test-config", test_config, "--shard", f"{k}/{args.shards}",
                    "--report-json", name)
            shard = load(name)
            shard_files.append(name)
            if shard["metadata"]["shard"] != f"{k}/{args.shards}":
                problems.append(f"{name} says shard {shard['metadata']['shard']!r}")
            certified = [c["area"] for c in shard["certification"] if c["level"] == "certified"]
            if certified:
                problems.append(f"{name} alone certifies {certified}")

        ran = [s["id"] for name in shard_files for s in load(name)["scenarios"]]
        whole_report = load("whole.json")
        if sorted(ran) != sorted(s["id"] for s in whole_report["scenarios"]):
            problems.append(f"the shards ran {sorted(ran)}, not each scenario once")

        merged = conform("report", *shard_files, "--json", "merged.json", "--html", "merged.html")
        if merged.returncode != 1:
            problems.append(f"conform report exited {merged.returncode}, expected 1 (a check "
                            f"failed): {merged.stderr}")
        else:
            merged_report = load("merged.json")
            if without_clock(merged_report) != without_clock(whole_report):
                problems += differences(whole_report, merged_report)
            if merged_report["certification"] != whole_report["certification"]:
                problems.append(f"certification: {merged_report['certification']}")
            problems += coverage_problems(whole_report, merged_report,
                                          [load(name) for name in shard_files])

        missing = conform("report", *shard_files[:-1], "--json", "partial.json")
        wanted = f"shard {args.shards}/{args.shards} is missing"
        if missing.returncode != 3 or wanted not in missing.stderr:
            problems.append(f"an incomplete set of shards: exit {missing.returncode}, "
                            f"{missing.stderr.strip()!r}; expected 3 and {wanted!r}")
        registry_problems = check_registry(conform, folder, args, "whole.json")
        problems += registry_problems
        twice = conform("report", shard_files[0], shard_files[0], "--json", "twice.json")
        if twice.returncode != 3 or "given twice" not in twice.stderr:
            problems.append(f"a shard given twice: exit {twice.returncode}, "
                            f"{twice.stderr.strip()!r}")

    if problems:
        sys.exit("FAIL: " + "\n  ".join(problems))
    print(f"ok: {args.shards} shards merged equal the whole run ({len(ran)} scenarios); an "
          f"incomplete or duplicated set is refused")


if __name__ == "__main__":
    main()
