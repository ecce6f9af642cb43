#!/usr/bin/env python3
"""One hostile-input case against the built conform (docs/hostile-input.md).

usage: hostile_case.py CONFORM CASE

Each case runs conform against tests/hostile/connector.py in a misbehaving mode and asserts the
exit code, the JSON report, and that no process carrying this run's marker is left behind (found
by the HOSTILE_MARKER value in /proc/*/environ, not by name). Nothing here waits on a clock:
conform's own timeouts end the hanging cases, and the subprocess timeout is only a safety net.
"""
import json
import os
import signal
import subprocess
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import harness  # noqa: E402  (tests/e2e/harness.py)

CONNECTOR = os.path.join(HERE, "connector.py")
conform = os.path.abspath(sys.argv[1])
case = sys.argv[2]
marker = uuid.uuid4().hex
problems = []
# Peak memory means nothing under ASan (shadow memory, quarantine): the plain build bounds it.
MEMORY_BOUNDS = os.environ.get("CONFORM_SANITIZED") != "1"


def processes_with_marker():
    return harness.processes_with_env("HOSTILE_MARKER", marker)


def kill_leftovers(pids):
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


write = harness.write_file


def conform_run(folder, modes, *args, config=None, timeouts=None, extra_env=None):
    config_path = write(folder, "config.json", config or {"api_key": "k3y-abcdef-123456"})
    test_config = {
        "connector": {"command": [sys.executable, CONNECTOR]},
        "config": config_path,
        "invalid_config": write(folder, "invalid.json", {"api_key": "bad-invalid-key-778899"}),
        "grace_seconds": 1,
        "timeouts": timeouts or {"spec": 60, "check": 60, "discover": 60, "read": 60},
    }
    test_config_path = write(folder, "conform.json", test_config)
    report = os.path.join(folder, "report.json")
    env = dict(os.environ, HOSTILE_MODE=",".join(modes), HOSTILE_MARKER=marker,
               **(extra_env or {}))
    command = [conform, "run", "--test-config", test_config_path, "--report-json", report, *args]
    completed = harness.run(command, env=env)
    return completed, harness.load_json_if_present(report)


check_statuses = harness.statuses


def expect(condition, message):
    if not condition:
        problems.append(message)


def expect_exit(completed, codes):
    expect(completed.returncode in codes,
           f"exit {completed.returncode}, expected one of {codes}\n"
           f"stdout: {completed.stdout[-3000:]}\nstderr: {completed.stderr[-3000:]}")


def examples_of(report, check_id):
    """The examples ({"line":…, "message":…}) of check `check_id` in every scenario."""
    return [example for scenario_report in (report or {}).get("scenarios", [])
            for check in scenario_report.get("checks", []) if check["id"] == check_id
            for example in check.get("examples", [])]


def first_example(report, check_id):
    return next(iter(examples_of(report, check_id)), {})


def expect_too_deep(report, line=None):
    """io.messages_valid failed (on `line`, when given), naming the nesting limit."""
    statuses = check_statuses(report)
    expect(statuses.get("io.messages_valid") == {"failed"},
           f"io.messages_valid: {statuses.get('io.messages_valid')}")
    example = first_example(report, "io.messages_valid")
    expect("nested more than 10000 levels deep" in example.get("message", ""),
           f"io.messages_valid's example: {example}")
    if line is not None:
        expect(example.get("line") == line,
               f"io.messages_valid's example names line {line}: {example}")


def case_deep_spec(folder):
    # A SPEC nested 2,000 oneOf levels deep (4,000 levels of JSON) is parsed, and the schema
    # compiler refuses it; one nested 500,000 levels is not parsed at all: io.messages_valid names
    # its line and the limit. Either way a verdict, never a crash.
    completed, report = conform_run(folder, ["deep_spec"], "--only", "spec",
                                    extra_env={"HOSTILE_DEPTH": "2000"})
    expect_exit(completed, (1,))
    statuses = check_statuses(report)
    expect(statuses.get("spec.schema_valid") == {"failed"},
           f"spec.schema_valid at 2,000 levels: {statuses.get('spec.schema_valid')}")
    messages = [example["message"] for example in examples_of(report, "spec.schema_valid")]
    expect(any("connectionSpecification cannot be used" in message for message in messages),
           f"spec.schema_valid's examples: {messages}")
    completed, report = conform_run(folder, ["deep_spec"], "--only", "spec")
    expect_exit(completed, (1,))
    expect_too_deep(report, 1)


def case_deep_record(folder):
    # A valid record nested 3,000 levels deep passes every MUST check of the read; one nested
    # 20,000 levels is refused at parse, never silently dropped.
    completed, report = conform_run(folder, ["deep_record"], "--only", "read")
    expect_exit(completed, (0,))
    statuses = check_statuses(report)
    expect(statuses.get("read.records_match_schema") == {"passed"},
           f"read.records_match_schema: {statuses.get('read.records_match_schema')}")
    completed, report = conform_run(folder, ["deep_record"], "--only", "read",
                                    extra_env={"HOSTILE_DEPTH": "20000"})
    expect_exit(completed, (1,))
    expect_too_deep(report)


def wait_for(predicate, what, limit=120):
    """Waits for an event that conform or the connector causes; the limit is a safety net."""
    if harness.wait_for(predicate, limit):
        return True
    problems.append(f"gave up waiting for {what}")
    return False


def case_timeout_escaped(folder):
    # check hangs in a child that left the group with setsid and ignores SIGTERM; its parent
    # ignores SIGTERM too. The check timeout must still end both, and nothing may be left.
    completed, report = conform_run(folder, ["setsid", "ignore_sigterm", "hang_check"],
                                    "--only", "check-valid",
                                    timeouts={"spec": 60, "check": 2, "discover": 60, "read": 60})
    expect_exit(completed, (1,))
    statuses = check_statuses(report)
    expect(statuses.get("cli.check") == {"failed"}, f"cli.check: {statuses.get('cli.check')}")


def case_double_fork(folder):
    # spec succeeds, but leaves a daemon (new session, no pipes, ignores SIGTERM) behind.
    completed, report = conform_run(folder, ["double_fork"], "--only", "spec")
    expect_exit(completed, (0,))
    expect(report is not None, "no JSON report written")


def broken_runtime_run(folder, extra_env=None):
    """conform run --only spec of an image under tests/hostile/broken_runtime.py, whose `kill`
    and `rm` fail; the spec timeout ends it. Returns (completed, the runs' cleanup problems)."""
    config_path = write(folder, "config.json", {"api_key": "k3y-abcdef-123456"})
    test_config = {
        "connector": {"image": "conform-hostile/never-removed:1",
                      "runtime": os.path.join(HERE, "broken_runtime.py"), "pull": "never"},
        "config": config_path,
        "catalog": write(folder, "catalog.json", CATALOG),
        "grace_seconds": 1,
        "timeouts": {"spec": 2},
    }
    test_config_path = write(folder, "conform.json", test_config)
    report_path = os.path.join(folder, "report.json")
    env = dict(os.environ, HOSTILE_MARKER=marker, **(extra_env or {}))
    completed = harness.run([conform, "run", "--test-config", test_config_path,
                             "--only", "spec", "--report-json", report_path], env=env)
    problems_seen = []
    for scenario in (harness.load_json_if_present(report_path) or {}).get("scenarios", []):
        problems_seen += [run.get("cleanup_problem", "") for run in scenario["runs"]]
    return completed, problems_seen


def case_container_cleanup_fails(folder):
    # A runtime whose `kill` and `rm` fail, with a client that ignores SIGTERM in a session of its
    # own: the spec timeout ends the run, the failed cleanup is reported, and the client (found by
    # the container's name on its command line) does not outlive conform.
    completed, problems_seen = broken_runtime_run(folder)
    expect_exit(completed, (1,))
    expect(any("rm -f conform-" in problem and "failed: exit code 1" in problem and
               "conform killed 1 process(es)" in problem for problem in problems_seen),
           f"the report does not say that the cleanup failed and what was killed: {problems_seen}")
    expect("warning: after run" in completed.stdout and "cleanup" in completed.stdout,
           f"the console does not warn about the cleanup:\n{completed.stdout[-2000:]}")


def start_conform(folder, modes, *args, extra_env=None):
    config_path = write(folder, "config.json", {"api_key": "k3y-abcdef-123456"})
    test_config = {"connector": {"command": [sys.executable, CONNECTOR]}, "config": config_path,
                   "grace_seconds": 1,
                   "timeouts": {"spec": 600, "check": 600, "discover": 600, "read": 600}}
    test_config_path = write(folder, "conform.json", test_config)
    report = os.path.join(folder, "report.json")
    env = dict(os.environ, HOSTILE_MODE=",".join(modes), HOSTILE_MARKER=marker,
               **(extra_env or {}))
    return subprocess.Popen([conform, "run", "--test-config", test_config_path, "--report-json",
                             report, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def connector_running(conform_pid):
    return any(pid != conform_pid for pid in processes_with_marker())


def case_conform_killed(folder):
    # conform dies by SIGKILL while the connector hangs: the connector dies with it
    # (PR_SET_PDEATHSIG), instead of running on under init. Nothing removes conform's temporary
    # folders then: they go to this case's folder, and what is left is private to its user.
    temporary = os.path.join(folder, "tmp")
    os.mkdir(temporary)
    process = start_conform(folder, ["hang_check"], "--only", "check-valid",
                            extra_env={"TMPDIR": temporary})
    if wait_for(lambda: connector_running(process.pid), "the connector to start"):
        process.kill()
    process.communicate(timeout=600)
    wait_for(lambda: not processes_with_marker(), "the connector to die with conform")
    for parent, folders, files in os.walk(temporary):
        for name in folders + files:
            mode = os.stat(os.path.join(parent, name)).st_mode & 0o777
            expect(mode & 0o077 == 0, f"{os.path.join(parent, name)} is left with mode {mode:o}")
    print(f"left after SIGKILL: {sorted(os.listdir(temporary))}")


def case_interrupt_escaped(folder):
    # Ctrl-C while check hangs in a child that left the group and ignores SIGTERM: conform
    # exits 130, stops everything, and blames nobody.
    process = start_conform(folder, ["setsid", "ignore_sigterm", "hang_check"],
                            "--only", "check-valid")
    if wait_for(lambda: connector_running(process.pid), "the connector to start"):
        process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=600)
    expect(process.returncode == 130,
           f"exit {process.returncode}, expected 130\nstdout: {stdout[-2000:]}\n"
           f"stderr: {stderr[-2000:]}")


def expect_leak_found(folder, modes, config, secret_spellings):
    completed, report = conform_run(folder, modes, "--only", "check-valid", config=config)
    expect_exit(completed, (1,))
    statuses = check_statuses(report)
    expect(statuses.get("secrets.not_leaked") == {"failed"},
           f"secrets.not_leaked: {statuses.get('secrets.not_leaked')}")
    with open(os.path.join(folder, "report.json")) as file:
        report_text = file.read()
    for spelling in secret_spellings:
        expect(spelling not in completed.stdout, f"console shows the secret as {spelling!r}")
        expect(spelling not in report_text, f"the JSON report shows the secret as {spelling!r}")


def case_leak_u_escaped(folder):
    # The secret written with every character as a \u escape.
    key = "k3y-abcdef-123456"
    expect_leak_found(folder, ["leak_u_escaped"], {"api_key": key},
                      [key, "".join("\\u%04x" % ord(c) for c in key)])


def case_leak_ensure_ascii(folder):
    # A non-ASCII secret written by Python's json.dumps default (ensure_ascii).
    key = "cl\u00e9-s\u00e9cr\u00e8te-42"
    expect_leak_found(folder, ["leak_ascii_escaped"], {"api_key": key},
                      [key, json.dumps(key)[1:-1]])


def case_leak_integer(folder):
    # An airbyte_secret integer config value.
    expect_leak_found(folder, ["leak_pin"], {"api_key": "k3y-abcdef-123456", "pin": 48213579},
                      ["48213579"])


def case_leak_stderr_early(folder):
    # The secret on stderr, followed by 200 KB more: far before the 64 KiB tail conform keeps.
    key = "k3y-abcdef-123456"
    expect_leak_found(folder, ["leak_stderr_early"], {"api_key": key}, [key])


def case_leak_invalid_config(folder):
    # check-invalid logs the invalid config's secret: it is a secret too.
    completed, report = conform_run(folder, ["leak_raw"], "--only", "check-invalid")
    expect_exit(completed, (1,))
    statuses = check_statuses(report)
    expect(statuses.get("secrets.not_leaked") == {"failed"},
           f"secrets.not_leaked: {statuses.get('secrets.not_leaked')}")
    expect("bad-invalid-key-778899" not in completed.stdout, "console shows the invalid key")


CATALOG = {"streams": [{"stream": {"name": "items", "json_schema": {
    "type": "object", "properties": {"id": {"type": "integer"}, "data": {}}},
    "supported_sync_modes": ["full_refresh"]}, "sync_mode": "full_refresh",
    "destination_sync_mode": "overwrite"}]}


def conform_validate(folder, transcript, *args):
    catalog = write(folder, "catalog.json", CATALOG)
    report = os.path.join(folder, "validate-report.json")
    if os.path.exists(report):
        os.remove(report)
    completed = harness.run([conform, "validate", "--catalog", catalog, transcript,
                             "--report-json", report, *args])
    return completed, harness.load_json_if_present(report)


def case_validate_folder(folder):
    completed, _ = conform_validate(folder, folder)
    expect_exit(completed, (3,))
    expect("is a folder" in completed.stderr, f"message: {completed.stderr!r}")


def case_validate_empty(folder):
    completed, _ = conform_validate(folder, write(folder, "empty.jsonl", ""))
    expect_exit(completed, (3,))
    expect("is empty" in completed.stderr, f"message: {completed.stderr!r}")


def case_validate_dev_zero(folder):
    # An endless stream without a newline: memory stays bounded (checked after conform has
    # read 100 MiB of it), then the test stops conform.
    catalog = write(folder, "catalog.json", CATALOG)
    process = subprocess.Popen([conform, "validate", "--catalog", catalog, "/dev/zero"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def read_bytes():
        try:
            with open(f"/proc/{process.pid}/io") as file:
                for line in file:
                    if line.startswith("rchar:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    if wait_for(lambda: read_bytes() > 100 * 1024 * 1024 or process.poll() is not None,
                "conform to read 100 MiB of /dev/zero", limit=300):
        with open(f"/proc/{process.pid}/status") as file:
            rss_kb = next(int(line.split()[1]) for line in file if line.startswith("VmHWM:"))
        expect(rss_kb < 100 * 1024 or not MEMORY_BOUNDS,
               f"peak memory {rss_kb} kB after reading 100 MiB")
    process.kill()
    process.wait()


def case_huge_line_live_vs_validate(folder):
    # A 20 MB line gets the same verdicts live and in `conform validate` of the same stdout.
    catalog = write(folder, "catalog.json", CATALOG)
    test_config = {"connector": {"command": [sys.executable, CONNECTOR]},
                   "config": write(folder, "config.json", {"api_key": "k3y-abcdef-123456"}),
                   "catalog": catalog, "grace_seconds": 1}
    report_path = os.path.join(folder, "live-report.json")
    env = dict(os.environ, HOSTILE_MODE="huge_line", HOSTILE_MARKER=marker)
    live = harness.run([conform, "run", "--test-config", write(folder, "conform.json",
                                                               test_config),
                        "--only", "read", "--report-json", report_path], env=env)
    transcript = os.path.join(folder, "read.jsonl")
    with open(transcript, "w") as out:
        subprocess.run([sys.executable, CONNECTOR, "read"], stdout=out, env=env, check=True,
                       timeout=600)
    offline, offline_report = conform_validate(folder, transcript)
    live_statuses = check_statuses(harness.load_json(report_path))
    offline_statuses = check_statuses(offline_report)
    shared = sorted(set(live_statuses) & set(offline_statuses))
    expect(len(shared) >= 5, f"too few shared checks: {shared}")
    for check in shared:
        expect(live_statuses[check] == offline_statuses[check],
               f"{check}: live {live_statuses[check]}, validate {offline_statuses[check]}")
    expect(live.returncode == offline.returncode,
           f"exit codes differ: live {live.returncode}, validate {offline.returncode}")
    expect(any("failed" in statuses for statuses in live_statuses.values()),
           f"no check failed on a 20 MB line: {live_statuses}")


def interrupt_with(folder, signal_number):
    # spec finishes, then check-valid hangs in an escaped child; the signal comes while it hangs.
    # conform exits 130 and writes a report marked interrupted that lists spec only.
    hang_file = os.path.join(folder, "hanging")
    process = start_conform(folder, ["setsid", "ignore_sigterm", "hang_check"],
                            "--only", "spec,check-valid", "--junit",
                            os.path.join(folder, "junit.xml"),
                            extra_env={"HOSTILE_HANG_FILE": hang_file})
    if wait_for(lambda: os.path.exists(hang_file) or process.poll() is not None,
                "check to hang"):
        process.send_signal(signal_number)
    stdout, stderr = process.communicate(timeout=600)
    expect(process.returncode == 130,
           f"exit {process.returncode}, expected 130\nstdout: {stdout[-2000:]}\n"
           f"stderr: {stderr[-2000:]}")
    report_path = os.path.join(folder, "report.json")
    expect(os.path.exists(report_path), "no JSON report written")
    if os.path.exists(report_path):
        report = harness.load_json(report_path)
        expect(report["metadata"].get("interrupted") is True, "report not marked interrupted")
        ids = [scenario["id"] for scenario in report["scenarios"]]
        expect(ids == ["spec"], f"scenarios in the report: {ids}")
    junit_path = os.path.join(folder, "junit.xml")
    expect(os.path.exists(junit_path) and "interrupted" in open(junit_path).read(),
           "JUnit report missing or not marked interrupted")
    expect("FAIL check-valid" not in stdout, "the interrupted scenario is blamed on the connector")


def case_interrupt_sigint(folder):
    interrupt_with(folder, signal.SIGINT)


def case_interrupt_sigterm(folder):
    interrupt_with(folder, signal.SIGTERM)


def case_interrupt_sighup(folder):
    interrupt_with(folder, signal.SIGHUP)


# --- files conform keeps (docs/hostile-input.md, "Files conform writes and reads back") -------

VICTIM_TEXT = "HOST-ONLY-LINE: a file of the host the connector wants in the report\n" * 5


def victim_file(folder):
    return write(folder, "victim.txt", VICTIM_TEXT)


def scratch_run(folder, modes, *args, extra_env=None, check_timeout=60):
    """conform run of the hostile connector with its scratch folder in the connector config."""
    config = {"api_key": "k3y-abcdef-123456", "scratch": "${CONFORM_SCRATCH}"}
    test_config = {
        "connector": {"command": [sys.executable, CONNECTOR]},
        "config": write(folder, "config.json", config),
        "catalog": write(folder, "catalog.json", CATALOG),
        "grace_seconds": 1,
        "timeouts": {"spec": 60, "check": check_timeout, "discover": 60, "read": 60},
    }
    report = os.path.join(folder, "report.json")
    env = dict(os.environ, HOSTILE_MODE=",".join(modes), HOSTILE_MARKER=marker,
               **(extra_env or {}))
    completed = measured_run([conform, "run", "--test-config",
                              write(folder, "conform.json", test_config), "--report-json", report,
                              *args], env=env)
    return completed, harness.load_json_if_present(report)


def measured_run(command, timeout=300, **options):
    """Runs command like harness.run, and also returns the peak RSS and CPU time of the process
    (wait4's rusage, as `usage`). `hung` says that the safety-net timeout killed it."""
    import tempfile
    import threading
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, **options)
        hung = threading.Event()

        def kill():
            hung.set()
            process.kill()

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(process.pid, 0)
        timer.cancel()
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        completed = subprocess.CompletedProcess(command, process.returncode,
                                                out.read().decode(errors="replace"),
                                                err.read().decode(errors="replace"))
        completed.hung = hung.is_set()
        completed.usage = usage
        return completed


def case_transcript_symlink_planted(folder):
    # The first read plants symlinks at every name conform's transcripts could take in its
    # scratch folder; conform must not write through them.
    victim = victim_file(folder)
    completed, report = scratch_run(folder, ["plant_symlinks"], "--only", "read-twice",
                                    extra_env={"HOSTILE_VICTIM": victim})
    expect_exit(completed, (0, 1))
    with open(victim) as file:
        expect(file.read() == VICTIM_TEXT, "conform wrote its transcript through a planted symlink")


def case_transcript_swapped(folder):
    # The read replaces its transcript by a symlink to a host file: the report's lines around
    # the example must be the connector's own, not the host file's.
    victim = victim_file(folder)
    completed, report = scratch_run(folder, ["swap_transcript"], "--only", "read",
                                    extra_env={"HOSTILE_VICTIM": victim})
    expect_exit(completed, (0, 1))
    text = json.dumps(report)
    expect("HOST-ONLY-LINE" not in text and "HOST-ONLY-LINE" not in completed.stdout,
           "a host file's lines appear in the report")
    expect("this line is not JSON" in text, "the report does not show the line around the example")


def case_transcript_fifo(folder):
    # The read replaces its transcript by a FIFO: conform must not wait on it.
    completed, _ = scratch_run(folder, ["fifo_transcript"], "--only", "read")
    expect(not completed.hung, "conform hung reading a FIFO planted as its transcript")
    expect_exit(completed, (0, 1))


def case_transcript_dev_zero(folder):
    # The read replaces its transcript by a symlink to /dev/zero: memory must stay bounded.
    completed, _ = scratch_run(folder, ["zero_transcript"], "--only", "read")
    expect(not completed.hung, "conform did not finish reading /dev/zero as its transcript")
    expect_exit(completed, (0, 1))
    if completed.usage is not None and MEMORY_BOUNDS:
        print(f"peak RSS {completed.usage.ru_maxrss / 1024:.1f} MiB")
        expect(completed.usage.ru_maxrss < 100 * 1024,
               f"peak RSS {completed.usage.ru_maxrss} kB reading /dev/zero as its transcript")


# --- secrets -------------------------------------------------------------------------------------

def expect_secret_hidden(completed, report_path, secret, spellings=()):
    text = open(report_path).read() if os.path.exists(report_path) else ""
    for spelling in (secret, *spellings):
        expect(spelling not in completed.stdout and spelling not in completed.stderr,
               f"console shows the secret as {spelling!r}")
        expect(spelling not in text, f"the JSON report shows the secret as {spelling!r}")


def case_config_syntax_error(folder):
    # A connector config with a JSON syntax error next to its secret: the error names the config
    # file (not the test config) and does not print the line with the secret.
    secret = "k3y-abcdef-123456"
    config_path = write(folder, "config.json", '{"api_key": "%s" "note": 1}' % secret)
    test_config = {"connector": {"command": [sys.executable, CONNECTOR]}, "config": config_path}
    completed = harness.run([conform, "run", "--test-config",
                             write(folder, "conform.json", test_config), "--only", "spec"],
                            env=dict(os.environ, HOSTILE_MARKER=marker))
    expect_exit(completed, (3,))
    expect(secret not in completed.stderr and secret not in completed.stdout,
           f"the error shows the secret:\n{completed.stderr}")
    expect("config.json:1:" in completed.stderr,
           f"the error does not name the config file and line:\n{completed.stderr}")


def case_flags_syntax_error(folder):
    # The same with --connector and --config flags: the error names the config file, not
    # "<command line>", and does not show the line; a catalog's error names the catalog.
    secret = "k3y-abcdef-123456"
    bad_config = write(folder, "config.json", '{"api_key": "%s" "note": 1}' % secret)
    completed = flags_run(folder, "--config", bad_config, "--only", "spec")
    expect_exit(completed, (3,))
    expect(secret not in completed.stderr and secret not in completed.stdout,
           f"the error shows the secret:\n{completed.stderr}")
    expect("config.json:1:" in completed.stderr and "<command line>" not in completed.stderr,
           f"the error does not name the config file and line:\n{completed.stderr}")
    good_config = write(folder, "good.json", {"api_key": secret})
    bad_catalog = write(folder, "catalog.json", '{"streams": [}')
    completed = flags_run(folder, "--config", good_config, "--catalog", bad_catalog,
                          "--only", "spec")
    expect_exit(completed, (3,))
    expect("catalog.json" in completed.stderr and "<command line>" not in completed.stderr,
           f"the error does not name the catalog file:\n{completed.stderr}")


def case_secret_no_spec(folder):
    # spec yields no SPEC: no value is known to be secret, so every config string is masked in
    # reports (it was shown raw) and secrets.not_leaked says why it looks for nothing (it said
    # that the spec marks no secret).
    secret = "k3y-abcdef-123456"
    completed, report = conform_run(folder, ["no_spec", "leak_config_plain"], "--only",
                                    "check-valid")
    expect(report is not None, f"no JSON report written:\n{completed.stderr[-2000:]}")
    expect_secret_hidden(completed, os.path.join(folder, "report.json"), secret)
    expect("**********" in open(os.path.join(folder, "report.json")).read(),
           "the report shows no masked config line")
    notes = [check["note"] for scenario in report["scenarios"] for check in scenario["checks"]
             if check["id"] == "secrets.not_leaked"]
    expect(notes and all("no spec" in note and "masks every config string" in note
                         for note in notes),
           f"secrets.not_leaked does not say that there was no spec: {notes}")


def leaked_config_case(folder, mode, config, secret):
    completed, report = conform_run(folder, [mode, "leak_all_config"], "--only", "check-valid",
                                    config=config)
    expect_exit(completed, (1,))
    statuses = check_statuses(report)
    expect(statuses.get("secrets.not_leaked") == {"failed"},
           f"secrets.not_leaked: {statuses.get('secrets.not_leaked')}")
    expect_secret_hidden(completed, os.path.join(folder, "report.json"), secret)


def case_secret_ref(folder):
    # The secret is marked in a definition the spec reaches through "$ref".
    secret = "ref-token-998877"
    leaked_config_case(folder, "spec_ref", {"api_key": "x", "auth": {"token": secret}}, secret)


def case_secret_additional_properties(folder):
    # Every value of an object is secret through "additionalProperties".
    secret = "header-value-665544"
    leaked_config_case(folder, "spec_additional",
                       {"api_key": "x", "headers": {"X-Api-Key": secret}}, secret)


def case_secret_pointer_spelling(folder):
    # A record uses the secret as a property name the stream's schema does not allow: the
    # violation's location spells it as a JSON pointer token (~1 for "/", ~0 for "~").
    secret = "k3y/abc~def-123456"
    catalog = json.loads(json.dumps(CATALOG))
    catalog["streams"][0]["stream"]["json_schema"]["additionalProperties"] = False
    config_path = write(folder, "config.json", {"api_key": secret})
    test_config = {"connector": {"command": [sys.executable, CONNECTOR]}, "config": config_path,
                   "catalog": write(folder, "catalog.json", catalog), "grace_seconds": 1}
    report_path = os.path.join(folder, "report.json")
    completed = harness.run([conform, "run", "--test-config",
                             write(folder, "conform.json", test_config), "--only", "read",
                             "--report-json", report_path],
                            env=dict(os.environ, HOSTILE_MODE="secret_property",
                                     HOSTILE_MARKER=marker))
    expect_exit(completed, (1,))
    statuses = check_statuses(harness.load_json_if_present(report_path))
    expect("failed" in statuses.get("read.records_match_schema", set()),
           f"read.records_match_schema: {statuses.get('read.records_match_schema')}")
    expect_secret_hidden(completed, report_path, secret, ["k3y~1abc~0def-123456"])


def case_secret_double_encoded(folder):
    # The secret inside JSON inside a JSON string, as a connector that logs a serialized request
    # body writes it: non-ASCII escaped twice (\\u00e9).
    secret = "cl\u00e9-s\u00e9cr\u00e8te-42"
    completed, report = conform_run(folder, ["leak_double_encoded"], "--only", "check-valid",
                                    config={"api_key": secret})
    expect_exit(completed, (1,))
    statuses = check_statuses(report)
    expect(statuses.get("secrets.not_leaked") == {"failed"},
           f"secrets.not_leaked: {statuses.get('secrets.not_leaked')}")


def case_mask_linear(folder):
    # One line of 1 MB holding the secret 10,000 times, each character a \u escape: masking it
    # is linear in the line (it took 114 s before), measured as conform's CPU time.
    config_path = write(folder, "config.json", {"api_key": "k3y-abcdef-123456"})
    test_config = {"connector": {"command": [sys.executable, CONNECTOR]}, "config": config_path,
                   "grace_seconds": 1, "timeouts": {"check": 600}}
    report_path = os.path.join(folder, "report.json")
    completed = measured_run([conform, "run", "--test-config",
                              write(folder, "conform.json", test_config), "--only", "check-valid",
                              "--report-json", report_path], timeout=900,
                             env=dict(os.environ, HOSTILE_MODE="leak_many_escaped",
                                      HOSTILE_MARKER=marker))
    expect_exit(completed, (1,))
    cpu = completed.usage.ru_utime + completed.usage.ru_stime if completed.usage else 0
    print(f"conform CPU time: {cpu:.2f} s")
    expect(cpu < 20, f"conform spent {cpu:.1f} s of CPU on one 1 MB line")
    statuses = check_statuses(harness.load_json_if_present(report_path))
    expect(statuses.get("secrets.not_leaked") == {"failed"},
           f"secrets.not_leaked: {statuses.get('secrets.not_leaked')}")
    expect_secret_hidden(completed, report_path, "k3y-abcdef-123456",
                         ["\\u006b\\u0033\\u0079\\u002d"])


# --- inputs that are not documents ---------------------------------------------------------------

def fifo_fed_by(path, data=None, endless=False):
    """A FIFO at path and a thread that writes data to it, or 'x' without end.

    With data, the thread's open waits for conform to open the FIFO (conform's open of a
    transcript waits for the writer in turn). An endless FIFO is opened for writing before conform
    opens it, with a reader held open that never reads (so that this open does not wait): conform
    opens inputs without waiting for a writer, and must never find this FIFO without its writer.
    """
    import threading
    os.mkfifo(path)
    if endless:
        fifo_fed_by.holders.append(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
        target = os.open(path, os.O_WRONLY)
    else:
        target = path

    def feed():
        try:
            with open(target, "wb") as fifo:
                if endless:
                    while True:
                        fifo.write(b"x" * 65536)
                else:
                    fifo.write(data)
        except (BrokenPipeError, OSError):
            pass

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


fifo_fed_by.holders = []


def case_validate_fifo(folder):
    # validate of a FIFO: the lines around an example cannot be read again; conform must not
    # open the FIFO a second time and wait for a writer that never comes.
    transcript = os.path.join(folder, "read.fifo")
    lines = [{"type": "RECORD", "record": {"stream": "items", "emitted_at": 1700000000000,
                                           "data": {"id": "not an integer"}}},
             {"type": "STATE", "state": {"type": "STREAM", "stream": {
                 "stream_descriptor": {"name": "items"}, "stream_state": {}}}}]
    fifo_fed_by(transcript, "".join(json.dumps(line) + "\n" for line in lines).encode())
    catalog = write(folder, "catalog.json", CATALOG)
    completed = measured_run([conform, "validate", "--catalog", catalog, transcript], timeout=120)
    expect(not completed.hung, "conform validate hung on a FIFO")
    expect_exit(completed, (1,))


def expect_refused(completed, *phrases):
    expect(not completed.hung, "conform did not finish")
    expect_exit(completed, (3,))
    for phrase in phrases:
        expect(phrase in completed.stderr, f"the error does not say {phrase!r}:\n"
                                           f"{completed.stderr[-2000:]}")
    if completed.usage is not None and MEMORY_BOUNDS:
        expect(completed.usage.ru_maxrss < 64 * 1024, f"peak RSS {completed.usage.ru_maxrss} kB")


def case_yaml_input(folder):
    # A YAML alias resolves to the node its anchor names: an alias inside that node loops, and
    # aliases of lists of aliases multiply (9 lines here hold 10^9 values). Both are refused as
    # bad input, at once and in little memory; before, the loop crashed conform (stack overflow)
    # and the 9 lines took all 24 GiB of memory until the OOM killer stopped it.
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]" for i in range(1, 9)]
    bomb = write(folder, "acceptance-test-config.yml", "\n".join(lines) + "\n")
    completed = measured_run([conform, "run", "--acceptance-test-config", bomb], timeout=120)
    expect_refused(completed, "acceptance-test-config.yml:", "its aliases expand the file past")
    loop = write(folder, "known-failures.yml", "failures: &all\n  - *all\n")
    completed = flags_run(folder, "--config", write(folder, "config.json", {}),
                          "--known-failures", loop, "--only", "spec")
    expect_refused(completed, "known-failures.yml:1:11: values nest deeper than 2000 levels")
    # A ',' after a flow mapping: yaml-cpp 0.7 reads document after document at it and its
    # LoadAll keeps them until memory runs out (found by fuzz_loaders, 2026-12-07).
    stray = write(folder, "acceptance-test-config.yml", "{connector_image: x},\n")
    completed = measured_run([conform, "run", "--acceptance-test-config", stray], timeout=120)
    expect_refused(completed, "acceptance-test-config.yml:1:21: not YAML: a character out of place")


def flags_run(folder, *args):
    command = [conform, "run", "--connector", f"{sys.executable} {CONNECTOR}", *args]
    return measured_run(command, timeout=120, env=dict(os.environ, HOSTILE_MARKER=marker))


def case_input_dev_zero(folder):
    # /dev/zero as config, catalog, test config or validate's catalog: refused at once, never
    # read.
    config = write(folder, "config.json", {"api_key": "k3y-abcdef-123456"})
    expect_refused(flags_run(folder, "--config", "/dev/zero"), "'/dev/zero'",
                   "a character device")
    expect_refused(flags_run(folder, "--config", config, "--catalog", "/dev/zero"),
                   "'/dev/zero'", "a character device")
    expect_refused(measured_run([conform, "validate", "--catalog", "/dev/zero",
                                 write(folder, "read.jsonl", "{}\n")], timeout=120),
                   "'/dev/zero'", "a character device")
    # As --test-config (it was read whole to see whether it is a Meltano test config).
    expect_refused(measured_run([conform, "run", "--test-config", "/dev/zero"], timeout=120),
                   "'/dev/zero'", "a character device")


def case_input_fifo_endless(folder):
    # A FIFO that never ends as the connector config: read up to the input limit, then refused.
    fifo = os.path.join(folder, "config.fifo")
    fifo_fed_by(fifo, endless=True)
    expect_refused(flags_run(folder, "--config", fifo), "larger than 16 MiB")
    fifo = os.path.join(folder, "conform.fifo")
    fifo_fed_by(fifo, endless=True)
    expect_refused(measured_run([conform, "run", "--test-config", fifo], timeout=120),
                   "larger than 16 MiB")


def case_catalog_folder(folder):
    # A folder as --catalog is named as one (it was "The document is empty").
    config = write(folder, "config.json", {"api_key": "k3y-abcdef-123456"})
    expect_refused(flags_run(folder, "--config", config, "--catalog", folder), "is a folder")


# --- reports -----------------------------------------------------------------------------------

def started_file(folder):
    return os.path.join(folder, "started")


def report_paths_run(folder, *report_args, test_config_path=None):
    """conform run with these report flags; returns (completed, whether the connector ran)."""
    config_path = os.path.join(folder, "config.json")
    if not os.path.exists(config_path):
        write(folder, "config.json", {"api_key": "k3y-abcdef-123456"})
    if test_config_path is None:
        test_config_path = write(folder, "conform.json", {
            "connector": {"command": [sys.executable, CONNECTOR]}, "config": "config.json",
            "catalog": write(folder, "catalog.json", CATALOG), "grace_seconds": 1})
    if os.path.exists(started_file(folder)):
        os.remove(started_file(folder))
    completed = harness.run([conform, "run", "--test-config", test_config_path, "--only", "spec",
                             *report_args],
                            env=dict(os.environ, HOSTILE_MARKER=marker,
                                     HOSTILE_STARTED_FILE=started_file(folder)))
    return completed, os.path.exists(started_file(folder))


def expect_refused_before_running(completed, started, *phrases):
    expect_exit(completed, (2,))
    expect(not started, "the connector ran although the report paths were refused")
    for phrase in phrases:
        expect(phrase in completed.stderr,
               f"the error does not say {phrase!r}:\n{completed.stderr[-2000:]}")


def case_report_overwrites_input(folder):
    # A report path that is an input, or another report's path: refused before anything runs,
    # naming both, and every file is left as it was.
    test_config = os.path.join(folder, "conform.json")
    config = os.path.join(folder, "config.json")
    report_paths_run(folder)  # writes the files
    before = {path: open(path).read() for path in (test_config, config)}
    completed, started = report_paths_run(folder, "--report-json", test_config)
    expect_refused_before_running(completed, started, "--report-json", "--test-config",
                                  test_config)
    completed, started = report_paths_run(folder, "--junit", config)
    expect_refused_before_running(completed, started, "--junit", config)
    same = os.path.join(folder, "same.out")
    completed, started = report_paths_run(folder, "--report-json", same, "--markdown", same)
    expect_refused_before_running(completed, started, "--report-json", "--markdown",
                                  "name the same file")
    for path, text in before.items():
        expect(open(path).read() == text, f"{path} was overwritten")
    transcript = write(folder, "read.jsonl", '{"type":"LOG","log":{"level":"INFO","message":"m"}}\n')
    catalog = write(folder, "catalog.json", CATALOG)
    completed = harness.run([conform, "validate", "--catalog", catalog, transcript,
                             "--junit", transcript])
    expect_exit(completed, (2,))
    expect(open(transcript).read().startswith('{"type":"LOG"'), "the transcript was overwritten")
    saved = os.path.join(folder, "saved.json")
    report_paths_run(folder, "--report-json", saved)
    saved_text = open(saved).read() if os.path.exists(saved) else ""
    completed = harness.run([conform, "report", saved, "--json", saved])
    expect_exit(completed, (2,))
    expect(os.path.exists(saved) and open(saved).read() == saved_text,
           "conform report overwrote the report it read")


def case_report_folder_missing(folder):
    # A report in a folder that does not exist yet: the folder is made; a folder that cannot be
    # made is a usage error before anything runs (it was exit 4 after the whole run).
    report = os.path.join(folder, "out", "deeper", "report.json")
    completed, started = report_paths_run(folder, "--report-json", report)
    expect_exit(completed, (0, 1))
    expect(os.path.exists(report), "the report was not written in the missing folder")
    blocker = write(folder, "a-file", "not a folder")
    completed, started = report_paths_run(folder, "--junit",
                                          os.path.join(blocker, "junit.xml"))
    expect_refused_before_running(completed, started, "--junit", "cannot create its folder")
    completed, started = report_paths_run(folder, "--markdown", folder)
    expect_refused_before_running(completed, started, "--markdown", "is a folder")


def case_stream_name_huge(folder):
    # A stream named with 1 MiB: every message and report cuts it instead of copying it whole.
    config_path = write(folder, "config.json", {"api_key": "k3y-abcdef-123456"})
    test_config = {"connector": {"command": [sys.executable, CONNECTOR]}, "config": config_path,
                   "grace_seconds": 1}
    paths = {kind: os.path.join(folder, name) for kind, name in
             (("json", "report.json"), ("junit", "junit.xml"), ("markdown", "summary.md"),
              ("html", "report.html"))}
    completed = harness.run([conform, "run", "--test-config",
                             write(folder, "conform.json", test_config), "--only", "read",
                             "--report-json", paths["json"], "--junit", paths["junit"],
                             "--markdown", paths["markdown"], "--html", paths["html"]],
                            env=dict(os.environ, HOSTILE_MODE="huge_stream_name",
                                     HOSTILE_MARKER=marker))
    expect_exit(completed, (1,))
    statuses = check_statuses(harness.load_json_if_present(paths["json"]))
    expect("failed" in statuses.get("read.streams_configured", set()),
           f"read.streams_configured: {statuses.get('read.streams_configured')}")
    expect(len(completed.stdout) < 100_000, f"the console printed {len(completed.stdout)} bytes")
    for kind, path in paths.items():
        size = os.path.getsize(path) if os.path.exists(path) else 0
        expect(0 < size < 200_000, f"the {kind} report has {size} bytes")


def case_markdown_control_bytes(folder):
    # ESC and BEL in a line the connector wrote never reach the Markdown summary raw.
    config_path = write(folder, "config.json", {"api_key": "k3y-abcdef-123456"})
    test_config = {"connector": {"command": [sys.executable, CONNECTOR]}, "config": config_path,
                   "catalog": write(folder, "catalog.json", CATALOG), "grace_seconds": 1}
    summary = os.path.join(folder, "summary.md")
    completed = harness.run([conform, "run", "--test-config",
                             write(folder, "conform.json", test_config), "--only", "read",
                             "--markdown", summary],
                            env=dict(os.environ, HOSTILE_MODE="control_bytes",
                                     HOSTILE_MARKER=marker))
    expect_exit(completed, (0, 1))
    text = open(summary, encoding="utf-8").read() if os.path.exists(summary) else ""
    expect("red" in text and "bell" in text, "the summary does not show the line")
    for byte in ("\x1b", "\x07"):
        expect(byte not in text, f"the Markdown summary holds the raw byte {byte!r}")


# --- processes ---------------------------------------------------------------------------------

def case_signal_from_connector(folder):
    # check sends SIGINT to conform, and a child of it in a session of its own sends SIGTERM:
    # signals from conform's own process tree do not end the run as an interrupt would.
    completed, report = conform_run(folder, ["signal_conform"], "--only", "check-valid")
    expect_exit(completed, (0,))
    expect("ignored signal" in completed.stderr,
           f"conform does not say it ignored the signals:\n{completed.stderr[-2000:]}")
    expect(report is not None and not report["metadata"].get("interrupted"),
           "the run is reported as interrupted")


def case_runtime_exec_connector(folder):
    # The same runtime, but its `run` exec's the connector (no process keeps the container's
    # name), which hangs in a session of its own and ignores SIGTERM. The connector, conform's
    # descendant, is killed, and the cleanup problem says so.
    completed, problems_seen = broken_runtime_run(
        folder, {"HOSTILE_MODE": "hang_spec,ignore_sigterm", "BROKEN_RUNTIME_EXEC": CONNECTOR})
    expect_exit(completed, (1,))
    expect(any("conform killed 1 process(es)" in problem and "connector.py" in problem
               for problem in problems_seen),
           f"the cleanup problem does not name the connector conform killed: {problems_seen}")


def case_daemon_empty_environment(folder):
    # spec leaves a daemon that double-forked into a session of its own and exec'd with an empty
    # environment (no marker), ignoring SIGTERM: it was conform's descendant, so it dies.
    pid_file = os.path.join(folder, "daemon.pid")
    completed, _ = conform_run(folder, ["daemon_without_environment"], "--only", "spec",
                               extra_env={"HOSTILE_DAEMON_PID_FILE": pid_file})
    expect_exit(completed, (0,))
    if not os.path.exists(pid_file):
        problems.append("the daemon never started")
        return
    pid = int(open(pid_file).read())
    alive = "daemon" in harness.command_line(pid)
    if alive:
        kill_leftovers([pid])
    expect(not alive, f"the daemon (pid {pid}) outlived conform")


CASES = {name[len("case_"):]: function for name, function in globals().items()
         if name.startswith("case_")}


def main():
    if case not in CASES:
        print(f"unknown case {case!r}; known: {', '.join(sorted(CASES))}")
        return 2
    with harness.temporary_folder("hostile") as folder:
        try:
            CASES[case](folder)
        finally:
            left = processes_with_marker()
            if left:
                problems.append(f"processes left behind: {left}")
                kill_leftovers(left)
    for problem in problems:
        print("FAIL:", problem)
    if not problems:
        print(f"ok: {case}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
