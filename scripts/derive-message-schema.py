#!/usr/bin/env python3
"""Derives schemas/airbyte_message.schema.json from the Airbyte protocol schema.

Usage: scripts/derive-message-schema.py PATH/TO/airbyte_protocol.json > schemas/airbyte_message.schema.json

What changes against the upstream definitions, and why:
- the message `type` enum is dropped: unknown types are AP-IO-2 (counted, not invalid);
- each known type requires its payload field (the upstream schema leaves the pairing to prose);
- STATE accepts the extension merge flags `merge`, `estuary.dev/merge` and `patch` as booleans;
- a ConfiguredAirbyteCatalog accepts the extension keys tail/range/projections in both spellings.
"""
import json
import sys

PAYLOAD = {
    "RECORD": "record", "STATE": "state", "LOG": "log", "SPEC": "spec",
    "CONNECTION_STATUS": "connectionStatus", "CATALOG": "catalog", "TRACE": "trace",
    "CONTROL": "control", "DESTINATION_CATALOG": "destination_catalog",
}


def main():
    upstream = json.load(open(sys.argv[1]))
    definitions = upstream["definitions"]
    message = definitions["AirbyteMessage"]
    message["properties"]["type"].pop("enum")
    message["allOf"] = [
        {"if": {"properties": {"type": {"const": kind}}}, "then": {"required": [field]}}
        for kind, field in PAYLOAD.items()
    ]
    state = definitions["AirbyteStateMessage"]["properties"]
    for flag in ("merge", "estuary.dev/merge", "patch"):
        state[flag] = {"type": "boolean", "description": "conform: RFC 7396 merge-patch flag"}
    range_spec = {
        "type": "object", "required": ["begin", "end"],
        "properties": {"begin": {"type": "string", "pattern": "^[0-9a-fA-F]{8}$"},
                       "end": {"type": "string", "pattern": "^[0-9a-fA-F]{8}$"}},
    }
    catalog = definitions["ConfiguredAirbyteCatalog"]["properties"]
    for prefix in ("", "estuary.dev/"):
        catalog[prefix + "tail"] = {"type": "boolean"}
        catalog[prefix + "range"] = range_spec
        definitions["ConfiguredAirbyteStream"]["properties"][prefix + "projections"] = {
            "type": "object", "additionalProperties": {"type": "string"}}
    derived = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$comment": "Derived by scripts/derive-message-schema.py from the Airbyte protocol "
                    "schema (MIT, see LICENSE.airbyte-protocol); version " + upstream["version"],
        "$ref": "#/definitions/AirbyteMessage",
        "definitions": definitions,
    }
    json.dump(derived, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


main()
