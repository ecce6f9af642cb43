#!/usr/bin/env bash
# README command 2: build everything with warnings as errors and run every test (unit tests,
# the reference connector against conform, each faulty variant, containers where a runtime can
# run). `--sanitize` does the same in an ASan/UBSan build (build-asan/), without the container
# cases.
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir=build
options=(-DCONFORM_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo)
selection=()
# The container cases, one at a time (RESOURCE_LOCK), mostly wait for podman: a third test keeps
# both cores busy meanwhile (a fresh clone's plain ctest, 2 cores: 881 s at -j3, 995 s at -j2).
jobs=3
if [[ "${1:-}" == "--sanitize" ]]; then
    build_dir=build-asan
    options=(-DCONFORM_WERROR=ON -DCONFORM_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug)
    # The container cases exercise the runtime far more than conform, and memory bounds mean
    # nothing under ASan: both run in the plain build.
    selection=(-LE "containers|memory")
    jobs=2
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
fi

scripts/install-deps.sh --with-containers
cmake -S . -B "$build_dir" -G Ninja "${options[@]}" >/dev/null
cmake --build "$build_dir"
ctest --test-dir "$build_dir" --output-on-failure -j"$jobs" "${selection[@]}"
