#!/usr/bin/env python3
"""Peak memory of conform against its stated bound (docs/hostile-input.md, "Memory").

usage: memory_bound.py CONFORM REFERENCE_CONNECTOR CASE [RECORDS]

Cases:
  validate    `conform validate` of a reference-connector transcript of RECORDS records
  repeated-keys
              the same, each record's key taken modulo 1,000 and every tenth RECORD line written
              twice: read.no_duplicates reads the copies of every key again from the transcript
  run         `conform run --only read-twice resume` with the reference connector emitting RECORDS
  run-all     `conform run` of every scenario of the suite, the reference connector emitting RECORDS
  states      `conform validate` of 1,000 STATEs of 1 MiB each
  state-per-record
              `conform run --only resume` with the reference connector emitting a STATE after
              each of RECORDS records (200,000 by default)
  types       `conform validate` of 1,000,000 messages of distinct unknown types
  type-names  `conform validate` of 1,000 messages of distinct unknown types with 1 MiB names
  traces      `conform validate` of 50 TRACE messages of 15 MiB each
  deep-spec   `conform run --only spec` of a SPEC nested 1,350,000 oneOf levels deep (15 MB),
              or RECORDS levels: parsing stops at the nesting limit (json::k_max_nesting)
  state-spill `conform validate` of a 1 MiB STATE of one stream followed by 1,000 small STATEs of
              another: the bytes conform writes (its spill files) stay below 64 MiB
  measure     prints peak RSS and wall time of validate and run, asserts nothing

The bound: peak RSS <= 64 MiB + 16 bytes x records observed, where a record observed is one
RECORD line conform analysed, counted over every connector run of the invocation (the sum of the
"records" of the report's runs; for validate, the transcript's records). `conform validate` of
records (validate, repeated-keys) is held to 32 MiB whatever their number: flat.
"""
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import harness  # noqa: E402  (tests/e2e/harness.py)

REFERENCE = os.path.join(HERE, "..", "..", "fixtures", "reference-connector")
FIXED = 64 * 1024 * 1024
PER_RECORD = 16
VALIDATE_FLAT = 32 * 1024 * 1024


WRITTEN = {}  # the bytes the last measured process wrote (/proc/PID/io wchar)


def run_measured(command, **kwargs):
    """Runs command; returns (exit code, peak RSS in bytes, wall seconds, stdout, stderr)."""
    start = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, **kwargs)
        # Waited for without reaping first: its I/O counters are readable until it is reaped.
        os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
        with open(f"/proc/{process.pid}/io") as io:
            WRITTEN["bytes"] = next(int(line.split()[1]) for line in io
                                    if line.startswith("wchar:"))
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return process.returncode, usage.ru_maxrss * 1024, wall, out.read(), err.read()


write = harness.write_file


def reference_config(folder, records, checkpoint_every=10000):
    users = records // 2
    return write(folder, "config.json", {
        "api_key": "ref-secret-value-1234",
        "users": users,
        "events": records - users,
        "checkpoint_every": checkpoint_every,
        "data_file": os.path.join(folder, "events.jsonl"),
    })


def catalog_path():
    return os.path.join(REFERENCE, "configured_catalog.json")


def transcript_of_read(connector, folder, records):
    transcript = os.path.join(folder, "read.jsonl")
    with open(transcript, "wb") as out:
        subprocess.run([connector, "read", "--config", reference_config(folder, records),
                        "--catalog", catalog_path()], stdout=out, check=True)
    return transcript


def validate(conform, folder, transcript):
    report = os.path.join(folder, "validate-report.json")
    code, peak, wall, _, err = run_measured(
        [conform, "validate", "--catalog", catalog_path(), "--report-json", report, transcript])
    return code, peak, wall, err, report


def conform_run(conform, connector, folder, records, only=("read-twice", "resume"),
                checkpoint_every=10000):
    test_config = {
        "connector": {"command": [connector]},
        "config": reference_config(folder, records, checkpoint_every),
        "catalog": catalog_path(),
        "extensions": ["tail", "range", "merge", "projections"],
        "volatile_fields": {"users": ["/fetched_at"]},
        "timeouts": {"read": 600},
        "resume": {"sample": 0},
    }
    path = write(folder, "conform.json", test_config)
    report = os.path.join(folder, "run-report.json")
    selection = ["--only", *only] if only else []
    code, peak, wall, _, err = run_measured(
        [conform, "run", "--test-config", path, *selection, "--report-json", report])
    return code, peak, wall, err, report


def records_observed(report_path):
    report = harness.load_json(report_path)
    total = 0
    for scenario in report.get("scenarios", []):
        for run in scenario.get("runs", []):
            total += run.get("records", 0)
    return total


def bound(records):
    return FIXED + PER_RECORD * records


def line(what, code, peak, wall, records):
    print(f"{what}: exit {code}, {records} records observed, peak RSS {peak / 2**20:.1f} MiB "
          f"(bound {bound(records) / 2**20:.1f} MiB), {wall:.2f} s wall")


def expect_within(what, code, codes, peak, records, err):
    if code not in codes:
        sys.exit(f"FAIL {what}: exit {code}, expected {codes}\n{err.decode(errors='replace')[-2000:]}")
    if peak > bound(records):
        sys.exit(f"FAIL {what}: peak RSS {peak} B above the bound {bound(records)} B "
                 f"(64 MiB + 16 B x {records} records)")


def expect_flat(what, peak):
    if peak > VALIDATE_FLAT:
        sys.exit(f"FAIL {what}: peak RSS {peak / 2**20:.1f} MiB above validate's flat bound "
                 f"({VALIDATE_FLAT / 2**20:.0f} MiB whatever the records)")


def case_validate(conform, connector, folder, records):
    transcript = transcript_of_read(connector, folder, records)
    code, peak, wall, err, _ = validate(conform, folder, transcript)
    line("validate", code, peak, wall, records)
    expect_within("validate", code, (0,), peak, records, err)
    expect_flat("validate", peak)


def case_repeated_keys(conform, connector, folder, records):
    transcript = transcript_of_read(connector, folder, records)
    repeated = os.path.join(folder, "repeated.jsonl")
    key = re.compile(rb'"data":\{"id":(\d+)')
    copies = 0
    with open(transcript, "rb") as source, open(repeated, "wb") as out:
        for number, text in enumerate(source):
            if b'"stream":"events"' in text:  # incremental: one key, other content, is no finding
                text = key.sub(lambda m: b'"data":{"id":%d' % (int(m.group(1)) % 1000), text,
                               count=1)
            out.write(text)
            if number % 10 == 0 and b'"type":"RECORD"' in text:
                out.write(text)
                copies += 1
    os.remove(transcript)
    code, peak, wall, err, report = validate(conform, folder, repeated)
    line("validate, keys repeated", code, peak, wall, records + copies)
    expect_within("repeated-keys", code, (0,), peak, records + copies, err)
    expect_flat("repeated-keys", peak)
    checks = [check for scenario in harness.load_json(report)["scenarios"]
              for check in scenario["checks"] if check["id"] == "read.no_duplicates"]
    if [check["occurrences"] for check in checks] != [copies]:
        sys.exit(f"FAIL repeated-keys: read.no_duplicates found {checks}, expected {copies} "
                 "duplicates")


def case_run(conform, connector, folder, records):
    code, peak, wall, err, report = conform_run(conform, connector, folder, records)
    observed = records_observed(report) if os.path.exists(report) else 0
    line("run read-twice resume", code, peak, wall, observed)
    if observed < 3 * records:
        sys.exit(f"FAIL run: only {observed} records observed, expected at least {3 * records}")
    expect_within("run", code, (0,), peak, observed, err)


def case_run_all(conform, connector, folder, records):
    code, peak, wall, err, report = conform_run(conform, connector, folder, records, only=())
    observed = records_observed(report) if os.path.exists(report) else 0
    line("run (every scenario)", code, peak, wall, observed)
    expect_within("run-all", code, (0,), peak, observed, err)


def case_state_per_record(conform, connector, folder, records):
    code, peak, wall, err, report = conform_run(conform, connector, folder, records,
                                                only=("resume",), checkpoint_every=1)
    observed = records_observed(report) if os.path.exists(report) else 0
    line("run resume, a STATE per record", code, peak, wall, observed)
    expect_within("state-per-record", code, (0,), peak, observed, err)


def case_states(conform, connector, folder, records):
    transcript = os.path.join(folder, "states.jsonl")
    filler = "x" * (1024 * 1024)
    with open(transcript, "w") as out:
        for i in range(1000):
            out.write('{"type":"STATE","state":{"type":"STREAM","stream":{"stream_descriptor":'
                      '{"name":"events"},"stream_state":{"updated_at":"2024-01-01T00:00:00Z",'
                      f'"pad":"{i}{filler}"}}}}}}}}\n')
    code, peak, wall, err, _ = validate(conform, folder, transcript)
    line("1,000 STATEs of 1 MiB", code, peak, wall, 0)
    expect_within("states", code, (0, 1), peak, 0, err)


def case_types(conform, connector, folder, records):
    transcript = os.path.join(folder, "types.jsonl")
    with open(transcript, "w") as out:
        for i in range(1_000_000):
            out.write('{"type":"UNKNOWN_TYPE_%07d_%s"}\n' % (i, "y" * 200))
    code, peak, wall, err, report = validate(conform, folder, transcript)
    line("1,000,000 distinct unknown types", code, peak, wall, 0)
    expect_within("types", code, (0, 1), peak, 0, err)
    with open(report) as file:
        text = file.read()
    if "other" not in text:
        sys.exit("FAIL types: the report does not say that types beyond the cap were counted as other")


def case_type_names(conform, connector, folder, records):
    transcript = os.path.join(folder, "type-names.jsonl")
    name = "N" * (1024 * 1024)
    with open(transcript, "w") as out:
        for i in range(1000):
            out.write('{"type":"%07d%s"}\n' % (i, name))
    code, peak, wall, err, _ = validate(conform, folder, transcript)
    line("1,000 distinct unknown types with 1 MiB names", code, peak, wall, 0)
    expect_within("type-names", code, (0, 1), peak, 0, err)


def case_traces(conform, connector, folder, records):
    transcript = os.path.join(folder, "traces.jsonl")
    filler = "t" * (15 * 1024 * 1024)
    with open(transcript, "w") as out:
        for i in range(50):
            out.write('{"type":"TRACE","trace":{"type":"ERROR","emitted_at":1,"error":'
                      '{"message":"%d %s"}}}\n' % (i, filler))
    code, peak, wall, err, _ = validate(conform, folder, transcript)
    line("50 TRACEs of 15 MiB", code, peak, wall, 0)
    expect_within("traces", code, (0, 1), peak, 0, err)


def case_deep_spec(conform, connector, folder, records):
    hostile = os.path.join(HERE, "connector.py")
    test_config = {"connector": {"command": [sys.executable, hostile]},
                   "config": write(folder, "config.json", {"api_key": "k3y-abcdef-123456"}),
                   "grace_seconds": 1, "timeouts": {"spec": 600}}
    path = write(folder, "conform.json", test_config)
    report = os.path.join(folder, "run-report.json")
    depth = records
    env = dict(os.environ, HOSTILE_MODE="deep_spec", HOSTILE_DEPTH=str(depth))
    code, peak, wall, _, err = run_measured(
        [conform, "run", "--test-config", path, "--only", "spec", "--report-json", report],
        env=env)
    line(f"SPEC nested {depth:,} levels", code, peak, wall, 0)
    expect_within("deep-spec", code, (0, 1), peak, 0, err)


def case_state_spill(conform, connector, folder, records):
    transcript = os.path.join(folder, "state-spill.jsonl")
    large = "L" * (1024 * 1024)
    with open(transcript, "w") as out:
        out.write('{"type":"STATE","state":{"type":"STREAM","stream":{"stream_descriptor":'
                  '{"name":"users"},"stream_state":{"pad":"%s"}}}}\n' % large)
        for i in range(1000):
            out.write('{"type":"STATE","state":{"type":"STREAM","stream":{"stream_descriptor":'
                      '{"name":"events"},"stream_state":{"seq":%d}}}}\n' % i)
    size = os.path.getsize(transcript)
    code, peak, wall, err, _ = validate(conform, folder, transcript)
    written = WRITTEN["bytes"]
    line("a 1 MiB STATE, then 1,000 small ones", code, peak, wall, 0)
    print(f"  {size / 2**20:.1f} MiB of input; conform wrote {written / 2**20:.1f} MiB")
    expect_within("state-spill", code, (0, 1), peak, 0, err)
    if written > 64 * 2**20:
        sys.exit(f"FAIL state-spill: conform wrote {written} B for {size} B of STATEs")


def case_measure(conform, connector, folder, records):
    transcript = transcript_of_read(connector, folder, records)
    code, peak, wall, _, _ = validate(conform, folder, transcript)
    line("validate", code, peak, wall, records)
    os.remove(transcript)
    code, peak, wall, _, report = conform_run(conform, connector, folder, records)
    line("run read-twice resume", code, peak, wall, records_observed(report))


def main():
    conform, connector, case = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), sys.argv[3]
    default = {"state-per-record": 200_000, "deep-spec": 1_350_000}.get(case, 1_000_000)
    records = int(sys.argv[4]) if len(sys.argv) > 4 else default
    with harness.temporary_folder("memory") as folder:
        globals()["case_" + case.replace("-", "_")](conform, connector, folder, records)
    print("PASS")


if __name__ == "__main__":
    main()
