#!/usr/bin/python3
"""Per-record validation the way Airbyte's connector acceptance tests (CAT) do it.

usage: py_validate.py CATALOG [TRANSCRIPT] [--formats | --parse-only]

Reads the transcript (or stdin) line by line, json.loads each line, and validates the data of
every RECORD with a jsonschema Draft7Validator built once per catalog stream, collecting all
errors (CAT lists them all). Prints `records=N invalid=M`.

--formats     also asserts formats. Debian 12's python3-jsonschema (4.10) has no `date-time`
              checker in FormatChecker (it needs the rfc3339-validator package, which Debian does
              not ship) and skips it silently, so this registers a small RFC 3339 one. CAT itself
              uses a custom, lenient date-time checker built on pendulum.
--parse-only  json.loads every line and count RECORDs, no validation: Python's parsing floor.

Run it with /usr/bin/python3 so Debian's jsonschema is the one imported.
"""

import argparse
import datetime
import json
import re
import sys

import jsonschema

RFC3339_DATE_TIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))"
)


def is_rfc3339_date_time(value):
    if not isinstance(value, str):
        return True
    match = RFC3339_DATE_TIME.fullmatch(value)
    if not match:
        return False
    year, month, day, hour, minute, second = (int(match.group(k)) for k in range(1, 7))
    try:
        datetime.date(year, month, day)
    except ValueError:
        return False
    offset_ok = match.group(9) is None or (int(match.group(9)) < 24 and int(match.group(10)) < 60)
    return hour < 24 and minute < 60 and second <= 60 and offset_ok


def format_checker():
    checker = jsonschema.FormatChecker()
    if "date-time" not in checker.checkers:
        checker.checks("date-time")(is_rfc3339_date_time)
    return checker


def stream_validators(catalog, formats):
    checker = format_checker() if formats else None
    return {
        configured["stream"]["name"]: jsonschema.Draft7Validator(
            configured["stream"]["json_schema"], format_checker=checker
        )
        for configured in catalog["streams"]
    }


def count_records(lines, validators):
    records = invalid = 0
    for line in lines:
        message = json.loads(line)
        if message.get("type") != "RECORD":
            continue
        records += 1
        if validators is None:
            continue
        record = message["record"]
        errors = list(validators[record["stream"]].iter_errors(record["data"]))
        if errors:
            invalid += 1
    return records, invalid


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("catalog")
    parser.add_argument("transcript", nargs="?", help="default: stdin")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--formats", action="store_true")
    mode.add_argument("--parse-only", action="store_true")
    args = parser.parse_args()

    with open(args.catalog, encoding="utf-8") as catalog_file:
        catalog = json.load(catalog_file)
    validators = None if args.parse_only else stream_validators(catalog, args.formats)
    if args.transcript:
        with open(args.transcript, encoding="utf-8") as transcript:
            records, invalid = count_records(transcript, validators)
    else:
        records, invalid = count_records(sys.stdin, validators)
    print(f"records={records} invalid={invalid}")


if __name__ == "__main__":
    main()
