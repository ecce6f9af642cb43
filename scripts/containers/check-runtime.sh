#!/usr/bin/env bash
# Exits 0 when RUNTIME (podman by default, or a docker-compatible CLI) can run a container here,
# piping stdin and stdout; otherwise prints why on stdout and exits 77, the code test runners
# (ctest SKIP_RETURN_CODE, automake) report as SKIPPED. Tests that need a container runtime call it
# first so that a machine without one reports them as skipped, never as passed:
#
#     scripts/containers/check-runtime.sh [RUNTIME] || exit $?
#
# The probe image (localhost/conform-runtime-check:1) is made from the host's /bin/cat and its
# libraries, so neither a registry nor a compiler is needed.
set -uo pipefail

runtime=${1:-podman}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -z ${CONTAINERS_CONF:-} ]]; then
    source "$here/env.sh"
fi
source "$here/lib.sh"
conform_global_args_for "$runtime"
probe_image=localhost/conform-runtime-check:1

skip() {
    echo "SKIPPED: $runtime cannot run containers here: $*"
    exit 77
}

last_line() { grep -v '^[[:space:]]*$' "$1" | tail -n 1; }

command -v "$runtime" >/dev/null || skip "'$runtime' is not installed (not on PATH)"

log=$(mktemp)
rootfs=$(mktemp -d)
trap 'rm -rf "$log" "$rootfs"' EXIT

if [[ $(basename "$runtime") != podman ]]; then
    timeout 20 "$runtime" version --format '{{.Server.Version}}' >/dev/null 2>"$log" ||
        skip "no engine answers (DOCKER_HOST=${DOCKER_HOST:-unset}): $(last_line "$log")"
fi

probe_present() { "$runtime" "${global_args[@]}" image inspect "$probe_image" >/dev/null 2>&1; }
if ! probe_present && conform_take_import_lock && ! probe_present; then
    cat_binary=$(command -v cat)
    mkdir -p "$rootfs/bin"
    cp "$cat_binary" "$rootfs/bin/cat"
    for library in $(ldd "$cat_binary" | grep -o '/[^ ]*'); do
        cp --parents -L "$library" "$rootfs"
    done
    tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . |
        timeout 60 "$runtime" "${global_args[@]}" import - "$probe_image" >/dev/null 2>"$log" ||
        skip "importing a probe image failed: $(last_line "$log")"
fi

output=$(echo conform-probe | timeout 60 "$runtime" "${global_args[@]}" run --rm -i \
    --network none "$probe_image" /bin/cat 2>"$log")
status=$?
if [[ $status -ne 0 ]]; then
    skip "running a probe container failed (exit $status): $(last_line "$log")"
fi
if [[ $output != conform-probe ]]; then
    skip "a probe container did not echo its stdin (got '$output')"
fi
exit 0
