#!/usr/bin/env bash
# Runs clang-tidy (the committed .clang-tidy: bug-prone patterns, needless copies, naming) on every
# source file of src/, with the compile commands of the plain build (build/, made by
# scripts/test.sh). Prints the findings and exits non-zero when there is one. CI runs it after
# the tests.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ! -f build/compile_commands.json ]]; then
    cmake --preset default >/dev/null
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
run-clang-tidy -p build -j "$(nproc)" -quiet "$(pwd)/src/" >"$log" 2>&1 || status=$?
grep -E "(error|warning):" -A3 "$log" | grep -v -E "warnings generated|^Suppressed" || true
if ((status != 0)); then
    echo "conform: clang-tidy found problems (above)" >&2
fi
exit "$status"
