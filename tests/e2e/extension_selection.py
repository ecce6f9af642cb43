#!/usr/bin/env python3
"""--only/--skip globs and --shard select Meltano extension scenarios as they do Airbyte ones.

    extension_selection.py --conform BIN --bin DIR

Against the reference extension (with a fault, so that merged reports must carry a failure):
- `--only 'mx.log_*'` runs exactly the scenarios listing a matching check and judges only the
  matching checks; `--skip 'mx-log*'` (a scenario glob) leaves exactly those scenarios out;
  a glob that matches nothing is a usage error (exit 2);
- `--shard K/N` for K = 1..N runs each selected scenario in exactly one shard, each shard's report
  says "shard": "K/N", and `conform report` merges the shards into the whole run's report (clock
  values aside), scenarios in suite order.
"""
import argparse
import fnmatch
import re
import sys

import harness
from extension_case import write_test_config
from shard_merge import differences, without_clock

FAULT = "log_unlevelled"
SHARDS = 3
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")


def comparable(report):
    """The report without clock values, the extension's log timestamps included."""
    return TIMESTAMP.sub("TIME", without_clock(report))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--conform", required=True)
    parser.add_argument("--bin", required=True)
    args = parser.parse_args()
    problems = []
    with harness.temporary_folder("extension-selection") as folder:
        setup = argparse.Namespace(bin=args.bin, fault=FAULT, image=None, set=None,
                                   stdin_timeout=5)
        test_config = write_test_config(folder, setup)

        conform = harness.ConformIn(args.conform, folder)
        load = conform.load

        whole = conform("run", "--test-config", test_config, "--report-json", "whole.json")
        if whole.returncode not in (0, 1):
            sys.exit(f"FAIL: the whole run exited {whole.returncode}: {whole.stderr}")
        whole_report = load("whole.json")
        scenarios = {s["id"]: [c["id"] for c in s["checks"]] for s in whole_report["scenarios"]}

        only = conform("run", "--test-config", test_config, "--only", "mx.log_*",
                       "--report-json", "only.json")
        ran = {s["id"]: [c["id"] for c in s["checks"]] for s in load("only.json")["scenarios"]}
        wanted = {sid: [c for c in checks if fnmatch.fnmatch(c, "mx.log_*")]
                  for sid, checks in scenarios.items()}
        wanted = {sid: checks for sid, checks in wanted.items() if checks}
        if only.returncode not in (0, 1) or not wanted or ran != wanted:
            problems.append(f"--only 'mx.log_*' (exit {only.returncode}) ran {ran}; "
                            f"expected {wanted}")

        skip = conform("run", "--test-config", test_config, "--skip", "mx-log*",
                       "--report-json", "skip.json")
        ran = [s["id"] for s in load("skip.json")["scenarios"]]
        wanted = [sid for sid in scenarios if not fnmatch.fnmatch(sid, "mx-log*")]
        if skip.returncode not in (0, 1) or ran != wanted or len(wanted) == len(scenarios):
            problems.append(f"--skip 'mx-log*' (exit {skip.returncode}) ran {ran}; "
                            f"expected {wanted}")

        nothing = conform("run", "--test-config", test_config, "--only", "mx.nothing_*")
        if nothing.returncode != 2 or "mx.nothing_*" not in nothing.stderr:
            problems.append(f"--only 'mx.nothing_*': exit {nothing.returncode}, "
                            f"{nothing.stderr.strip()!r}; expected 2 naming the glob")

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
        elif comparable(load("merged.json")) != comparable(whole_report):
            found = differences(whole_report, load("merged.json"))
            problems.append("the merged report differs from the whole run's: " +
                            (found[0][:1500] if found else "metadata or totals"))
    if problems:
        sys.exit("FAIL: " + "\n".join(problems))
    print(f"ok: globs select Meltano scenarios and checks; {SHARDS} shards merge into the whole "
          f"run ({len(scenarios)} scenarios)")


if __name__ == "__main__":
    main()
