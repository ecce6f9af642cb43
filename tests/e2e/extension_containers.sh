#!/usr/bin/env bash
# The reference Meltano extension as a container image, run by conform through RUNTIME (podman,
# or the docker CLI against podman's Docker-compatible socket): the suite passes, faulty variants
# are caught by the same checks as natively, and no container is left behind (each case checks
# the containers of its own conform process: other engineers' runs share the runtime).
#
#     extension_containers.sh RUNTIME CONFORM STATIC_EXTENSION_BINARY
#
# The image holds the static binary under its three names in /usr/local/bin (no shell, no
# libraries); conform mounts its static probe in place of the wrapped program. Exits 77 (reported
# as SKIPPED, never passed) with the reason when RUNTIME cannot run containers.
set -uo pipefail

runtime=$1 conform=$2 binary=$3
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/scripts/containers/env.sh"
image=localhost/conform-refext:test
work=$(mktemp -d /tmp/conform-mx-containers-XXXXXX)
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

# Import the image (again only when the binary changed).
podman_args=(--storage-driver=vfs)
digest=$(sha256sum "$binary" | cut -d' ' -f1)
current=$(podman "${podman_args[@]}" image inspect --format '{{index .Config.Labels "conform.sha256"}}' \
    "$image" 2>/dev/null || true)
if [[ $current != "$digest" ]]; then
    rootfs="$work/rootfs"
    install -d -m 0755 "$rootfs/usr/local/bin"
    install -d -m 1777 "$rootfs/tmp"
    install -m 0755 "$binary" "$rootfs/usr/local/bin/conform-reference-extension"
    for name in refext_extension refext_invoker reftool; do
        ln -s conform-reference-extension "$rootfs/usr/local/bin/$name"
    done
    tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . |
        podman "${podman_args[@]}" import --change "LABEL conform.sha256=$digest" - "$image" \
            >/dev/null || { echo "FAIL: cannot import $image"; exit 1; }
fi

global_args=()
[[ $runtime == podman ]] && global_args=(--global-arg=--storage-driver=vfs)
case_args=(--conform "$conform" --image "$image" --runtime "$runtime" "${global_args[@]}")

failed=0
run_case() {
    if ! python3 "$repo/tests/e2e/extension_case.py" "${case_args[@]}" "$@"; then
        failed=$((failed + 1))
    fi
}

run_case --expect none
run_case --fault describe_not_json --expect mx.describe_json --only mx-describe
run_case --fault invoker_resplits --expect mx.passthrough --only mx-passthrough
run_case --fault invoker_swallows_exit --expect mx.passthrough --only mx-passthrough
run_case --fault initialize_not_idempotent --expect mx.initialize --only mx-initialize
run_case --fault stdout_noise --expect mx.stdout_quiet --only mx-stdio
run_case --fault log_json_broken --expect mx.log_json --only mx-log-json
run_case --fault reads_stdin --expect mx.stdin_unused --only mx-stdin --stdin-timeout 5
echo "$runtime: $failed case(s) failed"
[[ $failed == 0 ]]
