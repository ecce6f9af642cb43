#!/usr/bin/env bash
# Serves podman's Docker-compatible API on DIR/podman.sock so that the docker CLI (and conform's
# docker code path) can run containers on a machine without a Docker engine:
#
#     scripts/containers/docker-socket.sh start DIR   # prints export DOCKER_HOST=unix://...
#     DOCKER_HOST=unix://DIR/podman.sock docker run --rm -i localhost/conform-reference:test spec
#     scripts/containers/docker-socket.sh stop DIR
#
# The service uses the same storage driver as every other podman call (CONFORM_PODMAN_GLOBAL_ARGS,
# --storage-driver=vfs) so it sees the images imported with podman. It is socket-activated
# (socket-service.py): the socket listens before podman starts, so a client's first request waits
# for the service to be ready instead of anyone polling for it; `start` returns once the service
# answered its first request (a `version`). `stop` ends the service by the pid recorded in
# DIR/podman.pid, if that pid is still the service, and waits for it to exit.
set -euo pipefail

if [[ $# -ne 2 || ( $1 != start && $1 != stop ) ]]; then
    echo "usage: $0 start|stop DIR" >&2
    exit 2
fi
action=$1
dir=$2
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -z ${CONTAINERS_CONF:-} ]]; then
    source "$here/env.sh"
fi
read -r -a global_args <<<"${CONFORM_PODMAN_GLOBAL_ARGS---storage-driver=vfs}"

mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
socket="$dir/podman.sock"
pid_file="$dir/podman.pid"
log_file="$dir/podman-service.log"

service="$here/socket-service.py"

stop_service() {
    python3 "$service" stop "$pid_file" "$socket"
}

if [[ $action == stop ]]; then
    stop_service
    exit 0
fi

if [[ -f $pid_file ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    echo "error: a service is already running for $dir (pid $(cat "$pid_file"))" >&2
    exit 1
fi
python3 "$service" start "$socket" "$pid_file" "$log_file" -- \
    podman "${global_args[@]}" system service --time=0
# The first answer, whenever the service is ready; the limit only ends a service that hangs.
if timeout 300 podman --url "unix://$socket" version >/dev/null 2>&1; then
    echo "export DOCKER_HOST=unix://$socket"
    exit 0
fi
echo "error: podman's API service did not answer on $socket; its log:" >&2
cat "$log_file" >&2
stop_service
exit 1
