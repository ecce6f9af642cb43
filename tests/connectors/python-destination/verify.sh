#!/bin/sh
# Prints what destination-sqlite holds in DB ($1) as JSON lines {"stream": S, "data": {...}}:
# one table _airbyte_raw_S per stream, the record's data as JSON text in _airbyte_data.
set -eu
db="$1"
[ -f "$db" ] || exit 0
for t in $(sqlite3 -readonly "$db" "SELECT name FROM sqlite_master WHERE type='table' AND name LIKE '\_airbyte\_raw\_%' ESCAPE '\' ORDER BY name"); do
  s=${t#_airbyte_raw_}
  sqlite3 -readonly -json "$db" "SELECT _airbyte_data FROM \"$t\" ORDER BY rowid" |
    python3 -c 'import json,sys
text = sys.stdin.read().strip()
for row in json.loads(text) if text else []:
    print(json.dumps({"stream": sys.argv[1], "namespace": None, "data": json.loads(row["_airbyte_data"])}))' "$s"
done
