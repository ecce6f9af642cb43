#!/usr/bin/env python3
"""A source written from scratch by someone new to conform, from the Airbyte protocol docs alone.

Two streams: `orders` (incremental on `updated_at`, key `id`, a STATE every 10 records) and then
`customers` (full refresh, key `id`, no STATE). The spec marks `api_key` airbyte_secret. Python 3
standard library only.

    source.py [--quirk string_amount] spec|check|discover|read --config F [--catalog F] [--state F]

--quirk string_amount makes order 7's `amount` the string "12.50": a wrongly typed record.
"""
import datetime
import json
import sys

ORDERS = 35
CUSTOMERS = 7
STATE_EVERY = 10
BASE = datetime.datetime(2024, 1, 1, tzinfo=datetime.timezone.utc)

SPEC = {
    "documentationUrl": "https://example.com/newcomer",
    "connectionSpecification": {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "Newcomer Source",
        "type": "object",
        "required": ["api_key"],
        "properties": {
            "api_key": {"type": "string", "title": "API key", "airbyte_secret": True},
            "region": {"type": "string", "enum": ["eu", "us"], "default": "eu"},
        },
    },
}

ORDER_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "id": {"type": "integer"},
        "customer_id": {"type": "integer"},
        "amount": {"type": "number"},
        "updated_at": {"type": "string", "format": "date-time"},
    },
}
CUSTOMER_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
}


def emit(message):
    sys.stdout.write(json.dumps(message) + "\n")


def now_ms():
    return int(datetime.datetime.now(datetime.timezone.utc).timestamp() * 1000)


def log(level, text):
    emit({"type": "LOG", "log": {"level": level, "message": text}})


def load(path):
    with open(path) as source:
        return json.load(source)


def parse_args(argv):
    args = {"quirks": set(), "command": None}
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--quirk":
            args["quirks"].add(argv[i + 1])
            i += 2
        elif word in ("--config", "--catalog", "--state"):
            args[word[2:]] = argv[i + 1]
            i += 2
        else:
            args["command"] = word
            i += 1
    return args


def valid_config(config):
    return isinstance(config.get("api_key"), str) and len(config["api_key"]) >= 8


def order(number, quirks):
    amount = "12.50" if number == 7 and "string_amount" in quirks else round(number * 2.5, 2)
    updated = BASE + datetime.timedelta(minutes=number)
    return {"id": number, "customer_id": 1 + number % CUSTOMERS, "amount": amount,
            "updated_at": updated.strftime("%Y-%m-%dT%H:%M:%SZ")}


def record(stream, data):
    emit({"type": "RECORD", "record": {"stream": stream, "data": data, "emitted_at": now_ms()}})


def order_state(cursor):
    emit({"type": "STATE", "state": {"type": "STREAM", "stream": {
        "stream_descriptor": {"name": "orders"}, "stream_state": {"updated_at": cursor}}}})


def orders_cursor(state_path):
    """The orders cursor of a saved state: a list of STREAM states, or one."""
    if not state_path:
        return None
    states = load(state_path)
    for state in states if isinstance(states, list) else [states]:
        stream = state.get("stream", {}) if isinstance(state, dict) else {}
        if stream.get("stream_descriptor", {}).get("name") == "orders":
            return stream.get("stream_state", {}).get("updated_at")
    return None


def read_orders(configured, cursor, quirks):
    incremental = configured.get("sync_mode") == "incremental"
    since_state = 0
    last = cursor
    for number in range(1, ORDERS + 1):
        data = order(number, quirks)
        if incremental and cursor is not None and data["updated_at"] <= cursor:
            continue
        record("orders", data)
        last = data["updated_at"]
        since_state += 1
        if incremental and since_state == STATE_EVERY:
            order_state(last)
            since_state = 0
    if incremental and last is not None:
        order_state(last)


def read_customers():
    for number in range(1, CUSTOMERS + 1):
        record("customers", {"id": number, "name": f"customer {number}"})


def read(args):
    config = load(args["config"])
    if not valid_config(config):
        emit({"type": "TRACE", "trace": {"type": "ERROR", "emitted_at": now_ms(), "error": {
            "message": "api_key is invalid", "failure_type": "config_error"}}})
        return 1
    catalog = load(args["catalog"])
    cursor = orders_cursor(args.get("state"))
    log("INFO", "reading")
    for configured in catalog["streams"]:
        name = configured["stream"]["name"]
        if configured.get("sync_mode") not in ("full_refresh", "incremental"):
            emit({"type": "TRACE", "trace": {"type": "ERROR", "emitted_at": now_ms(), "error": {
                "message": f"stream {name}: unsupported sync_mode {configured.get('sync_mode')}",
                "failure_type": "config_error"}}})
            return 1
        if name == "orders":
            read_orders(configured, cursor, args["quirks"])
        elif name == "customers":
            read_customers()
        else:
            emit({"type": "TRACE", "trace": {"type": "ERROR", "emitted_at": now_ms(), "error": {
                "message": f"unknown stream {name}", "failure_type": "config_error"}}})
            return 1
    return 0


def main():
    args = parse_args(sys.argv[1:])
    command = args["command"]
    if command == "spec":
        emit({"type": "SPEC", "spec": SPEC})
        return 0
    if command == "check":
        ok = valid_config(load(args["config"]))
        status = {"status": "SUCCEEDED"} if ok else {
            "status": "FAILED", "message": "api_key must have at least 8 characters"}
        emit({"type": "CONNECTION_STATUS", "connectionStatus": status})
        return 0
    if command == "discover":
        load(args["config"])
        emit({"type": "CATALOG", "catalog": {"streams": [
            {"name": "orders", "json_schema": ORDER_SCHEMA,
             "supported_sync_modes": ["full_refresh", "incremental"],
             "source_defined_cursor": True, "default_cursor_field": ["updated_at"],
             "source_defined_primary_key": [["id"]]},
            {"name": "customers", "json_schema": CUSTOMER_SCHEMA,
             "supported_sync_modes": ["full_refresh"],
             "source_defined_primary_key": [["id"]]}]}})
        return 0
    if command == "read":
        return read(args)
    sys.stderr.write(f"unknown command {command}\n")
    return 2


sys.exit(main())
