#!/usr/bin/env bash
# README command 1: install what is missing, build, and run the full default suite against the
# bundled reference connector, printing the report.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build --target conform conform-reference-connector
exec build/src/app/conform run --test-config fixtures/reference-connector/conform.json "$@"
