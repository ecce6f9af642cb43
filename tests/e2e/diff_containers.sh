#!/usr/bin/env bash
# `conform diff` between two images of the reference connector under podman: the control image,
# and target images that differ only by CONFORM_REF_CHANGES baked into their environment. One
# target carries breaking changes of each kind (spec, catalog, records), one only harmless ones.
#
#     diff_containers.sh CONFORM STATIC_CONNECTOR FIXTURES
#
# Exits 77 (reported as SKIPPED, never passed) with the reason when podman cannot run containers.
set -uo pipefail

conform=$1 binary=$2 fixtures=$3
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$repo/scripts/containers/env.sh"
source "$repo/scripts/containers/lib.sh"
control=$(conform_build_image conform-reference "$binary")
podman_args=(--storage-driver=vfs)

"$repo/scripts/containers/check-runtime.sh" podman || exit $?
"$repo/scripts/containers/import-binary-image.sh" "$binary" "$control" podman >/dev/null || exit 1

rootfs=$(mktemp -d /tmp/conform-diff-rootfs-XXXXXX)
targets=()
cleanup() {
    rm -rf "$rootfs"
    for target in "${targets[@]}"; do
        podman "${podman_args[@]}" rmi -f "$target" >/dev/null 2>&1
    done
}
trap cleanup EXIT
install -m 0755 "$binary" "$rootfs/connector"
install -d -m 1777 "$rootfs/tmp"

# A target image: the same binary with CONFORM_REF_CHANGES set in the image's environment.
make_target() {
    local name=$1
    targets+=("$name")
    tar --numeric-owner --owner=0 --group=0 -C "$rootfs" -c . |
        podman "${podman_args[@]}" import --change 'ENTRYPOINT ["/connector"]' \
            --change "ENV CONFORM_REF_CHANGES=$2" - "$name" >/dev/null
}

failed=0
run_case() {
    local target=$1
    shift
    if ! python3 "$repo/tests/e2e/diff_case.py" --conform "$conform" --connector "$binary" \
        --fixtures "$fixtures" --image "$control" --target-image "$target" --runtime podman \
        --global-arg=--storage-driver=vfs "$@" -- --only core; then
        failed=$((failed + 1))
    fi
}

breaking=localhost/conform-reference-diff-$$:breaking
harmless=localhost/conform-reference-diff-$$:harmless
make_target "$breaking" spec_secret_unmarked,narrowed_type,changed_primary_key,dropped_records,new_field ||
    exit 1
make_target "$harmless" new_stream,new_field,widened_type,new_enum_value,spec_new_optional_field ||
    exit 1
run_case "$breaking" --changes image \
    --expect-breaking spec.secret_unmarked,catalog.type_narrowed,catalog.primary_key_changed,records.removed \
    --expect-harmless catalog.field_added
run_case "$harmless" --changes image --expect-breaking none \
    --expect-harmless catalog.stream_added,catalog.field_added,catalog.type_widened,catalog.enum_extended,spec.property_added

echo "podman diff: $failed case(s) failed"
[[ $failed == 0 ]]
