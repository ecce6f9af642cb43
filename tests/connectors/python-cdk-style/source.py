#!/usr/bin/env python3
"""A small Airbyte source written the way the Airbyte Python CDK (0.5x to 0.7x) writes.

    source.py spec
    source.py check    --config F
    source.py discover --config F
    source.py read     --config F --catalog F [--state F]

python3 stdlib only (no pip): it reproduces what `airbyte_cdk.entrypoint` and
`AbstractSource.read` print, as recorded from airbyte-cdk 0.73.0 in
tests/data/airbyte/transcripts/source-hardcoded-records, for a source with one full-refresh stream
and two incremental streams. Its data is one JSON Lines file per stream in the folder the config's
`data_dir` names (relative paths are relative to the working folder), so a test can append rows.

What it prints, as that CDK does:
- `"namespace": null` in every stream descriptor (STATE, STREAM_STATUS); none on RECORDs.
- STREAM_STATUS traces STARTED, RUNNING (before the first record), COMPLETE, with a float
  `emitted_at`; records carry an integer `emitted_at` in milliseconds.
- LOG lines around and between records ("Marking stream ... as STARTED", one per page read).
- Per-stream STREAM states with `sourceStats.recordCount` (a float, records of that stream since
  its previous STATE). Full-refresh reads end with `{"__ab_full_refresh_state_message": true}`.
  Incremental streams (cursor `updated_at`) checkpoint `{"updated_at": MAX}` every
  `checkpoint_interval` records and at the end of the stream (repeating the last checkpoint when
  nothing came after it, as the CDK does), and on resume read the records whose cursor is strictly
  newer than the state's. Unlike the CDK's plain counter it never checkpoints
  between two records with the same cursor, so a checkpoint never claims a record it skipped.
- `check` with a config the spec rejects: CONNECTION_STATUS FAILED ("Config validation error:
  ..."), exit 0. `read` or `discover` with such a config: a FATAL LOG with the traceback, then a
  TRACE ERROR (failure_type config_error), exit 1.
- A Python DeprecationWarning on stderr, as the CDK's dependencies print one.
- A configured catalog with a sync mode that is not one of the protocol's: the pydantic
  validation error of the CDK's catalog model (FATAL LOG, TRACE ERROR, exit 1). A configured
  stream the source does not have: a WARN log and the stream INCOMPLETE, as `AbstractSource.read`
  does when `raise_exception_on_missing_stream` is off.

PYCDK_QUIRKS (comma separated) turns on behaviours real Python-CDK connectors have, each tested
for the verdict it deserves (tests/connectors/README.md):
- counter_checkpoint: checkpoint after every `checkpoint_interval` records even between two
  records with the same cursor, as the CDK's `state_checkpoint_interval` counter does. With the
  strict `>` on resume, the second of two tied records is lost when resuming from that checkpoint.
- inclusive_cursor: resume with `>=` the state's cursor (the declarative CDK's inclusive start
  datetime): the boundary record is read again (at-least-once delivery).
- print_stdout: a library's print() lands on stdout between the messages (not JSON).
- missing_cursor: the record with id 6 of an incremental stream comes without its `updated_at`
  (an API that leaves out a field it has no value for).
- per_partition: an incremental stream whose rows carry `user_id` (orders) is read user by user,
  as the declarative CDK reads a stream partitioned by a parent (SubstreamPartitionRouter), and
  keeps its state per partition: {"states": [{"partition": {"user_id": U, "parent_slice": {}},
  "cursor": {"updated_at": V}}]}, checkpointed after each partition. The partitions' cursors
  differ: each resumes from its own. With partition_state_ignored (a fault, not a quirk), every
  partition reads from its start whatever the state says.
- vendor_partitions (with per_partition): the partitions' state in a vendor's own shape,
  {"USER_ID": {"lastUpdatedAt": V}}, as Faros's statuspage source keeps `{pageId: {lastUpdatedAt}}`:
  no cursor under the cursor field's name for conform to read.
- id_partitions (with per_partition): the same keyed by user id, each with its cursor under the
  cursor field's name, {"USER_ID": {"updated_at": V}}, as source-gitlab 3.0.0 keeps one per project.
- empty_state: the incremental stream users checkpoints `{}` and reads everything on every read,
  as a declarative stream whose cursor never takes a record's value (source-bigcommerce's id
  cursors read as epoch seconds): it repeats records, but its state claims no cursor.
"""
import argparse
import json
import os
import sys
import time
import traceback
import warnings

SOURCE_NAME = "SourcePythonCdkStyle"
FULL_REFRESH_SENTINEL = {"__ab_full_refresh_state_message": True}

SPEC = {
    "documentationUrl": "https://example.invalid/conform/python-cdk-style",
    "connectionSpecification": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Python CDK Style Source Spec",
        "type": "object",
        "required": ["data_dir"],
        "additionalProperties": True,
        "properties": {
            "data_dir": {"title": "Data folder", "type": "string", "order": 0,
                         "description": "Folder holding one <stream>.jsonl file per stream"},
            "extra_data_dir": {"title": "More data", "type": "string", "order": 4,
                               "description": "Optional second folder of <stream>.jsonl files, "
                                              "read after data_dir's (rows added later)"},
            "api_key": {"title": "API key", "type": "string", "airbyte_secret": True, "order": 1,
                        "description": "Sent nowhere; a secret the output must never show"},
            "checkpoint_interval": {"title": "Checkpoint interval", "type": "integer",
                                    "minimum": 1, "default": 4, "order": 2},
            "page_size": {"title": "Page size", "type": "integer", "minimum": 1, "default": 5,
                          "order": 3},
        },
    },
}

DATE_TIME = {"type": ["null", "string"], "format": "date-time"}
STREAMS = {
    "products": {
        "name": "products",
        "json_schema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": True,
            "properties": {
                "id": {"type": "integer"},
                "name": {"type": ["null", "string"]},
                "price": {"type": ["null", "number"]},
                "tags": {"type": ["null", "array"], "items": {"type": "string"}},
                "created_at": {"type": "string", "format": "date-time",
                               "airbyte_type": "timestamp_with_timezone"},
            },
        },
        "supported_sync_modes": ["full_refresh"],
        "source_defined_primary_key": [["id"]],
    },
    "users": {
        "name": "users",
        "json_schema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": True,
            "properties": {
                "id": {"type": "integer"},
                "email": {"type": ["null", "string"]},
                "name": {"type": ["null", "string"]},
                "address": {"type": ["null", "object"],
                            "properties": {"city": {"type": ["null", "string"]},
                                           "zip": {"type": ["null", "string"]}}},
                "updated_at": {"type": "string", "format": "date-time",
                               "airbyte_type": "timestamp_with_timezone"},
            },
        },
        "supported_sync_modes": ["full_refresh", "incremental"],
        "source_defined_cursor": True,
        "default_cursor_field": ["updated_at"],
        "source_defined_primary_key": [["id"]],
    },
    "orders": {
        "name": "orders",
        "json_schema": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "additionalProperties": True,
            "properties": {
                "id": {"type": "integer"},
                "user_id": {"type": ["null", "integer"]},
                "total": {"type": ["null", "number"]},
                "status": {"type": ["null", "string"]},
                "shipped_at": DATE_TIME,
                "updated_at": {"type": "string", "format": "date-time",
                               "airbyte_type": "timestamp_with_timezone"},
            },
        },
        "supported_sync_modes": ["full_refresh", "incremental"],
        "source_defined_cursor": True,
        "default_cursor_field": ["updated_at"],
        "source_defined_primary_key": [["id"]],
    },
}
CURSOR = "updated_at"
QUIRKS = {name for name in os.environ.get("PYCDK_QUIRKS", "").split(",") if name}


class TracedException(Exception):
    """airbyte_cdk.utils.traced_exception.AirbyteTracedException, in short."""

    def __init__(self, internal_message, message, failure_type="system_error"):
        super().__init__(internal_message)
        self.internal_message = internal_message
        self.message = message
        self.failure_type = failure_type


def emit(message):
    sys.stdout.write(json.dumps(message) + "\n")


def log(level, text):
    emit({"type": "LOG", "log": {"level": level, "message": text}})


def descriptor(name):
    return {"name": name, "namespace": None}


def stream_status(name, status):
    emit({"type": "TRACE", "trace": {"type": "STREAM_STATUS", "emitted_at": time.time() * 1000,
                                     "stream_status": {"stream_descriptor": descriptor(name),
                                                       "status": status}}})


def state(name, stream_state, count):
    emit({"type": "STATE", "state": {"type": "STREAM",
                                     "stream": {"stream_descriptor": descriptor(name),
                                                "stream_state": stream_state},
                                     "sourceStats": {"recordCount": float(count)}}})


def record(name, data):
    emit({"type": "RECORD", "record": {"stream": name, "data": data,
                                       "emitted_at": int(time.time() * 1000)}})


def type_name(value):
    return "'" + value + "'" if isinstance(value, str) else json.dumps(value)


def validate_config(config):
    """The error jsonschema would raise first for this spec, or None."""
    spec = SPEC["connectionSpecification"]
    if not isinstance(config, dict):
        return f"{type_name(config)} is not of type 'object'"
    for key in spec["required"]:
        if key not in config:
            return f"'{key}' is a required property"
    for key, rule in spec["properties"].items():
        if key not in config:
            continue
        value = config[key]
        if rule["type"] == "string" and not isinstance(value, str):
            return f"{type_name(value)} is not of type 'string'"
        if rule["type"] == "integer":
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{type_name(value)} is not of type 'integer'"
            if value < rule.get("minimum", value):
                return f"{value} is less than the minimum of {rule['minimum']}"
    return None


def load_config(path):
    with open(path) as source:
        config = json.load(source)
    problem = validate_config(config)
    if problem:
        raise TracedException(problem, f"Config validation error: {problem}", "config_error")
    return config


def rows(config, stream):
    found = []
    for folder in (config["data_dir"], config.get("extra_data_dir")):
        path = os.path.join(folder, stream + ".jsonl") if folder else None
        if path and os.path.exists(path):
            with open(path) as source:
                found += [json.loads(line) for line in source if line.strip()]
    return found


def check_connection(config):
    folder = config["data_dir"]
    if not os.path.isdir(folder):
        return False, f"Unable to connect: the data folder {folder!r} does not exist"
    return True, None


def read_state(path):
    """Per-stream states from --state: an array of STATE messages, or a legacy object."""
    if not path:
        return {}
    with open(path) as source:
        text = source.read()
    if not text.strip():
        return {}
    parsed = json.loads(text)
    if isinstance(parsed, dict):
        return {name: value for name, value in parsed.items() if isinstance(value, dict)}
    states = {}
    for message in parsed:
        if message.get("type") == "STREAM":
            stream = message["stream"]
            states[stream["stream_descriptor"]["name"]] = stream.get("stream_state") or {}
        elif message.get("type") == "GLOBAL":
            for stream in message["global"].get("stream_states", []):
                states[stream["stream_descriptor"]["name"]] = stream.get("stream_state") or {}
        elif "data" in message:
            states.update(message["data"])
        else:
            raise ValueError("AirbyteStateMessage should contain either a stream, global, or "
                             "state field")
    return states


def keyed_partitions():
    """The member name of a state kept per partition id: vendor_partitions' or id_partitions'."""
    if "vendor_partitions" in QUIRKS:
        return "lastUpdatedAt"
    return CURSOR if "id_partitions" in QUIRKS else None


def partition_cursor(stream_state, user):
    if keyed_partitions():
        return stream_state.get(str(user), {}).get(keyed_partitions())
    for entry in stream_state.get("states", []):
        if entry.get("partition", {}).get("user_id") == user:
            return entry.get("cursor", {}).get(CURSOR)
    return None


def partitioned_state(states):
    """The per_partition state: the declarative CDK's form, or a vendor's (vendor_partitions)."""
    if keyed_partitions():
        return {str(entry["partition"]["user_id"]): {keyed_partitions(): entry["cursor"][CURSOR]}
                for entry in states}
    return {"states": states}


def read_partitioned(name, data, stream_state):
    """The per_partition quirk: user by user, a cursor per user, a STATE after each."""
    log("INFO", f"Marking stream {name} as STARTED")
    stream_status(name, "STARTED")
    states = [dict(entry) for entry in stream_state.get("states", [])]
    if keyed_partitions():
        states = [{"partition": {"user_id": int(user), "parent_slice": {}},
                   "cursor": {CURSOR: value[keyed_partitions()]}}
                  for user, value in stream_state.items()]
    total = 0
    for user in sorted({row["user_id"] for row in data}):
        cursor_value = partition_cursor(stream_state, user)
        if "partition_state_ignored" in QUIRKS:
            cursor_value = None
        rows_of = sorted((row for row in data if row["user_id"] == user), key=lambda r: r[CURSOR])
        if cursor_value is not None:
            inclusive = "inclusive_cursor" in QUIRKS
            rows_of = [row for row in rows_of
                       if (row[CURSOR] >= cursor_value if inclusive else row[CURSOR] > cursor_value)]
        for row in rows_of:
            if total == 0:
                log("INFO", f"Marking stream {name} as RUNNING")
                stream_status(name, "RUNNING")
            record(name, row)
            total += 1
            cursor_value = row[CURSOR] if cursor_value is None else max(cursor_value, row[CURSOR])
        if cursor_value is not None:
            states = [entry for entry in states if entry.get("partition", {}).get("user_id") != user]
            states.append({"partition": {"user_id": user, "parent_slice": {}},
                           "cursor": {CURSOR: cursor_value}})
        state(name, partitioned_state(states), len(rows_of))
    log("INFO", f"Read {total} records from {name} stream")
    stream_status(name, "COMPLETE")


def recorded(name, cursor_value):
    """The state an incremental stream checkpoints: its cursor, or nothing (empty_state)."""
    return {} if "empty_state" in QUIRKS and name == "users" else {CURSOR: cursor_value}


def read_stream(config, configured, stream_state):
    name = configured["stream"]["name"]
    incremental = configured.get("sync_mode") == "incremental"
    if incremental and "empty_state" in QUIRKS and name == "users":
        stream_state = {}
    if incremental and "per_partition" in QUIRKS and name == "orders":
        read_partitioned(name, rows(config, name), stream_state)
        return
    page_size = config.get("page_size", 5)
    interval = config.get("checkpoint_interval", 4)
    data = rows(config, name)
    cursor_value = None
    if incremental:
        cursor_value = stream_state.get(CURSOR)
        data.sort(key=lambda row: row[CURSOR])
        if cursor_value is not None and "inclusive_cursor" in QUIRKS:
            data = [row for row in data if row[CURSOR] >= cursor_value]
        elif cursor_value is not None:
            data = [row for row in data if row[CURSOR] > cursor_value]
    log("INFO", f"Marking stream {name} as STARTED")
    stream_status(name, "STARTED")
    log("INFO", f"Syncing stream: {name} ")
    if incremental and cursor_value is not None:
        log("INFO", f"Setting state of {SOURCE_NAME} stream to {json.dumps(stream_state)}")
    total = 0
    since_state = 0
    for index, row in enumerate(data):
        if index == 0:
            log("INFO", f"Marking stream {name} as RUNNING")
            stream_status(name, "RUNNING")
        if index % page_size == 0:
            log("INFO", f"Fetching page {index // page_size + 1} of {name}")
            if "print_stdout" in QUIRKS:
                print(f"GET /api/{name}?page={index // page_size + 1} 200")
        if "missing_cursor" in QUIRKS and incremental and row.get("id") == 6:
            record(name, {key: value for key, value in row.items() if key != CURSOR})
        else:
            record(name, row)
        total += 1
        since_state += 1
        if incremental:
            cursor_value = row[CURSOR] if cursor_value is None else max(cursor_value, row[CURSOR])
            tied = index + 1 < len(data) and data[index + 1][CURSOR] == row[CURSOR]
            tied = tied and "counter_checkpoint" not in QUIRKS
            if since_state >= interval and not tied:
                state(name, recorded(name, cursor_value), since_state)
                since_state = 0
    if incremental:
        # As the CDK does: a final STATE even when the last checkpoint already covered every
        # record (then it repeats that STATE with recordCount 0.0 and no record in between).
        state(name, recorded(name, cursor_value) if cursor_value is not None else {}, since_state)
    else:
        state(name, dict(FULL_REFRESH_SENTINEL), since_state)
    log("INFO", f"Read {total} records from {name} stream")
    log("INFO", f"Marking stream {name} as STOPPED")
    stream_status(name, "COMPLETE")
    log("INFO", f"Finished syncing {name}")


SYNC_MODES = ("full_refresh", "incremental")
DESTINATION_SYNC_MODES = ("append", "overwrite", "append_dedup")


def validate_catalog(catalog):
    """Raises what the CDK's pydantic ConfiguredAirbyteCatalog model raises for an unknown sync
    mode (read_catalog parses the catalog before any stream is read)."""
    for index, configured in enumerate(catalog["streams"]):
        for key, allowed in (("sync_mode", SYNC_MODES),
                             ("destination_sync_mode", DESTINATION_SYNC_MODES)):
            if configured.get(key) not in allowed:
                permitted = ", ".join(f"'{value}'" for value in allowed)
                raise ValueError(f"1 validation error for ConfiguredAirbyteCatalog\n"
                                 f"streams -> {index} -> {key}\n  value is not a valid "
                                 f"enumeration member; permitted: {permitted}")


def read(config, catalog_path, state_path):
    with open(catalog_path) as source:
        catalog = json.load(source)
    validate_catalog(catalog)
    states = read_state(state_path)
    log("INFO", f"Starting syncing {SOURCE_NAME}")
    for configured in catalog["streams"]:
        name = configured["stream"]["name"]
        if name not in STREAMS:
            log("WARN", f"The stream {name} was not found in the source. Available streams: "
                f"{sorted(STREAMS)}")
            stream_status(name, "INCOMPLETE")
            continue
        read_stream(config, configured, states.get(name, {}))
    log("INFO", f"Finished syncing {SOURCE_NAME}")


def run(args):
    if args.command == "spec":
        emit({"type": "SPEC", "spec": SPEC})
        return
    if args.command == "check":
        try:
            config = load_config(args.config)
        except TracedException as error:
            emit({"type": "CONNECTION_STATUS",
                  "connectionStatus": {"status": "FAILED", "message": error.message}})
            return
        ok, problem = check_connection(config)
        if ok:
            log("INFO", "Check succeeded")
            emit({"type": "CONNECTION_STATUS", "connectionStatus": {"status": "SUCCEEDED"}})
        else:
            log("ERROR", f"Check failed: {problem}")
            emit({"type": "CONNECTION_STATUS",
                  "connectionStatus": {"status": "FAILED", "message": problem}})
        return
    config = load_config(args.config)
    if args.command == "discover":
        emit({"type": "CATALOG", "catalog": {"streams": list(STREAMS.values())}})
        return
    read(config, args.catalog, args.state)


def main():
    warnings.warn("pkg_resources is deprecated as an API. See "
                  "https://setuptools.pypa.io/en/latest/pkg_resources.html", DeprecationWarning)
    parser = argparse.ArgumentParser(prog="source.py")
    parser.add_argument("--debug", action="store_true")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("spec")
    for name in ("check", "discover"):
        commands.add_parser(name).add_argument("--config", required=True)
    read_parser = commands.add_parser("read")
    read_parser.add_argument("--config", required=True)
    read_parser.add_argument("--catalog", required=True)
    read_parser.add_argument("--state")
    args = parser.parse_args()
    try:
        run(args)
    except Exception as error:  # the CDK's sys.excepthook: FATAL log, then a TRACE error
        stack = traceback.format_exc()
        internal = getattr(error, "internal_message", None) or str(error)
        message = getattr(error, "message", None) or "Something went wrong in the connector. " \
            "See the logs for more details."
        emit({"type": "LOG", "log": {"level": "FATAL", "message": f"{internal}\n{stack}"}})
        emit({"type": "TRACE", "trace": {
            "type": "ERROR", "emitted_at": time.time() * 1000,
            "error": {"message": message, "internal_message": internal, "stack_trace": stack,
                      "failure_type": getattr(error, "failure_type", "system_error"),
                      "stream_descriptor": None}}})
        sys.stdout.flush()
        return 1
    sys.stdout.flush()
    return 0


sys.exit(main())
