#!/usr/bin/env python3
"""A Singer tap written the way the Meltano SDK (singer-sdk) writes one; python3 stdlib only.

tests/connectors/singer-sdk-style/README.md says which SDK behaviour each part copies (file and
function of meltano/sdk) and the verdict each quirk of SDKSTYLE_QUIRKS deserves.
"""
import argparse
import copy
import datetime
import gzip
import json
import logging
import os
import sys
import uuid

QUIRKS = set(filter(None, os.environ.get("SDKSTYLE_QUIRKS", "").split(",")))
STATE_MSG_FREQUENCY = 5  # the SDK's Stream.STATE_MSG_FREQUENCY (10000), small for tests
PLUGIN = "tap-sdk-style"

logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                    format="{asctime:23s} | {levelname:8s} | {name:20s} | {message}", style="{")
LOG = logging.getLogger(PLUGIN)
METRICS = logging.getLogger("singer_sdk.metrics")


def write(message):
    sys.stdout.write(json.dumps(message, default=str) + "\n")
    sys.stdout.flush()


def users():
    return [{"id": i, "name": f"user {i}", "address": {"city": f"city {i % 3}", "zip": f"{i:05d}"},
             "updated_at": f"2022-03-{i:02d}T12:00:00+00:00"} for i in range(1, 14)]


def events():
    rows = []
    for n, source in enumerate(["web", "mobile"]):
        # Unsorted within a partition: the SDK's is_sorted = False.
        # lowest_partition_start: mobile's events come ten days after web's.
        later = 10 if "lowest_partition_start" in QUIRKS and source == "mobile" else 0
        for i in [3, 1, 4, 2, 6, 5]:
            seen_at = f"2022-04-{i + later:02d}T0{n}:00:00+00:00"
            rows.append({"event_id": f"{source}-{i}", "source": source, "kind": "click",
                         "meta": {"seen_at": seen_at}, "seen_at": seen_at})
    return rows


def plans():
    return [{"plan": p, "price": price} for p, price in [("free", 0), ("pro", 20), ("team", 99)]]


STREAMS = {
    "users": {"rows": users, "keys": ["id"], "rk": "updated_at", "sorted": True, "partitions": None,
              "schema": {"type": "object", "properties": {
                  "id": {"type": ["integer"]}, "name": {"type": ["string", "null"]},
                  "address": {"type": ["object", "null"], "properties": {
                      "city": {"type": ["string", "null"]}, "zip": {"type": ["string", "null"]}}},
                  "updated_at": {"type": ["string"], "format": "date-time"}}}},
    "events": {"rows": events, "keys": ["event_id"], "rk": "seen_at", "sorted": False,
               "partitions": [{"source": "web"}, {"source": "mobile"}],
               "schema": {"type": "object", "properties": {
                   "event_id": {"type": ["string"]}, "source": {"type": ["string"]},
                   "kind": {"type": ["string", "null"]},
                   "meta": {"type": ["object", "null"], "properties": {
                       "seen_at": {"type": ["string", "null"], "format": "date-time"}}},
                   "seen_at": {"type": ["string", "null"], "format": "date-time"}}}},
    "plans": {"rows": plans, "keys": ["plan"], "rk": None, "sorted": True, "partitions": None,
              "schema": {"type": "object", "properties": {
                  "plan": {"type": ["string"]}, "price": {"type": ["integer", "null"]}}}},
}

SETTINGS = {"type": "object", "properties": {
    "auth_token": {"type": ["string"], "secret": True, "writeOnly": True,
                   "description": "The token to authenticate against the API service"},
    "start_date": {"type": ["string", "null"], "format": "date-time"},
    "emit_activate_version_messages": {"type": ["boolean", "null"]},
    "batch_config": {"type": ["object", "null"]}}, "required": ["auth_token"]}


def standard_metadata(name, stream):
    keys, rk = stream["keys"], stream["rk"]
    root = {"inclusion": "available", "table-key-properties": keys,
            "forced-replication-method": "INCREMENTAL" if rk else "FULL_TABLE"}
    if rk:
        root["valid-replication-keys"] = [rk]
        root["replication-key"] = rk
    metadata = [{"breadcrumb": [], "metadata": root}]

    def fields(properties, breadcrumb, top):
        for field, schema in properties.items():
            crumb = [*breadcrumb, "properties", field]
            automatic = top and (field in keys or field == rk)
            metadata.append({"breadcrumb": crumb,
                             "metadata": {"inclusion": "automatic" if automatic else "available"}})
            fields(schema.get("properties", {}), crumb, False)

    fields(stream["schema"]["properties"], [], True)
    return metadata


def catalog():
    return {"streams": [{"tap_stream_id": name, "replication_method":
                         "INCREMENTAL" if s["rk"] else "FULL_TABLE", "key_properties": s["keys"],
                         "schema": s["schema"], "is_view": False, "stream": name,
                         "metadata": standard_metadata(name, s),
                         **({"replication_key": s["rk"]} if s["rk"] else {})}
                        for name, s in STREAMS.items()]}


def about(fmt):
    info = {"name": PLUGIN, "description": "A tap written the way the Meltano SDK writes one",
            "version": "0.1.0", "sdk_version": "0.54.5 (style)",
            "supported_python_versions": ["3.10", "3.11", "3.12", "3.13"],
            "capabilities": ["catalog", "state", "discover", "about", "stream-maps",
                             "schema-flattening", "batch", "activate-version"],
            "settings": SETTINGS}
    if fmt == "json":
        print(json.dumps(info, indent=2))
    else:
        print(f"Name: {info['name']}\nVersion: {info['version']}\nSettings: ...")


def find_partition(partitions, context):
    found = [p for p in partitions if p["context"] == context]
    if len(found) > 1:  # singer_sdk/helpers/_state.py: _find_in_partitions_list
        raise ValueError("State file contains duplicate entries for partition: "
                         f"{context}.\nMatching state values were: {found!s}")
    return found[0] if found else None


class Tap:
    def __init__(self, config, state, selections):
        self.config = config
        self.state = state
        self.state.setdefault("bookmarks", {})
        self.selections = selections
        self.last_emitted = None
        self.flushed = True

    def write_state(self):  # singer_sdk/helpers/_state.py: StateWriter
        if self.flushed:
            return
        if self.state != self.last_emitted:
            write({"type": "STATE", "value": self.state})
            self.last_emitted = copy.deepcopy(self.state)
        self.flushed = True

    def stream_state(self, name, context):
        stream_state = self.state["bookmarks"].setdefault(name, {})
        if not context:
            return stream_state
        partitions = stream_state.setdefault("partitions", [])
        found = find_partition(partitions, context)
        if found is None:
            found = {"context": context}
            partitions.append(found)
        return found

    def lowest_partition_value(self, name):
        """lowest_partition_start: every partition starts from the lowest partition's bookmark,
        as a tap that asks for all partitions in one request does."""
        if "lowest_partition_start" not in QUIRKS:
            return None
        partitions = self.state["bookmarks"].get(name, {}).get("partitions", [])
        values = [p["replication_key_value"] for p in partitions if "replication_key_value" in p]
        return min(values) if values else None

    def starting_value(self, state, rk):  # Stream.get_starting_replication_key_value
        value = state.get("replication_key_value")
        return value or self.config.get("start_date")

    def increment(self, state, record, rk, is_sorted):  # _state.increment_state
        holder = state
        if not is_sorted:
            holder = state.setdefault("progress_markers",
                                      {"Note": "Progress is not resumable if interrupted."})
        value = record[rk]
        old = holder.get("replication_key_value")
        if old is None or value >= old or not is_sorted:
            if "nested_key_stuck" in QUIRKS and rk == "updated_at":
                return
            holder["replication_key"] = rk
            holder["replication_key_value"] = max(value, old) if old and not is_sorted else value

    def finalize(self, state):  # _state.finalize_state_progress_markers
        state.pop("replication_key_signpost", None)
        state.pop("starting_replication_value", None)
        if "unfinalized_markers" in QUIRKS:
            return
        markers = state.get("progress_markers")
        if markers and "replication_key" in markers:
            state["replication_key"] = markers.pop("replication_key")
            state["replication_key_value"] = markers.pop("replication_key_value")
        state.pop("progress_markers", None)

    def sync_stream(self, name):
        stream = STREAMS[name]
        selected, deselected, rk = self.selections[name]
        if not selected:
            return
        LOG.info("Beginning %s sync of '%s'...", "incremental" if rk else "full_table", name)
        schema = copy.deepcopy(stream["schema"])
        for field in deselected:
            schema["properties"].pop(field, None)
        write({"type": "SCHEMA", "stream": name, "schema": schema,
               "key_properties": stream["keys"], **({"bookmark_properties": [rk]} if rk else {})})
        version = None
        if not rk and self.config.get("emit_activate_version_messages"):
            version = int(datetime.datetime.now(datetime.timezone.utc).timestamp())
            write({"type": "ACTIVATE_VERSION", "stream": name, "version": version})
        count = 0
        lowest = self.lowest_partition_value(name)
        for context in stream["partitions"] or [None]:
            state = self.stream_state(name, context)
            start = self.starting_value(state, rk) if rk else None
            if lowest and start:
                start = lowest
            if rk and start:
                state["starting_replication_value"] = start
            rows = [r for r in stream["rows"]() if not context or r["source"] == context["source"]]
            if rk and start:
                rows = [r for r in rows if r[rk] >= start]  # the API's inclusive "since"
            batch = self.config.get("batch_config")
            if batch:
                self.write_batch(name, rows, deselected, batch)
                count += len(rows)
            else:
                for row in rows:
                    record = {k: v for k, v in row.items() if k not in deselected}
                    message = {"type": "RECORD", "stream": name, "record": record,
                               "time_extracted": datetime.datetime.now(
                                   datetime.timezone.utc).isoformat()}
                    if version is not None:
                        message["version"] = version
                    write(message)
                    self.flushed = False
                    if rk:
                        self.increment(state, row, rk, stream["sorted"])
                    count += 1
                    if count % STATE_MSG_FREQUENCY == 0:
                        self.write_state()
            if rk:
                self.finalize(state)
        if not stream["partitions"] and rk:
            self.finalize(self.stream_state(name, None))
        self.flushed = False
        self.write_state()
        METRICS.info("METRIC: %s", json.dumps({"type": "counter", "metric": "record_count",
                                               "value": count, "tags": {"stream": name}},
                                              separators=(",", ":")))

    def write_batch(self, name, rows, deselected, batch):  # Stream.get_batches, BATCH messages
        root = batch["storage"]["root"].replace("file://", "")
        os.makedirs(root, exist_ok=True)
        path = os.path.join(root, f"{batch['storage'].get('prefix', '')}{name}-{uuid.uuid4()}.json.gz")
        with gzip.open(path, "wt") as out:
            for row in rows:
                out.write(json.dumps({k: v for k, v in row.items() if k not in deselected}) + "\n")
        write({"type": "BATCH", "stream": name, "encoding": batch["encoding"],
               "manifest": ["file://" + path]})
        self.flushed = False
        self.write_state()

    def sync_all(self):
        for name in STREAMS:  # catalog order: the SDK does not read currently_syncing
            self.sync_stream(name)
        self.flushed = False
        self.write_state()


def selections(document):
    """{stream: (selected, deselected top-level fields, replication key)} as the SDK's
    SelectionMask resolves them (automatic fields are always kept)."""
    chosen = {name: (True, set(), s["rk"]) for name, s in STREAMS.items()}
    if document is None:
        return chosen
    by_id = {entry["tap_stream_id"]: entry for entry in document.get("streams", [])}
    for name, stream in STREAMS.items():
        entry = by_id.get(name)
        if entry is None:
            chosen[name] = (False, set(), None)
            continue
        meta = {tuple(item["breadcrumb"]): item["metadata"] for item in entry.get("metadata", [])}
        root = meta.get((), {})
        selected = root.get("selected", root.get("selected-by-default", False))
        rk = root.get("replication-key") if root.get("replication-method", root.get(
            "forced-replication-method")) == "INCREMENTAL" else None
        deselected = set()
        for field in stream["schema"]["properties"]:
            item = meta.get(("properties", field), {})
            if item.get("inclusion") == "automatic":
                continue
            if item.get("inclusion") == "unsupported" or item.get("selected") is False:
                deselected.add(field)
        chosen[name] = (selected, deselected, rk)
    return chosen


def main():
    parser = argparse.ArgumentParser(prog=PLUGIN, add_help=True)
    parser.add_argument("--version", action="store_true")
    parser.add_argument("--about", action="store_true")
    parser.add_argument("--format")
    parser.add_argument("--config", action="append")
    parser.add_argument("--discover", action="store_true")
    parser.add_argument("--catalog")
    parser.add_argument("--state")
    args, unknown = parser.parse_known_args()
    if unknown:  # click's usage error
        print(f"Usage: {PLUGIN} [OPTIONS]\nTry '{PLUGIN} --help' for help.\n\n"
              f"Error: No such option: {unknown[0]}", file=sys.stderr)
        return 2
    if args.version:
        print(f"{PLUGIN} v0.1.0, Meltano SDK v0.54.5 (style)")
        return 0
    if args.about:
        about(args.format)
        return 0
    config = {}
    for path in args.config or []:
        with open(path) as source:
            config.update(json.load(source))
    if not isinstance(config.get("auth_token"), str):
        LOG.error("Config validation failed: 'auth_token' is a required property")
        print("Traceback (most recent call last):\n  ...\nsinger_sdk.exceptions.ConfigValidationError:"
              " Config validation failed", file=sys.stderr)
        return 1
    if args.discover:
        print(json.dumps(catalog(), indent=2))
        return 0
    document = None
    if args.catalog:
        with open(args.catalog) as source:
            document = json.load(source)
    state = {}
    if args.state:
        with open(args.state) as source:
            state = json.load(source)
        if "duplicate_partitions" in QUIRKS:
            for entry in state.get("bookmarks", {}).values():
                if entry.get("partitions"):
                    entry["partitions"].append(copy.deepcopy(entry["partitions"][0]))
    LOG.info("Added '%s' as child/parent stream...", "events")
    try:
        Tap(config, state, selections(document)).sync_all()
    except ValueError:
        LOG.exception("An unhandled error occurred while syncing")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
