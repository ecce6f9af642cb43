#!/usr/bin/env python3
"""Derives schemas/airbyte_message.schema.json from the Airbyte protocol schema.

Usage: scripts/derive-message-schema.py PATH/TO/airbyte_protocol.json > schemas/airbyte_message.schema.json

What changes against the upstream definitions, and why:
- the message `type` enum is dropped: unknown types are AP-IO-2 (counted, not invalid);
- each known type requires its payload field (the upstream schema leaves the pairing to prose);
- STATE accepts the extension merge flags `merge`, `estuary.dev/merge` and `patch` as booleans;
- a ConfiguredAirbyteCatalog accepts the extension keys tail/range/projections in both spellings;
- every optional property (not in its object's `required`) also accepts an explicit null: the
  protocol's reference models type them as Optional, and the Python CDK writes
  `"namespace": null` and similar nulls (docs/ecosystem.md).
"""
import json
import sys

PAYLOAD = {
    "RECORD": "record", "STATE": "state", "LOG": "log", "SPEC": "spec",
    "CONNECTION_STATUS": "connectionStatus", "CATALOG": "catalog", "TRACE": "trace",
    "CONTROL": "control", "DESTINATION_CATALOG": "destination_catalog",
}


def nullable(schema):
    """The schema, also accepting null."""
    kind = schema.get("type")
    if isinstance(kind, str) and "enum" not in schema and "const" not in schema:
        return {**schema, "type": [kind, "null"]}
    if isinstance(kind, list):
        return {**schema, "type": kind if "null" in kind else kind + ["null"]}
    # if/else rather than anyOf: a wrong non-null value is reported at its own path.
    return {"if": {"type": "null"}, "else": schema}


def allow_null_in_optional(node):
    """Makes every optional property of every object schema under `node` nullable (not the
    AirbyteMessage payloads: the one its type names is required and must be an object)."""
    if isinstance(node, list):
        for item in node:
            allow_null_in_optional(item)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        allow_null_in_optional(value)
    properties = node.get("properties")
    if isinstance(properties, dict):
        required = set(node.get("required", []))
        for name, schema in properties.items():
            if name not in required and isinstance(schema, dict):
                properties[name] = nullable(schema)


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
    for name, definition in definitions.items():
        if name != "AirbyteMessage":
            allow_null_in_optional(definition)
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
