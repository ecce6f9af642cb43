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
ignored, as the recorded connector's full-refresh streams ignore theirs. python3 stdlib only.
"""
import argparse
import json
import os
import sys

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
    configured = {entry["stream"]["name"] for entry in load_json(args.catalog)["streams"]}
    if args.state:
        load_json(args.state)  # must parse, as the CDK's read_state requires
    replay(os.path.join(folder, "read.jsonl"),
           lambda line: stream_of(line) in (None, *configured))
    return 0


sys.exit(main())
