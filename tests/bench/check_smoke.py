#!/usr/bin/env python3
"""Smoke test of `bench/run.sh --check`: its output, not its speed (docs in bench/README.md).

usage: check_smoke.py CONFORM_BINARY

Runs the guard on a tiny transcript with the limits not enforced (CHECK_LIMITS=0: a sanitized or
heavily loaded build must not fail here) and checks that it verified every tool's verdict, timed
conform and the RapidJSON floors, and printed a ratio and a verdict for each limit it could check.
"""

import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


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
    if "every tool reports what it should" not in run.stderr:
        fail("the sanity check of the verdicts did not run", output)
    for row in ("conform validate", "RapidJSON getline floor (C++)", "RapidJSON buffer floor (C++)"):
        if not re.search(rf"^\| {re.escape(row)} \| 2,000 \|", run.stdout, re.MULTILINE):
            fail(f"no table row for '{row}' with 2,000 records", output)
    if re.search(r"^\| python", run.stdout, re.MULTILINE):
        fail("--check timed the Python validators, which it leaves out to stay quick", output)
    limits = re.findall(r"^check: conform CPU per record = [\d.]+x (.+) \(limit [\d.]+x\): (ok|EXCEEDED)$",
                        run.stdout, re.MULTILINE)
    if not any(name == "RapidJSON getline floor (C++)" for name, _ in limits):
        fail("no ratio against the getline floor", output)
    last = run.stdout.strip().splitlines()[-1]
    if last not in ("check: passed", "check: limits exceeded but not enforced (CHECK_LIMITS=0)"):
        fail(f"unexpected last line '{last}'", output)
    print(f"run.sh --check printed {len(limits)} limit verdict(s); last line: {last}")


if __name__ == "__main__":
    main()
