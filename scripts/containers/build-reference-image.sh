#!/usr/bin/env bash
# Imports the reference connector as the image localhost/conform-reference:test, without a
# registry:
#
#     cmake -S . -B build -DCONFORM_STATIC_FIXTURES=ON && ninja -C build conform-reference-connector
#     scripts/containers/build-reference-image.sh build [RUNTIME]
#
# The binary must be statically linked (CONFORM_STATIC_FIXTURES=ON): the image holds nothing else.
# RUNTIME is podman (default) or a docker-compatible CLI. Idempotent. Prints the image name.
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: $0 BUILD_DIR [RUNTIME]" >&2
    exit 2
fi
binary="$1/fixtures/reference-connector/conform-reference-connector"
if [[ ! -e $binary ]]; then
    echo "error: $binary not found; build the target conform-reference-connector with" \
        "-DCONFORM_STATIC_FIXTURES=ON first" >&2
    exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/import-binary-image.sh" "$binary" localhost/conform-reference:test "${2:-podman}"
