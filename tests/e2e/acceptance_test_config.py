#!/usr/bin/env python3
"""Airbyte's acceptance-test-config.yml (issue 21, docs/acceptance-test-config.md):

1. the bundled reference connector runs green from fixtures/reference-connector/acceptance-test-config.yml
   (--connector replaces its placeholder image), its expected spec, expected records, invalid
   config, catalog and future state mapped (their checks pass, not skip; the future-state read is
   the file's), and no key reported; the same file with a future state whose cursors are not in
   the future fails state.future_state_no_records (the file is what the read got), and with a
   spec file one default off fails spec.matches_expected;
2. a legacy-format file and a test config naming one with "acceptance_test_config" run too;
3. each real acceptance-test-config*.yml under REFERENCE (Airbyte connectors' folders) loads (a
   dry run, no image started) and reports, with its line, every key conform cannot honour
   (backward_compatibility_tests_config, bypass_reason, test_strictness_level, a spec_path whose
   file is missing) and no key it maps. REFERENCE is tests/data/airbyte: four real files
   (source-faker, source-file current and legacy, source-pokeapi);
4. a file that tests spec only (its other sections bypassed) runs and judges spec, skips the rest
   with the file's reason and certifies nothing; --config, --catalog and --invalid-config given
   with a file replace what it says; --record-digests without a config is refused.

usage: acceptance_test_config.py CONFORM CONNECTOR FIXTURES REFERENCE
"""
import glob
import json
import os
import re
import shutil
import sys

import harness

conform, connector, fixtures, reference = harness.absolute_arguments(4)
failures = []
WARNING = re.compile(r"^warning: (.+?):(\d+): (\S+): not honoured: ", re.M)
UNHONOURED = ("backward_compatibility_tests_config", "bypass_reason", "test_strictness_level")
MAPPED = ("config_path", "configured_catalog_path", "timeout_seconds", "connector_image",
          "future_state", "future_state_path")


def check(condition, what, output=""):
    if condition:
        print(f"ok: {what}")
    else:
        failures.append(f"{what}\n{output[-4000:]}")


def warnings_of(stdout):
    """[(file, line, key path)] of the warnings conform printed."""
    return [(file, int(line), key) for file, line, key in WARNING.findall(stdout)]


def status_of(report, scenario_id, check_id):
    found = harness.scenario(report, scenario_id) or {"checks": []}
    return next((c["status"] for c in found["checks"] if c["id"] == check_id), None)


# 1. The reference connector, green from its own acceptance-test-config.yml.
bundled = os.path.join(fixtures, "acceptance-test-config.yml")
with harness.temporary_folder("acceptance-reference") as folder:
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--acceptance-test-config", bundled,
                             "--connector", connector, "--report-json", report_path], timeout=300)
    output = completed.stdout + completed.stderr
    check(completed.returncode == 0, f"the reference connector runs green from its "
          f"acceptance-test-config.yml (exit {completed.returncode})", output)
    report = harness.load_report(report_path, completed)
    check(status_of(report, "read-expected", "read.expected_records") == "passed",
          "expect_records is mapped: read.expected_records passed", output)
    check(status_of(report, "check-invalid", "cli.check_invalid_config") in ("passed", None) and
          any(s["id"] == "check-invalid" and s["status"] == "passed" for s in report["scenarios"]),
          "the failed-status config is the invalid config: check-invalid passed", output)
    future = harness.scenario(report, "read-from-future-state") or {"checks": []}
    future_check = next((c for c in future["checks"]
                         if c["id"] == "state.future_state_no_records"), {})
    check(future_check.get("status") == "passed" and
          "future_state: " + os.path.join(fixtures, "abnormal_state.json") in
          future_check.get("note", ""),
          "future_state is mapped: state.future_state_no_records passed on the file's state",
          output)
    check(status_of(report, "spec", "spec.matches_expected") == "passed",
          "spec_path is mapped: spec.matches_expected passed on the file's spec", output)
    keys = sorted(key for _, _, key in warnings_of(completed.stdout))
    check(keys == [], f"no key is reported ({keys})", output)

# The future state conform reads from is the file's: one whose cursor lies in the past (the
# connector's second checkpoint) makes the read deliver records, and the check fail.
with harness.temporary_folder("acceptance-stale-future") as folder:
    harness.write_file(folder, "stale_state.json", [
        {"type": "STREAM", "stream": {"stream_descriptor": {"name": "events"},
                                      "stream_state": {"cursor": "2024-01-01T00:20:00Z",
                                                       "seq": 20}}}])
    with open(bundled) as source:
        text = source.read().replace('"abnormal_state.json"',
                                     f'"{os.path.join(folder, "stale_state.json")}"')
    for name in ("config.json", "invalid_config.json", "configured_catalog.json",
                 "expected_records.jsonl"):
        shutil.copyfile(os.path.join(fixtures, name), os.path.join(folder, name))
    stale = harness.write_file(folder, "acceptance-test-config.yml", text)
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--acceptance-test-config", stale, "--connector",
                             connector, "--only", "read-from-future-state", "--report-json",
                             report_path], timeout=300)
    report = harness.load_report(report_path, completed)
    check(completed.returncode == 1 and
          status_of(report, "read-from-future-state", "state.future_state_no_records") ==
          "failed", f"a future state in the past fails state.future_state_no_records "
          f"(exit {completed.returncode})", completed.stdout + completed.stderr)

# The expected spec is the file's: one default changed fails spec.matches_expected there.
with harness.temporary_folder("acceptance-stale-spec") as folder:
    with open(os.path.join(fixtures, "spec.json")) as source:
        spec = json.load(source)
    spec["connectionSpecification"]["properties"]["users"]["default"] += 1
    harness.write_file(folder, "spec.json", spec, indent=2)
    for name in ("config.json", "invalid_config.json", "configured_catalog.json",
                 "expected_records.jsonl", "abnormal_state.json"):
        shutil.copyfile(os.path.join(fixtures, name), os.path.join(folder, name))
    shutil.copyfile(bundled, os.path.join(folder, "acceptance-test-config.yml"))
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--acceptance-test-config",
                             os.path.join(folder, "acceptance-test-config.yml"), "--connector",
                             connector, "--only", "spec", "--report-json", report_path],
                            timeout=300)
    report = harness.load_report(report_path, completed)
    messages = json.dumps(harness.scenario(report, "spec") or {})
    check(completed.returncode == 1 and
          status_of(report, "spec", "spec.matches_expected") == "failed" and
          "at '/connectionSpecification/properties/users/default' the expected spec has" in
          messages, f"a stale expected spec fails spec.matches_expected where it differs "
          f"(exit {completed.returncode})", completed.stdout + completed.stderr)

# 2. The legacy format, and a test config that names an acceptance-test-config.yml.
with harness.temporary_folder("acceptance-legacy") as folder:
    legacy = harness.write_file(folder, "acceptance-test-config.yml", f"""connector_image: conform/reference-connector:dev
tests:
  connection:
    - config_path: "{fixtures}/config.json"
      status: "succeed"
    - config_path: "{fixtures}/invalid_config.json"
      status: "failed"
  basic_read:
    - config_path: "{fixtures}/config.json"
      configured_catalog_path: "{fixtures}/configured_catalog.json"
""")
    completed = harness.run([conform, "run", "--acceptance-test-config", legacy, "--connector",
                             connector, "--only", "check-valid,check-invalid,read"], timeout=300)
    check(completed.returncode == 0 and "warning:" not in completed.stdout,
          f"the legacy format runs green with nothing to report (exit {completed.returncode})",
          completed.stdout + completed.stderr)
    merged = harness.write_file(folder, "merge-keys.yml", f"""connector_image: conform/reference-connector:dev
acceptance_tests:
  connection:
    tests:
      - &valid {{config_path: "{fixtures}/config.json", status: succeed}}
      - <<: *valid
        config_path: "{fixtures}/invalid_config.json"
        status: failed
      - *valid
  basic_read:
    tests:
      - &read
        config_path: "{fixtures}/config.json"
        configured_catalog_path: "{fixtures}/configured_catalog.json"
  full_refresh:
    tests:
      - <<: *read
""")
    completed = harness.run([conform, "run", "--acceptance-test-config", merged, "--connector",
                             connector, "--only", "check-valid,check-invalid,read"], timeout=300)
    check(completed.returncode == 0 and "warning:" not in completed.stdout,
          f"merge keys (<<) are read as PyYAML reads them: every test maps, nothing to report "
          f"(exit {completed.returncode})", completed.stdout + completed.stderr)
    test_config = harness.write_file(folder, "conform.json", {
        "acceptance_test_config": "acceptance-test-config.yml",
        "connector": {"command": [connector]},
        "volatile_fields": {"users": ["/fetched_at"]}}, indent=2)
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--test-config", test_config, "--only",
                             "check-invalid,read-twice", "--report-json", report_path],
                            timeout=300)
    report = harness.load_report(report_path, completed)
    check(completed.returncode == 0 and harness.scenario(report, "check-invalid")["status"] ==
          "passed", f"a test config's acceptance_test_config key maps the file under its own "
          f"keys (exit {completed.returncode})", completed.stdout + completed.stderr)
    bad = harness.write_file(folder, "bad.yml", "connector_image: x\nacceptance_tests:\n"
                             "  connection:\n    tests:\n      - config_path: c.json\n"
                             "        timeout_seconds: soon\n")
    completed = harness.run([conform, "run", "--acceptance-test-config", bad, "--dry-run"])
    check(completed.returncode == 3 and f"{bad}:6" in completed.stderr,
          "a wrongly typed value is bad input naming its YAML line",
          completed.stdout + completed.stderr)

# 4. A file that tests spec only (every other section bypassed, as Airbyte's builder
# contributions without secrets): spec runs and is judged, the rest is skipped with the file's
# reason, and nothing is certified; --config (and --invalid-config, --catalog) given with a file
# replace what it says.
with harness.temporary_folder("acceptance-spec-only") as folder:
    shutil.copyfile(os.path.join(fixtures, "spec.json"), os.path.join(folder, "spec.json"))
    spec_only = harness.write_file(folder, "acceptance-test-config.yml", """connector_image: conform/reference-connector:dev
acceptance_tests:
  spec:
    tests:
      - spec_path: "spec.json"
  connection:
    bypass_reason: "no secrets at this time"
  basic_read:
    bypass_reason: "no secrets at this time"
  incremental:
    tests:
    bypass_reason: "nested states"
""")
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--acceptance-test-config", spec_only,
                             "--connector", connector, "--report-json", report_path], timeout=300)
    output = completed.stdout + completed.stderr
    report = harness.load_report(report_path, completed)
    check(completed.returncode == 0 and
          status_of(report, "spec", "spec.matches_expected") == "passed" and
          status_of(report, "spec", "cli.spec") == "passed",
          f"a spec-only file runs spec and judges it (exit {completed.returncode})", output)
    skipped = harness.scenario(report, "check-valid") or {}
    check(skipped.get("status") == "skipped" and
          "gives no connector config" in json.dumps(skipped) and
          "no secrets at this time" in json.dumps(skipped) and
          "--config FILE" in json.dumps(skipped),
          "check-valid is skipped saying the file gives no config, why, and the flag", output)
    check(status_of(report, "spec", "spec.config_valid") == "skipped",
          "spec.config_valid has no config to judge: skipped", output)
    core = next((c for c in report.get("certification", []) if c["area"] == "core"), {})
    check(core.get("level") == "incomplete" and "gives no connector config" in core.get("reason", "")
          and "gives no connector config" in report["metadata"].get("untested", ""),
          f"a spec-only run certifies nothing ({core})", output)
    completed = harness.run([conform, "run", "--acceptance-test-config", spec_only,
                             "--connector", connector, "--record-digests"], timeout=300)
    check(completed.returncode == 2 and "gives no connector config" in completed.stderr,
          f"--record-digests needs a config: refused before anything runs "
          f"(exit {completed.returncode})", completed.stdout + completed.stderr)
    completed = harness.run([conform, "run", "--acceptance-test-config", spec_only,
                             "--connector", connector, "--config",
                             os.path.join(fixtures, "config.json"), "--catalog",
                             os.path.join(fixtures, "configured_catalog.json"), "--only",
                             "check-valid,read", "--report-json", report_path], timeout=300)
    report = harness.load_report(report_path, completed)
    check(completed.returncode == 0 and harness.scenario(report, "check-valid")["status"] ==
          "passed" and harness.scenario(report, "read")["status"] == "passed",
          f"--config and --catalog give the spec-only file a config and catalog: check and "
          f"read run (exit {completed.returncode})", completed.stdout + completed.stderr)

# --invalid-config replaces the file's invalid config: the valid one given there is accepted by
# check, which check-invalid then fails (the flag was not ignored).
with harness.temporary_folder("acceptance-flags") as folder:
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--acceptance-test-config", bundled, "--connector",
                             connector, "--invalid-config", os.path.join(fixtures, "config.json"),
                             "--only", "check-invalid", "--report-json", report_path],
                            timeout=300)
    report = harness.load_report(report_path, completed)
    check(completed.returncode == 1 and
          harness.scenario(report, "check-invalid")["status"] == "failed",
          f"--invalid-config replaces the file's invalid config (exit {completed.returncode})",
          completed.stdout + completed.stderr)

# 3. Every real acceptance-test-config*.yml loads with its unsupported keys reported.
real_files = sorted(glob.glob(os.path.join(reference, "*", "acceptance-test-config*.yml")))
for real in real_files:
    name = os.path.relpath(real, reference)
    with harness.temporary_folder("acceptance-real") as folder:
        copy = os.path.join(folder, os.path.basename(os.path.dirname(real)))
        shutil.copytree(os.path.dirname(real), copy)
        copied = os.path.join(copy, os.path.basename(real))
        with open(copied) as source:
            lines = source.read().split("\n")
        # tests/data keeps each connector's files in one folder (ORIGIN.md): put each file a
        # path names back where the YAML says. The connectors' secrets are not in the
        # repository: an empty config stands for each.
        text = "\n".join(lines)
        for key, path in set(re.findall(r'(\w*path): "?([^"\s]+)', text)):
            full = os.path.join(copy, path)
            flat = os.path.join(copy, os.path.basename(path))
            if os.path.exists(full):
                continue
            os.makedirs(os.path.dirname(full), exist_ok=True)
            if os.path.exists(flat):
                shutil.copyfile(flat, full)
            elif key == "config_path":
                harness.write_file(os.path.dirname(full), os.path.basename(full), "{}")
        completed = harness.run([conform, "run", "--acceptance-test-config", copied,
                                 "--container-runtime", "podman", "--dry-run"], timeout=120)
        output = completed.stdout + completed.stderr
        check(completed.returncode == 0 and "scenario(s) would run" in completed.stdout,
              f"{name} loads (dry run, exit {completed.returncode})", output)
        warned = warnings_of(completed.stdout)
        warned_lines = {(line, key.split(".")[-1].split("[")[0]) for _, line, key in warned}
        for number, text in enumerate(lines, start=1):
            key = text.strip().lstrip("- ").split(":")[0]
            if key in UNHONOURED:
                check((number, key) in warned_lines,
                      f"{name}:{number}: {key} is reported", completed.stdout)
            if key == "spec_path":
                path = text.split(":", 1)[1].strip().strip('"')
                present = os.path.exists(os.path.join(copy, path))
                check(((number, key) in warned_lines) != present,
                      f"{name}:{number}: spec_path is mapped when its file exists "
                      f"({present}), reported when not", completed.stdout)
        mapped = [key for _, _, key in warned if key.split(".")[-1] in MAPPED and
                  "config_path" not in key]
        check(not mapped, f"{name}: no mapped key is reported ({mapped})", completed.stdout)
        check(len(warned) == len(set(warned)), f"{name}: each warning once", completed.stdout)

check(len(real_files) == 4, f"four real acceptance-test-config files under {reference}",
      "\n".join(real_files))
if failures:
    sys.exit("FAIL:\n" + "\n".join(failures))
print("all acceptance-test-config cases passed")
