#!/usr/bin/env python3
"""Smoke test of `bench/run.sh --check`: its output, not its speed (docs in bench/README.md).

usage: check_smoke.py CONFORM_BINARY

Runs the guard on tiny transcripts with the limits not enforced (CHECK_LIMITS=0: a sanitized or
heavily loaded build must not fail here) and checks that, for each workload (events, multi), it
verified every tool's verdict, timed conform and the RapidJSON floors in a table of its own, and
printed a ratio against the getline floor; and that it ended with a verdict.
"""

import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = ("events", "multi")


def fail(message, output):
    sys.exit(f"check_smoke: {message}\n--- output ---\n{output}")


def main():
    conform = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="conform-bench-check-") as data_dir:
        env = dict(os.environ, CONFORM=conform, DATA_DIR=data_dir, RUNS="1", CHECK_LIMITS="0")
        run = subprocess.run(
            ["bash", os.path.join(REPO, "bench", "run.sh"), "--check", "2000"],
            env=env, capture_output=True, text=True, timeout=540, check=False)
    output = run.stdout + run.stderr
    if run.returncode != 0:
        fail(f"run.sh --check exited {run.returncode}", output)
    # stdout: common lines, then per workload a "### workload NAME: ..." header and its table
    sections = dict(re.findall(r"^### workload (\w+): .*?\n(.*?)(?=^### workload |\Z)", run.stdout,
                               re.MULTILINE | re.DOTALL))
    limits = re.findall(r"^check: (\w+): conform CPU per record = [\d.]+x (.+) \(limit [\d.]+x\): "
                        r"(ok|EXCEEDED)$", run.stdout, re.MULTILINE)
    for workload in WORKLOADS:
        if not re.search(rf"^sanity \({workload}\): .*every tool reports what it should$",
                         run.stderr, re.MULTILINE):
            fail(f"the sanity check of the verdicts did not run on {workload}", output)
        if workload not in sections:
            fail(f"no '### workload {workload}:' section", output)
        for row in ("conform validate", "RapidJSON getline floor (C++)",
                    "RapidJSON buffer floor (C++)"):
            if not re.search(rf"^\| {re.escape(row)} \| 2,000 \|", sections[workload],
                             re.MULTILINE):
                fail(f"no {workload} table row for '{row}' with 2,000 records", output)
        if not any(w == workload and name == "RapidJSON getline floor (C++)"
                   for w, name, _ in limits):
            fail(f"no ratio against the getline floor on {workload}", output)
    if re.search(r"^\| python", run.stdout, re.MULTILINE):
        fail("--check timed the Python validators, which it leaves out to stay quick", output)
    last = run.stdout.strip().splitlines()[-1]
    if last not in ("check: passed", "check: limits exceeded but not enforced (CHECK_LIMITS=0)"):
        fail(f"unexpected last line '{last}'", output)
    print(f"run.sh --check printed {len(limits)} limit verdict(s) on {len(sections)} workloads; "
          f"last line: {last}")


if __name__ == "__main__":
    main()
