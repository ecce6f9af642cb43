#!/usr/bin/env bash
# Installs what conform needs to build and test on Debian 12 (run as root). Skips what is there.
set -euo pipefail

packages=(g++ cmake ninja-build rapidjson-dev libboost-dev libboost-filesystem-dev
          libfmt-dev libcli11-dev doctest-dev libpcre2-dev libyaml-cpp-dev zlib1g-dev pkg-config python3 clang-format git
          python3-yaml  # loads the CI recipes of examples/ in e2e.ci_examples
          chromium)  # renders the HTML report in e2e.html_report_browser
# node and npm run the faros-airbyte-cdk test connector (tests/connectors/faros-cdk). Checked by
# command, not by package: a nodejs from elsewhere (e.g. NodeSource's, which bundles npm) will do,
# and Debian's npm package cannot be installed beside it.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
if [[ "${1:-}" == "--with-containers" ]]; then
    packages+=(podman runc)
fi
# scripts/tidy.sh (CI): clang-tidy with the committed .clang-tidy.
if [[ "${CI:-}" == "true" ]]; then
    packages+=(clang-tidy)
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

# The faros-airbyte-cdk test connector's npm dependencies, exactly as its package-lock.json pins
# them (Debian 12's npm 9.2 reads that lockfile; npm warns that faros-airbyte-cdk asks for a newer
# node, but the connector runs on Debian's node 18). Without them its e2e tests are skipped.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
faros="$root/tests/connectors/faros-cdk"
if [[ ! -f "$faros/node_modules/faros-airbyte-cdk/package.json" ]]; then
    echo "conform: installing the faros-airbyte-cdk test connector's npm packages (npm ci in $faros)"
    if ! npm ci --prefix "$faros" --no-audit --no-fund --loglevel=error; then
        echo "conform: npm ci failed in $faros; its e2e tests (e2e.real.faros_cdk*) will be skipped" >&2
    fi
fi
# Faros's real destination (npm airbyte-faros-destination), pinned the same way; without it
# e2e.real.faros_destination* are skipped.
faros_destination="$root/tests/connectors/faros-destination"
if [[ ! -f "$faros_destination/node_modules/airbyte-faros-destination/package.json" ]]; then
    echo "conform: installing the Faros destination's npm packages (npm ci in $faros_destination)"
    if ! npm ci --prefix "$faros_destination" --no-audit --no-fund --loglevel=error; then
        echo "conform: npm ci failed in $faros_destination; e2e.real.faros_destination* will be skipped" >&2
    fi
fi
