#!/usr/bin/env bash
# The reference connector as a container image, run by conform through RUNTIME (podman, or the
# docker CLI against podman's Docker-compatible socket): the full suite passes, each faulty variant
# CASES_FILE names for RUNTIME is caught by the same checks as natively, and no container is left
# behind.
#
#     containers.sh RUNTIME CONFORM STATIC_CONNECTOR FIXTURES CASES_FILE
#
# The cases run CONFORM_CONTAINER_JOBS at a time (default 2), longest first; each case's output is
# printed when it ends. Each case checks that no container its own conform run started is left
# behind (by the run's pid in the container names; the other cases, and other runs on the machine,
# are not this case's to judge). Exits 77 (reported as SKIPPED, never passed) with the reason when
# RUNTIME cannot run containers.
set -uo pipefail

runtime=$1 conform=$2 binary=$3 fixtures=$4 cases=$5
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/scripts/containers/env.sh"
source "$repo/scripts/containers/lib.sh"
jobs=${CONFORM_CONTAINER_JOBS:-2}

# name|arguments of conform_case.py, in the order they start: the full suite, then each faulty
# variant limited to the checks it must trip (and so to the scenarios listing them). CASES_FILE is
# read before anything else, so that a wrong line is reported without a runtime.
[[ -r $cases ]] || { echo "$cases: cannot read this cases file"; exit 1; }
case_lines=("full|--expect none")
line_number=0
while read -r runtimes fault expected extra; do
    line_number=$((line_number + 1))
    [[ -z $runtimes || $runtimes == \#* ]] && continue
    if [[ $runtimes != every && $runtimes != podman ]]; then
        echo "$cases:$line_number: runtimes is '$runtimes', expected 'every' or 'podman'"
        exit 1
    fi
    [[ $runtimes == every || $runtimes == "$runtime" ]] || continue
    case_lines+=("$fault|--fault $fault --expect $expected --only $expected $extra")
done <"$cases"

image=$(conform_build_image conform-reference "$binary")
work=$(mktemp -d /tmp/conform-containers-XXXXXX)
declare -A running=()  # pid of each running case -> its name
trap 'cleanup' EXIT

cleanup() {
    for pid in "${!running[@]}"; do
        kill "$pid" 2>/dev/null
    done
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
# The read timeout (which bounds each wait of the tailing read to a third of it) and the grace
# period are limits that a correct connector never reaches; an engine that stalls for a moment
# can (the docker CLI reaches the container only through podman's API service: a stall during a
# stop made a correct connector miss a 1 s grace period). So they are generous here; the faults
# that must reach them set their own in CASES_FILE.
case_args=(--conform "$conform" --fixtures "$fixtures" --image "$image" --runtime "$runtime"
           "${global_args[@]}" --read-timeout 30 --grace-seconds 10)

failed=0

start_case() {
    local name=${1%%|*}
    local arguments
    read -r -a arguments <<<"${1#*|}"
    python3 "$repo/tests/e2e/conform_case.py" "${case_args[@]}" "${arguments[@]}" \
        </dev/null >"$work/$name.log" 2>&1 &
    running[$!]=$name
}

# Waits until one running case exits (wait -n: an event), prints its output and counts it.
finish_one() {
    local pid status=0
    wait -n -p pid || status=$?
    echo "--- $runtime: ${running[$pid]}: $([[ $status == 0 ]] && echo ok || echo "FAILED ($status)")"
    cat "$work/${running[$pid]}.log"
    [[ $status == 0 ]] || failed=$((failed + 1))
    unset "running[$pid]"
}

for line in "${case_lines[@]}"; do
    while ((${#running[@]} >= jobs)); do finish_one; done
    start_case "$line"
done
while ((${#running[@]} > 0)); do finish_one; done

echo "$runtime: $failed of ${#case_lines[@]} case(s) failed"
[[ $failed == 0 ]]
