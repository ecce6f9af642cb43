#!/usr/bin/env python3
"""--only/--skip globs and --shard select a built-in protocol's scenarios as they do Airbyte ones.

    protocol_selection.py --conform BIN --protocol meltano --bin DIR
    protocol_selection.py --conform BIN --protocol destination --destination BIN --fixtures DIR

Against the protocol's reference connector (with a fault, so that merged reports must carry a
failure):
- `--only CHECK_GLOB` runs exactly the scenarios listing a matching check and judges only the
  matching checks; `--skip SCENARIO_GLOB` leaves exactly those scenarios out; a glob that matches
  nothing is a usage error (exit 2);
- `--shard K/N` for K = 1..N runs each selected scenario in exactly one shard, each shard's report
  says "shard": "K/N", and `conform report` merges the shards into the whole run's report (clock
  values aside), scenarios in suite order.
"""
import argparse
import copy
import difflib
import fnmatch
import itertools
import re
import sys

import harness
from shard_merge import without_clock

SHARDS = 3
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def comparable(report, racy=()):
    """The report without clock values, the connectors' log timestamps included. In the
    scenarios `racy` names, the check notes and the runs' line and record counts are left out as
    well (lines, records, STATEs, stderr): they depend on how far the connector got before a kill
    landed, not on the selection."""
    report = copy.deepcopy(report)
    for scenario in report["scenarios"]:
        if scenario["id"] in racy:
            for check in scenario["checks"]:
                check["note"] = "RACY"
            for run in scenario["runs"]:
                for count in ("lines", "records", "states", "stderr_tail"):
                    run.pop(count, None)
    if any(s["id"] in racy for s in report["scenarios"]):
        # The stream coverage sums every run's records, the racy scenarios' included.
        for stream in report.get("coverage", {}).get("streams", {}).get("items", []):
            stream.pop("records", None)
            for mode in stream.get("modes", []):
                mode.pop("records", None)
    return TIMESTAMP.sub("TIME", without_clock(report))


def first_difference(expected, actual, context=6, limit=60):
    """The first lines where two comparable reports part, as a unified diff."""
    lines = difflib.unified_diff(expected.splitlines(), actual.splitlines(), "whole run",
                                 "merged shards", lineterm="", n=context)
    return "\n".join(itertools.islice(lines, limit))


def meltano_setup(folder, args):
    from extension_case import write_test_config
    setup = argparse.Namespace(bin=args.bin, fault="log_unlevelled", image=None, set=None,
                               stdin_timeout=5)
    return write_test_config(folder, setup), {"check": "mx.log_*", "scenario": "mx-log*",
                                              "nothing": "mx.nothing_*", "racy": ()}


def destination_setup(folder, args):
    from destination_case import write_test_config
    setup = argparse.Namespace(destination=args.destination, fixtures=args.fixtures,
                               fault="dedup_keeps_first", quirk=None, set=None,
                               known_failure=None)
    # dst.state_* are judged in two scenarios of seven; dst-check* names two others. The kill
    # lands right after the 2nd STATE echo, and whether the destination wrote the next stream's
    # rows before it is a race: the verdicts are the same, the notes and counts not always.
    return write_test_config(folder, setup), {"check": "dst.state*", "scenario": "dst-check*",
                                              "nothing": "dst.nothing_*",
                                              "racy": ("dst-kill-resume",)}


def checks_by_scenario(report):
    return {s["id"]: [c["id"] for c in s["checks"]] for s in report["scenarios"]}


def selection_problems(conform, test_config, globs):
    """What --only/--skip with globs did otherwise than they should; the whole run's report and
    exit code."""
    problems = []
    load = conform.load
    whole = conform("run", "--test-config", test_config, "--report-json", "whole.json")
    if whole.returncode not in (0, 1):
        sys.exit(f"FAIL: the whole run exited {whole.returncode}: {whole.stderr}")
    whole_report = load("whole.json")
    scenarios = checks_by_scenario(whole_report)

    only = conform("run", "--test-config", test_config, "--only", globs["check"],
                   "--report-json", "only.json")
    ran = checks_by_scenario(load("only.json"))
    wanted = {sid: [c for c in checks if fnmatch.fnmatch(c, globs["check"])]
              for sid, checks in scenarios.items()}
    wanted = {sid: checks for sid, checks in wanted.items() if checks}
    if only.returncode not in (0, 1) or not wanted or ran != wanted:
        problems.append(f"--only {globs['check']!r} (exit {only.returncode}) ran {ran}; "
                        f"expected {wanted}")

    skip = conform("run", "--test-config", test_config, "--skip", globs["scenario"],
                   "--report-json", "skip.json")
    ran = [s["id"] for s in load("skip.json")["scenarios"]]
    wanted = [sid for sid in scenarios if not fnmatch.fnmatch(sid, globs["scenario"])]
    if skip.returncode not in (0, 1) or ran != wanted or len(wanted) == len(scenarios):
        problems.append(f"--skip {globs['scenario']!r} (exit {skip.returncode}) ran {ran}; "
                        f"expected {wanted}")

    nothing = conform("run", "--test-config", test_config, "--only", globs["nothing"])
    if nothing.returncode != 2 or globs["nothing"] not in nothing.stderr:
        problems.append(f"--only {globs['nothing']!r}: exit {nothing.returncode}, "
                        f"{nothing.stderr.strip()!r}; expected 2 naming the glob")
    return problems, whole, whole_report


def shard_problems(conform, test_config, whole, whole_report, racy):
    """What the shards and their merge did otherwise than the whole run."""
    problems = []
    load = conform.load
    scenarios = checks_by_scenario(whole_report)
    shard_files = []
    for k in range(1, SHARDS + 1):
        name = f"shard-{k}.json"
        conform("run", "--test-config", test_config, "--shard", f"{k}/{SHARDS}",
                "--report-json", name)
        shard = load(name)
        shard_files.append(name)
        if shard["metadata"]["shard"] != f"{k}/{SHARDS}":
            problems.append(f"{name} says shard {shard['metadata']['shard']!r}")
    ran = [s["id"] for name in shard_files for s in load(name)["scenarios"]]
    if sorted(ran) != sorted(scenarios) or len(load(shard_files[0])["scenarios"]) >= len(
            scenarios):
        problems.append(f"the shards ran {ran}, not each of {list(scenarios)} once")
    merged = conform("report", *shard_files, "--json", "merged.json")
    if merged.returncode != whole.returncode:
        problems.append(f"conform report exited {merged.returncode}, the whole run "
                        f"{whole.returncode}: {merged.stderr}")
    elif comparable(load("merged.json"), racy) != comparable(whole_report, racy):
        problems.append("the merged report differs from the whole run's:\n" + first_difference(
            comparable(whole_report, racy), comparable(load("merged.json"), racy)))
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conform", required=True)
    parser.add_argument("--protocol", required=True, choices=("meltano", "destination"))
    parser.add_argument("--bin", help="meltano: the reference extension's folder")
    parser.add_argument("--destination", help="destination: the reference destination")
    parser.add_argument("--fixtures", help="destination: its fixtures folder")
    args = parser.parse_args()
    setup = meltano_setup if args.protocol == "meltano" else destination_setup
    with harness.temporary_folder(f"{args.protocol}-selection") as folder:
        test_config, globs = setup(folder, args)
        conform = harness.ConformIn(args.conform, folder)
        problems, whole, whole_report = selection_problems(conform, test_config, globs)
        problems += shard_problems(conform, test_config, whole, whole_report, globs["racy"])
    if problems:
        sys.exit("FAIL: " + "\n".join(problems))
    print(f"ok: globs select {args.protocol} scenarios and checks; {SHARDS} shards merge into the "
          f"whole run ({len(whole_report['scenarios'])} scenarios)")


if __name__ == "__main__":
    main()
