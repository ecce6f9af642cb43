#!/usr/bin/env bash
# Installs what conform needs to build and test on Debian 12 (run as root). Skips what is there.
set -euo pipefail

packages=(g++ cmake ninja-build rapidjson-dev libboost-dev libboost-filesystem-dev
          libfmt-dev libcli11-dev doctest-dev libpcre2-dev pkg-config python3 clang-format git)
if [[ "${1:-}" == "--with-containers" ]]; then
    packages+=(podman runc)
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$package")
done
if ((${#missing[@]})); then
    echo "conform: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
