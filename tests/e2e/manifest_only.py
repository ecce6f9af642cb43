#!/usr/bin/env python3
"""A manifest-only connector run by a generic runner (docs/manifest-only.md), beyond the verdicts
of its e2e.real.manifest_runner* cases:

1. the spec checks say they judged the manifest's spec section, with its line, and the expected
   spec (the runner's own generic spec would not match) passes;
2. an expected spec that is the manifest itself is not compared (skipped, with the reason);
3. --manifest replaces the test config's manifest;
4. a manifest without spec.connection_specification, and one that is not YAML, are refused
   (exit 3) naming the file;
5. the runner given no manifest answers no check (it needs the one conform injects);
6. `conform diff` of two manifests on the same runner reports the new spec's breaking change and
   names each version by its manifest;
7. an acceptance-test-config.yml beside a metadata.yaml tagged language:manifest-only, run
   without a manifest, says to give it; with --manifest it says nothing.

usage: manifest_only.py CONFORM SOURCE_ROOT
"""
import os
import shutil
import sys

import harness

conform, source_root = harness.absolute_arguments(2)
RUNNER = "tests/connectors/manifest-runner"
SOURCE = "tests/connectors/python-cdk-style"
failures = []


def check(condition, what, completed=None):
    if condition:
        print(f"ok: {what}")
    else:
        output = "" if completed is None else completed.stdout[-4000:] + completed.stderr[-2000:]
        failures.append(f"{what}\n{output}")


def spec_check(report, check_id):
    found = harness.scenario(report, "spec") or {"checks": []}
    return next((c for c in found["checks"] if c["id"] == check_id), {})


def run_spec(conform_in, test_config, *extra):
    completed = conform_in("run", "--test-config", test_config, "--only", "spec",
                           "--report-json", "report.json", *extra, timeout=300)
    return completed, harness.load_report(os.path.join(conform_in.folder, "report.json"),
                                          completed)


with harness.temporary_folder("manifest-only") as folder:
    for relative in (RUNNER, SOURCE):
        shutil.copytree(os.path.join(source_root, relative), os.path.join(folder, relative),
                        ignore=shutil.ignore_patterns("__pycache__"))
    runner = os.path.join(folder, RUNNER)
    conform_in = harness.ConformIn(conform, runner)

    # 1. The manifest's spec is the one judged.
    completed, report = run_spec(conform_in, "conform.json")
    schema_valid = spec_check(report, "spec.schema_valid")
    check(schema_valid.get("status") == "passed" and
          "judged the spec section of manifest.yaml (line 55)" in schema_valid.get("note", ""),
          "spec.schema_valid judged the manifest's spec section and says where", completed)
    check(spec_check(report, "spec.matches_expected").get("status") == "passed",
          "spec.matches_expected passed: the manifest's spec is the expected one", completed)

    # 2. An expected spec that is the manifest itself.
    with open(os.path.join(runner, "conform.json")) as source:
        text = source.read().replace('"expected_spec.json"', '"manifest.yaml"')
    harness.write_file(runner, "conform.self.json", text)
    completed, report = run_spec(conform_in, "conform.self.json")
    matches = spec_check(report, "spec.matches_expected")
    check(matches.get("status") == "skipped" and
          "is the manifest whose spec section is the connector's spec" in matches.get("note", ""),
          f"an expected spec that is the manifest is not compared ({matches.get('status')})", completed)

    # 3. --manifest replaces the test config's (whose spec requires a property the config lacks).
    completed, report = run_spec(conform_in, "conform.requires-region.json")
    check(spec_check(report, "spec.config_valid").get("status") == "failed",
          "the test config's manifest requires region: spec.config_valid fails", completed)
    completed, report = run_spec(conform_in, "conform.requires-region.json",
                                 "--manifest", "manifest.yaml")
    check(spec_check(report, "spec.config_valid").get("status") == "passed",
          "--manifest manifest.yaml replaces it: spec.config_valid passes", completed)

    # 4. Manifests conform refuses.
    harness.write_file(runner, "no-spec.yaml", "version: 0.50.2\nstreams: []\n")
    harness.write_file(runner, "broken.yaml", "version: 0.50.2\nstreams: [\n")
    for name, said in (("no-spec.yaml", "needs spec.connection_specification"),
                       ("broken.yaml", "broken.yaml:")):
        completed = conform_in("run", "--test-config", "conform.json", "--manifest", name,
                               timeout=60)
        check(completed.returncode == 3 and name in completed.stderr and said in completed.stderr,
              f"a manifest {name} is refused, exit 3 naming it ({completed.returncode})",
              completed)

    # 5. Without a manifest the runner answers no check.
    completed = conform_in("run", "--connector", "./source-declarative-manifest",
                           "--config", "../python-cdk-style/config.json",
                           "--catalog", "../python-cdk-style/configured_catalog.json",
                           "--only", "check-valid", "--report-json", "bare.json", timeout=120)
    bare = harness.statuses(harness.load_report(os.path.join(runner, "bare.json"), completed))
    check(completed.returncode == 1 and "failed" in bare.get("cli.check", set()) and
          "__injected_declarative_manifest" in completed.stdout,
          "the runner without a manifest fails cli.check and says what it lacks", completed)

    # 6. Two versions of the manifest on one runner.
    with open(os.path.join(runner, "manifest.yaml")) as source:
        v2 = source.read().replace("    required:\n      - data_dir\n",
                                   "    required:\n      - data_dir\n      - api_key\n")
    harness.write_file(runner, "manifest.v2.yaml", v2)
    completed = conform_in("diff", "--test-config", "conform.json", "--control-manifest",
                           "manifest.yaml", "--target-manifest", "manifest.v2.yaml",
                           "--only", "spec", timeout=300)
    check(completed.returncode == 1 and "spec.newly_required" in completed.stdout and
          "/api_key" in completed.stdout,
          "diff of two manifests: the newly required property breaks (exit 1)", completed)
    check("with manifest.yaml" in completed.stdout and "with manifest.v2.yaml" in completed.stdout,
          "the diff names each version by its manifest", completed)

    # 7. Airbyte's acceptance-test-config.yml of a manifest-only connector.
    harness.write_file(runner, "acceptance-test-config.yml",
                       "connector_image: airbyte/source-x:dev\nacceptance_tests:\n"
                       "  spec:\n    tests:\n      - spec_path: manifest.yaml\n"
                       "  connection:\n    tests:\n"
                       "      - config_path: ../python-cdk-style/config.json\n"
                       "        status: succeed\n")
    harness.write_file(runner, "metadata.yaml",
                       "data:\n  tags:\n    - cdk:low-code\n    - language:manifest-only\n")
    hint = "its metadata.yaml says the connector is manifest-only: give the manifest"
    for extra, wanted in (([], True), (["--manifest", "manifest.yaml"], False)):
        completed = conform_in("run", "--acceptance-test-config", "acceptance-test-config.yml",
                               "--connector", "./source-declarative-manifest", "--dry-run",
                               *extra, timeout=120)
        check((hint in completed.stdout) == wanted and completed.returncode == 0,
              f"the manifest-only hint is {'given' if wanted else 'not given'} "
              f"({' '.join(extra) or 'no --manifest'})", completed)

if failures:
    print("\n".join(f"FAIL: {failure}" for failure in failures))
    sys.exit(1)
