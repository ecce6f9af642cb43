#!/usr/bin/env bash
# Puts conform and everything it links into one folder that runs in any Linux image of the same
# architecture: the binary, its shared libraries (ldd), the dynamic loader as ld.so, and
# run-conform, which starts conform through that loader. Run it where conform was built, e.g.
# while making the conform image that the Kubernetes recipe's init container copies from:
#
#     bundle-conform.sh build/src/app/conform /opt/conform
set -euo pipefail

if [[ $# -ne 2 ]]; then
    echo "usage: $0 CONFORM_BINARY DEST" >&2
    exit 2
fi
binary=$1 dest=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

mkdir -p "$dest/lib"
install -m 0755 "$binary" "$dest/conform"
install -m 0755 "$here/run-conform" "$dest/run-conform"
loader=""
# Lines are "libfmt.so.9 => /lib/x86_64-linux-gnu/libfmt.so.9 (0x...)", "linux-vdso.so.1 (0x...)"
# (no file) or "/lib64/ld-linux-x86-64.so.2 (0x...)" (the loader).
while read -r first arrow path _; do
    if [[ $arrow == "=>" && $path == /* ]]; then
        cp -L "$path" "$dest/lib/"
    elif [[ $first == /* ]]; then
        loader=$first
    fi
done < <(ldd "$binary")
if [[ -z $loader ]]; then
    echo "error: ldd names no dynamic loader for '$binary' (is it statically linked?)" >&2
    exit 1
fi
cp -L "$loader" "$dest/ld.so"
echo "$dest"
