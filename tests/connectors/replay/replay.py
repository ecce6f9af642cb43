#!/usr/bin/env python3
"""Replays a recorded Airbyte connector transcript as a live connector process.

    replay.py [--transcript DIR] spec
    replay.py [--transcript DIR] check --config F
    replay.py [--transcript DIR] discover --config F
    replay.py [--transcript DIR] read --config F --catalog F [--state F]

Prints the stdout the real connector recorded for that command and exits with the exit code it
recorded (the transcript folder's README lists them). DIR defaults to
tests/data/airbyte/transcripts/source-hardcoded-records (source-hardcoded-records 0.0.8 on the
Python airbyte-cdk 0.73.0).

A config is valid when the recorded spec accepts it the way that connector's CDK checks it: an
object whose optional `count` is an integer >= 1. With an invalid config, `check` replays
check-invalid.jsonl (exit 0) and `read`/`discover` replay read-invalid-config.jsonl (exit 1), as the
CDK validates the config against the spec before either. `read` replays only the streams the
configured catalog names (the CDK reads configured streams only); the state is accepted and
ignored, as the recorded connector's full-refresh streams ignore theirs. A configured catalog with a
sync mode the protocol does not have, or a stream the recording does not list, fails as that CDK
fails: a FATAL log, then a TRACE error, exit 1. python3 stdlib only.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TRANSCRIPT = os.path.join(HERE, "..", "..", "data", "airbyte", "transcripts",
                                  "source-hardcoded-records")


def load_json(path):
    with open(path) as source:
        return json.load(source)


def config_valid(config):
    if not isinstance(config, dict):
        return False
    count = config.get("count", 1000)
    return isinstance(count, int) and not isinstance(count, bool) and count >= 1


def replay(path, keep=None):
    with open(path) as source:
        for line in source:
            if keep is None or keep(line):
                sys.stdout.write(line if line.endswith("\n") else line + "\n")
    sys.stdout.flush()


def stream_of(line):
    """The stream a RECORD, STATE or STREAM_STATUS line belongs to, else None."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    kind = message.get("type")
    if kind == "RECORD":
        return message["record"].get("stream")
    if kind == "STATE" and message["state"].get("type") == "STREAM":
        return message["state"]["stream"]["stream_descriptor"].get("name")
    if kind == "TRACE" and message["trace"].get("type") == "STREAM_STATUS":
        return message["trace"]["stream_status"]["stream_descriptor"].get("name")
    return None


SYNC_MODES = ("full_refresh", "incremental")
DESTINATION_SYNC_MODES = ("append", "overwrite", "append_dedup")


def recorded_streams(folder):
    with open(os.path.join(folder, "discover.jsonl")) as source:
        for line in source:
            message = json.loads(line)
            if message.get("type") == "CATALOG":
                return {stream["name"] for stream in message["catalog"]["streams"]}
    return set()


def catalog_problem(catalog, known):
    """What airbyte-cdk 0.73.0 rejects in a configured catalog before reading: a sync mode its
    pydantic model does not know, or a stream the source does not have (AbstractSource.read raises
    KeyError, as raise_exception_on_missing_stream is True by default)."""
    for index, configured in enumerate(catalog["streams"]):
        for key, allowed in (("sync_mode", SYNC_MODES),
                             ("destination_sync_mode", DESTINATION_SYNC_MODES)):
            if configured.get(key) not in allowed:
                return (f"1 validation error for ConfiguredAirbyteCatalog\nstreams -> {index} -> "
                        f"{key}\n  value is not a valid enumeration member")
    for configured in catalog["streams"]:
        name = configured["stream"]["name"]
        if name not in known:
            return (f"'The stream {name} no longer exists in the configuration. Refresh the "
                    f"schema in replication settings and remove this stream from future sync "
                    f"attempts.'")
    return None


def fail_like_the_cdk(problem):
    """The CDK's uncaught-exception hook: a FATAL log, then a TRACE error."""
    for message in (
            {"type": "LOG", "log": {"level": "FATAL", "message": problem}},
            {"type": "TRACE", "trace": {"type": "ERROR", "emitted_at": time.time() * 1000,
                                        "error": {"message": "Something went wrong in the "
                                                  "connector. See the logs for more details.",
                                                  "internal_message": problem,
                                                  "failure_type": "system_error"}}}):
        sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser(prog="replay.py")
    parser.add_argument("--transcript", default=DEFAULT_TRANSCRIPT)
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("spec")
    for name in ("check", "discover"):
        commands.add_parser(name).add_argument("--config", required=True)
    read = commands.add_parser("read")
    read.add_argument("--config", required=True)
    read.add_argument("--catalog", required=True)
    read.add_argument("--state")
    args = parser.parse_args()
    folder = args.transcript

    if args.command == "spec":
        replay(os.path.join(folder, "spec.jsonl"))
        return 0
    valid = config_valid(load_json(args.config))
    if args.command == "check":
        replay(os.path.join(folder, "check.jsonl" if valid else "check-invalid.jsonl"))
        return 0
    if not valid:
        replay(os.path.join(folder, "read-invalid-config.jsonl"))
        return 1
    if args.command == "discover":
        replay(os.path.join(folder, "discover.jsonl"))
        return 0
    catalog = load_json(args.catalog)
    problem = catalog_problem(catalog, recorded_streams(folder))
    if problem:
        fail_like_the_cdk(problem)
        return 1
    configured = {entry["stream"]["name"] for entry in catalog["streams"]}
    if args.state:
        load_json(args.state)  # must parse, as the CDK's read_state requires
    replay(os.path.join(folder, "read.jsonl"),
           lambda line: stream_of(line) in (None, *configured))
    return 0


sys.exit(main())
