#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what .clang-format makes of it (`-i` to fix them).
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t files < <(git ls-files '*.cpp' '*.hpp' | grep -v '^tests/data/')
if [[ "${1:-}" == "-i" ]]; then
    clang-format -i "${files[@]}"
else
    clang-format --dry-run --Werror "${files[@]}"
    echo "clang-format: ${#files[@]} files clean"
fi
