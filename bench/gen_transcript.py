#!/usr/bin/env python3
"""Writes a deterministic, realistic `read` transcript for throughput measurements.

usage: gen_transcript.py N OUT_DIR [--invalid-every K]

OUT_DIR/catalog.json   a configured catalog with one incremental stream "events"
OUT_DIR/records.jsonl  N RECORD messages, with a per-stream STATE after every 1000th record
OUT_DIR/expected.json  how many records there are and how many were made invalid

The workload has the shape of /work/shared/bench/gen.py (the one behind the figures in
notes/json-libraries.md): ~15 properties, nested objects, arrays of strings and of objects,
["null", T] unions, an enum, `format: date-time`, about 620 bytes per record. Same N gives the
same bytes on every run (fixed seed, no clock).

--invalid-every K breaks every K-th record (ids K-1, 2K-1, ...) with exactly one schema error,
cycling through four kinds; the first kind is a date-time format error, which only validators
that assert formats can see. Used by run.sh to check that every tool really validates.
"""

import json
import random

import gen_common

STATE_EVERY = 1000
SEED = 7
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
STATUSES = ["open", "closed", "pending", None]


def nullable(*types):
    return {"type": ["null", *types]}


def events_schema():
    geo = {
        "type": ["null", "object"],
        "properties": {"lat": {"type": ["number"]}, "lon": {"type": ["number"]}},
    }
    address = {
        "type": ["null", "object"],
        "properties": {
            "street": nullable("string"),
            "city": nullable("string"),
            "zip": nullable("string"),
            "geo": geo,
        },
    }
    line_item = {
        "type": "object",
        "properties": {
            "sku": {"type": ["string"]},
            "qty": {"type": ["integer"]},
            "price": {"type": ["number"]},
        },
        "required": ["sku", "qty"],
    }
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "additionalProperties": True,
        "properties": {
            "id": {"type": "integer"},
            "uuid": nullable("string"),
            "created_at": {**nullable("string"), "format": "date-time"},
            "updated_at": {"type": "string", "format": "date-time"},
            "name": nullable("string"),
            "email": nullable("string"),
            "active": nullable("boolean"),
            "score": nullable("number"),
            "count": nullable("integer"),
            "status": {**nullable("string"), "enum": [None, "open", "closed", "pending"]},
            "tags": {**nullable("array"), "items": {"type": "string"}},
            "address": address,
            "metadata": {**nullable("object"), "additionalProperties": True},
            "line_items": {**nullable("array"), "items": line_item},
        },
        "required": ["id", "updated_at"],
    }


def configured_catalog():
    stream = {
        "name": "events",
        "json_schema": events_schema(),
        "supported_sync_modes": ["full_refresh", "incremental"],
        "source_defined_cursor": True,
        "default_cursor_field": ["updated_at"],
        "source_defined_primary_key": [["id"]],
    }
    return {
        "streams": [
            {
                "stream": stream,
                "sync_mode": "incremental",
                "cursor_field": ["updated_at"],
                "destination_sync_mode": "append",
                "primary_key": [["id"]],
            }
        ]
    }


def record_data(i, rnd):
    minute = i % 60
    return {
        "id": i,
        "uuid": f"{rnd.getrandbits(64):016x}-{i:08x}",
        "created_at": f"2024-01-{1 + i % 28:02d}T10:{minute:02d}:00Z",
        "updated_at": f"2024-02-{1 + i % 28:02d}T11:{minute:02d}:{minute:02d}Z",
        "name": f"{rnd.choice(WORDS)} {rnd.choice(WORDS)}",
        "email": f"user{i}@example.com",
        "active": i % 3 == 0,
        "score": rnd.random() * 100,
        "count": rnd.randint(0, 10**6),
        "status": rnd.choice(STATUSES),
        "tags": rnd.sample(WORDS, 3),
        "address": {
            "street": f"{i} Main St",
            "city": rnd.choice(WORDS).title(),
            "zip": str(rnd.randint(10000, 99999)),
            "geo": {"lat": rnd.uniform(-90, 90), "lon": rnd.uniform(-180, 180)},
        },
        "metadata": {"source": "gen", "batch": i // STATE_EVERY},
        "line_items": [
            {
                "sku": f"SKU-{rnd.randint(1, 999)}",
                "qty": rnd.randint(1, 5),
                "price": round(rnd.random() * 50, 2),
            }
            for _ in range(2)
        ],
    }


def break_record(data, kind):
    """Introduces exactly one schema violation; kind 0 is the format-only one."""
    if kind == 0:
        data["created_at"] = "2024-02-30T10:00:00Z"  # no 30th of February
    elif kind == 1:
        data["status"] = "archived"
    elif kind == 2:
        data["line_items"][1]["qty"] = "3"
    else:
        data["address"]["geo"]["lat"] = None


def record_message(i, data):
    record = {"stream": "events", "data": data, "emitted_at": 1_700_000_000_000 + i}
    return {"type": "RECORD", "record": record}


def state_message(cursor):
    stream_state = {"stream_descriptor": {"name": "events"}, "stream_state": {"updated_at": cursor}}
    return {"type": "STATE", "state": {"type": "STREAM", "stream": stream_state}}


def compact(message):
    return json.dumps(message, separators=(",", ":")) + "\n"


def write_transcript(path, count, invalid_every):
    rnd = random.Random(SEED)
    invalid = invalid_format_only = 0
    with open(path, "w", encoding="utf-8") as out:
        for i in range(count):
            data = record_data(i, rnd)
            if invalid_every and i % invalid_every == invalid_every - 1:
                kind = invalid % 4
                break_record(data, kind)
                invalid += 1
                invalid_format_only += kind == 0
            out.write(compact(record_message(i, data)))
            if i % STATE_EVERY == STATE_EVERY - 1:
                out.write(compact(state_message(data["updated_at"])))
    return {"records": count, "invalid": invalid, "invalid_format_only": invalid_format_only}


def main():
    gen_common.generate(__doc__.splitlines()[0], configured_catalog, write_transcript)


if __name__ == "__main__":
    main()
