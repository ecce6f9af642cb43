#!/usr/bin/env bash
# The reference connector as a container image, run by conform through RUNTIME (podman, or the
# docker CLI against podman's Docker-compatible socket): the full suite passes, each faulty variant
# is caught by the same checks as natively, and no container is left behind.
#
#     containers.sh RUNTIME CONFORM STATIC_CONNECTOR FIXTURES CASES_FILE
#
# Exits 77 (reported as SKIPPED, never passed) with the reason when RUNTIME cannot run containers.
set -uo pipefail

runtime=$1 conform=$2 binary=$3 fixtures=$4 cases=$5
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/scripts/containers/env.sh"
image=localhost/conform-reference:test
work=$(mktemp -d /tmp/conform-containers-XXXXXX)
trap 'cleanup' EXIT

cleanup() {
    if [[ $runtime == docker ]]; then
        "$repo/scripts/containers/docker-socket.sh" stop "$work" >/dev/null 2>&1
    fi
    rm -rf "$work"
}

"$repo/scripts/containers/check-runtime.sh" podman || exit $?
if [[ $runtime == docker ]]; then
    command -v docker >/dev/null || { echo "SKIPPED: no docker CLI on PATH"; exit 77; }
    eval "$("$repo/scripts/containers/docker-socket.sh" start "$work")" ||
        { echo "SKIPPED: cannot start podman's Docker API socket"; exit 77; }
    "$repo/scripts/containers/check-runtime.sh" docker || exit $?
fi
"$repo/scripts/containers/import-binary-image.sh" "$binary" "$image" podman >/dev/null || exit 1

global_args=()
[[ $runtime == podman ]] && global_args=(--global-arg=--storage-driver=vfs)
case_args=(--conform "$conform" --fixtures "$fixtures" --image "$image" --runtime "$runtime"
           "${global_args[@]}")

failed=0
run_case() {
    if ! python3 "$repo/tests/e2e/conform_case.py" "${case_args[@]}" "$@"; then
        failed=$((failed + 1))
    fi
}

# Each case checks that no container its own conform run started is left behind (by the run's
# pid in the container names; other runs on the machine are not this test's to judge).
run_case --expect none
# Each faulty variant, limited to the checks it must trip (and so to the scenarios listing them).
while read -r fault expected extra; do
    [[ -z $fault || $fault == \#* ]] && continue
    # shellcheck disable=SC2086
    run_case --fault "$fault" --expect "$expected" --only "$expected" $extra
done <"$cases"

echo "$runtime: $failed case(s) failed"
[[ $failed == 0 ]]
