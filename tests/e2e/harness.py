"""What the e2e and hostile test drivers share (tests/e2e/*.py, tests/hostile/*.py).

- Arguments: `reference_arguments` adds the --conform/--connector/--fixtures options of the drivers
  that run the reference connector; `absolute_arguments` reads positional paths.
- Running: `run` runs a command with a timeout (a safety net: conform's own timeouts end what
  hangs), stdout and stderr captured as text, and keeps the pid (conform names its containers
  after it); `ConformIn` runs conform in one folder and loads the JSON files it writes there.
- Reports: `load_json`, `load_report` (fails, with conform's output, when no report was written),
  `checks_with_status`, `not_passing` (failed or warned), `skipped_pairs`, `statuses`, `scenario`,
  `describe`; the case drivers' command line (`run_command`: `conform run` of a test config with
  --strict and --only) and verdict (`check_set`, `verdict_problems`, `skipped_problems`,
  `fail_with_output`).
- Events and leftovers: `wait_for` (an event, with a safety-net limit), `children_of`,
  `command_line`, `container_names`, `leftover_containers` (containers of one conform process
  that still exist), `processes_with_env` (processes carrying a marker in their environment).
- Folders and test configs: `temporary_folder`, `write_file`, `copy_fixtures`, `connector_config`
  (the fixtures' config with its scratch folder), `write_test_config` (a test config for the bundled
  reference connector, natively or as an image).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

FIXTURE_FILES = ["config.json", "invalid_config.json", "configured_catalog.json",
                 "expected_records.jsonl", "merge_config.json", "legacy_config.json", "spec.json"]
CLAIMS = "tail,range,merge,projections"
SECRET = "ref-secret-value-1234"  # the reference connector's api_key in fixtures/config.json


# --- arguments --------------------------------------------------------------------------------

def reference_arguments(parser=None, connector_required=True):
    """A parser with --conform BIN, --connector BIN and --fixtures DIR."""
    parser = parser or argparse.ArgumentParser()
    parser.add_argument("--conform", required=True)
    parser.add_argument("--connector", required=connector_required)
    parser.add_argument("--fixtures", required=True)
    return parser


def absolute_arguments(count):
    """The first `count` positional arguments as absolute paths."""
    return [os.path.abspath(argument) for argument in sys.argv[1:count + 1]]


# --- running ----------------------------------------------------------------------------------

def run(command, timeout=600, **options):
    """Runs command with stdout and stderr captured as text. The result is a CompletedProcess
    that also holds the pid. When the timeout passes, the process is killed and
    subprocess.TimeoutExpired raised, as subprocess.run does."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               **options)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    completed = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    completed.pid = process.pid
    return completed


class ConformIn:
    """`conform ARGUMENTS...` run in one folder, and the JSON files it writes there."""

    def __init__(self, conform, folder):
        self.conform = os.path.abspath(conform)
        self.folder = folder

    def __call__(self, *arguments, timeout=600):
        return run([self.conform, *arguments], timeout=timeout, cwd=self.folder)

    def load(self, name):
        return load_json(os.path.join(self.folder, name))


# --- reports ----------------------------------------------------------------------------------

def load_json(path):
    with open(path, encoding="utf-8") as source:
        return json.load(source)


def load_json_if_present(path):
    return load_json(path) if os.path.exists(path) else None


def load_report(path, completed):
    """The JSON report at path; when conform wrote none, prints its output and fails."""
    if not os.path.exists(path):
        print(completed.stdout[-6000:], completed.stderr[-3000:])
        sys.exit(f"FAIL: no report written (exit {completed.returncode})")
    return load_json(path)


def checks_with_status(report, wanted):
    """{check id: [(scenario id, check), ...]} of the checks whose status is in `wanted`."""
    found = {}
    for scenario_report in report["scenarios"]:
        for check in scenario_report["checks"]:
            if check["status"] in wanted:
                found.setdefault(check["id"], []).append((scenario_report["id"], check))
    return found


def not_passing(report):
    return checks_with_status(report, ("failed", "warned"))


def any_failed(found):
    """Whether a check of a checks_with_status result failed."""
    return any(check["status"] == "failed" for items in found.values() for _, check in items)


def skipped_pairs(report):
    """{"SCENARIO:CHECK"} of the skipped checks."""
    return {f"{scenario_id}:{check_id}" for check_id, items in
            checks_with_status(report, ("skipped",)).items() for scenario_id, _ in items}


def statuses(report):
    """{check id: {statuses in any scenario}}; an empty dict for no report."""
    seen = {}
    for scenario_report in (report or {}).get("scenarios", []):
        for check in scenario_report.get("checks", []):
            seen.setdefault(check["id"], set()).add(check["status"])
    return seen


def scenario(report, scenario_id):
    return next((s for s in report["scenarios"] if s["id"] == scenario_id), None)


def describe(check):
    """A check's first example, or its note."""
    if check.get("examples"):
        return check["examples"][0]["message"]
    return check.get("note", "")


def run_command(conform, test_config, folder, args, junit=True):
    """`conform run` of `test_config` for a case driver, with the case's --strict and --only and
    its reports in `folder`: (command, JSON report path, JUnit path or None without `junit`)."""
    report_path = os.path.join(folder, "report.json")
    junit_path = os.path.join(folder, "report.xml") if junit else None
    command = [conform, "run", "--test-config", test_config, "--report-json", report_path]
    if junit:
        command += ["--junit", junit_path]
    if args.strict:
        command.append("--strict")
    if args.only:
        command += ["--only", args.only]
    return command, report_path, junit_path


def check_set(text):
    """The checks of a CHECK[,CHECK...] option; 'none' is the empty set."""
    return set() if text == "none" else set(text.split(","))


def note_problems(report, expected_notes):
    """What an --expect-note finds missing: the check absent, or its note without the text."""
    problems = []
    for expected in expected_notes:
        pair, _, text = expected.partition("=")
        scenario_id, _, check_id = pair.partition(":")
        checks = (scenario(report, scenario_id) or {}).get("checks", [])
        found = [check for check in checks if check["id"] == check_id]
        if not found:
            problems.append(f"no check {check_id} in scenario {scenario_id}")
        elif text not in found[0].get("note", ""):
            problems.append(f"{pair}'s note lacks {text!r}: {found[0].get('note', '')!r}")
    return problems


def verdict_problems(report, completed, expected, may_fail=frozenset()):
    """The case drivers' verdict: exactly the `expected` checks did not pass (failed or warned),
    apart from those of `may_fail`, whose verdict depends on timing the case cannot control, and
    conform exited 1 when one failed, 0 otherwise. Returns (not_passing(report), problems)."""
    seen = not_passing(report)
    problems = []
    unexpected = set(seen) - set(expected) - set(may_fail)
    if unexpected or not set(expected) <= set(seen):
        problems.append(f"checks not passing: {sorted(seen)}; expected exactly: {sorted(expected)}")
    expected_exit = 1 if any_failed(seen) else 0
    if completed.returncode != expected_exit:
        problems.append(f"exit code {completed.returncode}, expected {expected_exit}")
    return seen, problems


def skipped_problems(report, expect_skipped):
    """The problem when the skipped SCENARIO:CHECK pairs of `report` are not exactly those of an
    --expect-skipped option (a check_set); none when the option was not given (None)."""
    if expect_skipped is None:
        return []
    wanted = check_set(expect_skipped)
    skipped = skipped_pairs(report)
    if skipped == wanted:
        return []
    return [f"skipped: {sorted(skipped)}; expected exactly: {sorted(wanted)}"]


def fail_with_output(problems, completed, stdout_tail=6000):
    """Prints the end of conform's output and fails with the problems, if there are any."""
    if problems:
        print(completed.stdout[-stdout_tail:])
        print(completed.stderr[-3000:])
        sys.exit("FAIL: " + "; ".join(problems))


def print_not_passing(found, verb):
    for check_id, items in sorted(found.items()):
        scenario_id, check = items[0]
        print(f"{verb}: {check_id} [{', '.join(check['clauses'])}] {check['status']} in "
              f"{scenario_id}: {describe(check)}")


# --- leftovers --------------------------------------------------------------------------------

def container_names(runtime, global_args=None):
    listed = subprocess.run([runtime, *(global_args or []), "ps", "-a", "--format",
                             "{{.Names}}"], capture_output=True, text=True, timeout=120)
    return listed.stdout.split()


def leftover_containers(runtime, global_args, conform_pid, before=()):
    """Containers the conform process conform_pid started that still exist (other runs on the
    machine are not ours to judge): conform names them conform-PID-N-RANDOM. `before`, the names
    listed before that process started, leaves out a container of an earlier process with the
    same pid (pids are reused)."""
    prefix = f"conform-{conform_pid}-"
    return [name for name in container_names(runtime, global_args)
            if name.startswith(prefix) and name not in before]


def wait_for(predicate, limit=120):
    """Waits until predicate() is true: an event that conform or a connector causes (a process
    appearing or exiting, a file written). The limit is only a safety net for a test that would
    otherwise hang. Returns whether the event happened."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def children_of(pid):
    """Pids of the running children of pid."""
    listed = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(child) for child in listed.stdout.split()]


def command_line(pid):
    """The arguments of process pid ([] once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as source:
            return [part.decode(errors="replace") for part in source.read().split(b"\0") if part]
    except OSError:
        return []


def processes_with_env(name, value):
    """Pids of the processes (other than this one) whose environment holds NAME=VALUE."""
    found = []
    needle = f"{name}={value}".encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as source:
                if needle in source.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:
            pass
    return found


# --- folders and test configs -----------------------------------------------------------------

def temporary_folder(name):
    """A fresh folder /tmp/conform-NAME-XXXX, removed with everything in it at the end of the
    with block."""
    return tempfile.TemporaryDirectory(prefix=f"conform-{name}-")


def write_file(folder, name, value, indent=None):
    """Writes value (a text, or anything else as JSON) to folder/name; returns the path."""
    path = os.path.join(folder, name)
    with open(path, "w") as out:
        out.write(value if isinstance(value, str) else json.dumps(value, indent=indent))
    return path


def copy_fixtures(folder, fixtures):
    for name in FIXTURE_FILES:
        shutil.copy(os.path.join(fixtures, name), folder)


def connector_config(fixtures, folder):
    """The fixtures' config.json written to folder with folder as its scratch folder."""
    with open(os.path.join(fixtures, "config.json")) as source:
        text = source.read()
    return write_file(folder, "config.json", text.replace("${CONFORM_SCRATCH}", folder))


def strip_keys(folder):
    """The fixtures' configured catalog without any primary key."""
    path = os.path.join(folder, "configured_catalog.json")
    catalog = load_json(path)
    for entry in catalog["streams"]:
        entry.pop("primary_key", None)
        entry["stream"].pop("source_defined_primary_key", None)
    write_file(folder, "configured_catalog.json", catalog, indent=2)


def write_test_config(folder, fixtures, connector=None, fault="", image=None, runtime="podman",
                      global_args=None, claims=CLAIMS, read_timeout=8, grace_seconds=1):
    """Copies the fixtures into folder and writes folder/conform.json: the reference connector
    (the native binary `connector`, or `image` under `runtime`) with REFERENCE_CONNECTOR_FAULTS
    set to `fault` (which it applies to every command) and the extensions of `claims` (comma
    separated, or 'none'). Returns the test config's path.

    The tailing read is stopped once it delivered the injected data and `observe_seconds` passed;
    the read timeout (which also bounds each wait of the tailing read to a third of it) and the
    grace period are limits: a correct connector never reaches them, but a container engine
    that stalls can, so the container cases raise both (containers.sh)."""
    copy_fixtures(folder, fixtures)
    settings = {"env": {"REFERENCE_CONNECTOR_FAULTS": fault or ""}}
    if image:
        settings.update({"image": image, "runtime": runtime, "pull": "never",
                         "global_args": global_args or []})
    else:
        settings["command"] = [os.path.abspath(connector)]
    config = {
        "connector": settings,
        "config": "config.json",
        "invalid_config": "invalid_config.json",
        "catalog": "configured_catalog.json",
        "extensions": [name for name in claims.split(",") if name and name != "none"],
        "volatile_fields": {"users": ["/fetched_at"]},
        "expected_records": {"path": "expected_records.jsonl", "mode": "subset"},
        "expected_spec": "spec.json",
        "timeouts": {"spec": 20, "check": 20, "discover": 20, "read": read_timeout},
        "grace_seconds": grace_seconds,
        "merge": {"config": "merge_config.json", "full_state_config": "legacy_config.json"},
        "tail": {
            "inject_command": ["sh", "-c",
                               "echo '{\"note\":\"injected\"}' >> '${CONFORM_SCRATCH}/events.jsonl'"],
            "inject_after_seconds": 0.4,
            "observe_seconds": 1.5,
        },
        "projections": {"events": {"note": "/payload/note", "user_id": "/user/id"}},
    }
    return write_file(folder, "conform.json", config, indent=2)


def coverage_problems(report, expectations, stdout=None):
    """What the report's coverage (docs/coverage.md) gets wrong of `expectations`, a list of
    comma-separated items: clause:ID=STATE (judged, skipped, not-selected, no-check),
    stream:NAME=data|no-data|configured|not-configured|available|unavailable, mode:NAME=MODE (the
    stream was read with MODE), streams=not-applicable|available-unknown,
    catalog:NAME=differs|agrees (its configured catalog contradicts discover, and the console,
    when `stdout` is given, says so on a `catalog: 'NAME':` line; or not). Also: a clause
    without checks is no-check, and a skipped clause names why."""
    coverage = report.get("coverage")
    if coverage is None:
        return ["the report has no coverage"]
    problems = []
    clauses = {c["clause"]: c for c in coverage["clauses"]}
    streams = {s["stream"]: s for s in coverage["streams"]["items"]}
    for clause in coverage["clauses"]:
        if not clause["checks"] and clause["state"] != "no-check":
            problems.append(f"{clause['clause']} has no check but is {clause['state']}")
        if clause["state"] == "skipped" and not all(s["reason"] for s in clause["skipped_by"]):
            problems.append(f"{clause['clause']} is skipped without a reason")
    stream_tests = {
        "data": lambda s: s["records"] > 0, "no-data": lambda s: s["records"] == 0,
        "configured": lambda s: s["configured"], "not-configured": lambda s: not s["configured"],
        "available": lambda s: s["available"], "unavailable": lambda s: not s["available"],
    }
    for item in (i for text in expectations for i in text.split(",") if i):
        what, _, wanted = item.partition("=")
        kind, _, name = what.partition(":")
        if kind == "clause":
            state = clauses.get(name, {}).get("state")
            if state != wanted:
                problems.append(f"clause {name} is {state}, expected {wanted}: {clauses.get(name)}")
        elif kind == "stream":
            stream = streams.get(name)
            if stream is None or not stream_tests[wanted](stream):
                problems.append(f"stream {name} is not {wanted}: {stream}")
        elif kind == "catalog":
            differences = streams.get(name, {}).get("catalog_differences", [])
            said = stdout is None or (f"catalog: '{name}': " in stdout) == bool(differences)
            if (wanted == "differs") != bool(differences) or not said:
                problems.append(f"stream {name}'s catalog is not said to {wanted[:-1]} with "
                                f"discover: {differences}")
        elif kind == "mode":
            modes = [m["mode"] for m in streams.get(name, {}).get("modes", []) if m["runs"] > 0]
            if wanted not in modes:
                problems.append(f"stream {name} was read with {modes}, not {wanted}")
        elif kind == "streams":
            facts = coverage["streams"]
            ok = (not facts["applicable"] and not facts["items"]) if wanted == "not-applicable" \
                else not facts["available_known"]
            if not ok:
                problems.append(f"streams are not {wanted}: {facts}")
        else:
            problems.append(f"unknown coverage expectation {item!r}")
    return problems
