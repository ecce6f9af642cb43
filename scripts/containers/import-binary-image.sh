#!/usr/bin/env bash
# Makes a connector image from one statically linked binary, without a registry:
#
#     scripts/containers/import-binary-image.sh BINARY IMAGE [RUNTIME]
#
# The image holds only /connector (the binary, as ENTRYPOINT, so the image takes the Airbyte
# subcommand as its first argument) and an empty /tmp. RUNTIME is podman (default) or a
# docker-compatible CLI. Idempotent: the image is labelled with the binary's SHA-256 and is only
# re-imported when the binary changed (the replaced image is removed so vfs storage does not grow).
# Imports on one machine take turns (conform_take_import_lock). Prints the image name.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
    echo "usage: $0 BINARY IMAGE [RUNTIME]" >&2
    exit 2
fi
binary=$1
image=$2
runtime=${3:-podman}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -z ${CONTAINERS_CONF:-} ]]; then
    source "$here/env.sh"
fi
source "$here/lib.sh"
conform_global_args_for "$runtime"

if [[ ! -f $binary || ! -x $binary ]]; then
    echo "error: '$binary' is not an executable file" >&2
    exit 2
fi
if LC_ALL=C readelf -l "$binary" 2>/dev/null | grep -q 'program interpreter'; then
    echo "error: '$binary' is dynamically linked; the image has no libraries (build it with" \
        "-static, e.g. the CMake option CONFORM_STATIC_FIXTURES=ON)" >&2
    exit 2
fi

digest=$(sha256sum "$binary" | cut -d' ' -f1)
conform_take_import_lock
old_id=""
if current=$("$runtime" "${global_args[@]}" image inspect \
    --format '{{index .Config.Labels "conform.sha256"}} {{.Id}}' "$image" 2>/dev/null); then
    if [[ ${current%% *} == "$digest" ]]; then
        echo "$image"
        exit 0
    fi
    old_id=${current##* }
fi

rootfs=$(mktemp -d)
trap 'rm -rf "$rootfs" "$rootfs.log"' EXIT
install -m 0755 "$binary" "$rootfs/connector"
install -d -m 1777 "$rootfs/tmp"
tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . |
    "$runtime" "${global_args[@]}" import \
        --change 'ENTRYPOINT ["/connector"]' \
        --change "LABEL conform.sha256=$digest" \
        - "$image" >/dev/null 2>"$rootfs.log" || { cat "$rootfs.log" >&2; exit 1; }

if [[ -n $old_id ]]; then
    "$runtime" "${global_args[@]}" rmi "$old_id" >/dev/null 2>&1 || true
fi
echo "$image"
