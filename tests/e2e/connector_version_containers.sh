#!/usr/bin/env bash
# The connector version in reports, read from image labels under podman: io.airbyte.version wins
# over org.opencontainers.image.version, which is used alone, and an image with neither is
# "unknown". The images are the static reference connector with labels, made for this test.
#
#     connector_version_containers.sh CONFORM STATIC_CONNECTOR FIXTURES
#
# Exits 77 (reported as SKIPPED, never passed) with the reason when podman cannot run containers.
set -uo pipefail

conform=$1 binary=$2 fixtures=$3
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/scripts/containers/env.sh"
podman_args=(--storage-driver=vfs)

"$repo/scripts/containers/check-runtime.sh" podman || exit $?

rootfs=$(mktemp -d /tmp/conform-version-rootfs-XXXXXX)
images=()
cleanup() {
    rm -rf "$rootfs" "$rootfs.log"
    for image in "${images[@]}"; do
        podman "${podman_args[@]}" rmi -f "$image" >/dev/null 2>&1
    done
}
trap cleanup EXIT
install -m 0755 "$binary" "$rootfs/connector" || exit 1
install -d -m 1777 "$rootfs/tmp" || exit 1

# make_image NAME [LABEL=VALUE...]
make_image() {
    local name=$1
    shift
    local changes=(--change 'ENTRYPOINT ["/connector"]')
    for label in "$@"; do
        changes+=(--change "LABEL $label")
    done
    images+=("$name")
    tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . |
        podman "${podman_args[@]}" import "${changes[@]}" - "$name" >/dev/null 2>"$rootfs.log" ||
        { cat "$rootfs.log" >&2; return 1; }
}

both=localhost/conform-reference-version-$$:both
oci=localhost/conform-reference-version-$$:oci
bare=localhost/conform-reference-version-$$:bare
make_image "$both" io.airbyte.version=1.2.3 org.opencontainers.image.version=9.9.9 || exit 1
make_image "$oci" org.opencontainers.image.version=0.4.1 || exit 1
make_image "$bare" || exit 1

python3 "$repo/tests/e2e/connector_version.py" --conform "$conform" --connector "$binary" \
    --fixtures "$fixtures" --runtime podman --global-arg=--storage-driver=vfs \
    --image "$both=1.2.3=io.airbyte.version" \
    --image "$oci=0.4.1=org.opencontainers.image.version" \
    --image "$bare=unknown=-"
