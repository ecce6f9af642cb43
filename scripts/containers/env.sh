# shellcheck shell=bash
# Podman settings for conform's container tests. Source it, do not run it:
#
#     source scripts/containers/env.sh
#     podman $CONFORM_PODMAN_GLOBAL_ARGS run --rm -i IMAGE spec
#
# Exports CONTAINERS_CONF (this folder's containers.conf: runc, cgroupfs, ulimits, no network by
# default) and CONFORM_PODMAN_GLOBAL_ARGS (the storage driver every podman call must share, or
# images imported by one call are invisible to the next).

conform_containers_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export CONTAINERS_CONF="$conform_containers_dir/containers.conf"
export CONFORM_PODMAN_GLOBAL_ARGS="--storage-driver=vfs"
unset conform_containers_dir
