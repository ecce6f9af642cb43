#!/usr/bin/env bash
# Serves podman's Docker-compatible API on DIR/podman.sock so that the docker CLI (and conform's
# docker code path) can run containers on a machine without a Docker engine:
#
#     scripts/containers/docker-socket.sh start DIR   # prints export DOCKER_HOST=unix://...
#     DOCKER_HOST=unix://DIR/podman.sock docker run --rm -i localhost/conform-reference:test spec
#     scripts/containers/docker-socket.sh stop DIR
#
# The service uses the same storage driver as every other podman call (CONFORM_PODMAN_GLOBAL_ARGS,
# --storage-driver=vfs) so it sees the images imported with podman. `start` waits until the socket
# answers (at most 20 s); `stop` ends the service by the pid recorded in DIR/podman.pid.
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

stop_service() {
    [[ -f $pid_file ]] || return 0
    local pid
    pid=$(cat "$pid_file")
    if kill -TERM "$pid" 2>/dev/null; then
        for _ in $(seq 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pid_file" "$socket"
}

if [[ $action == stop ]]; then
    stop_service
    exit 0
fi

if [[ -f $pid_file ]] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
    echo "error: a service is already running for $dir (pid $(cat "$pid_file"))" >&2
    exit 1
fi
rm -f "$socket"
# A session of its own: callers that clean up their process group (conform's process runner,
# CI steps) must not take the service down with this script. Without CONFORM_RUN_ID: conform's
# runner kills every process that carries its run marker once the run ends.
setsid env -u CONFORM_RUN_ID podman "${global_args[@]}" system service --time=0 "unix://$socket" \
    </dev/null >"$log_file" 2>&1 &
echo $! >"$pid_file"

for _ in $(seq 200); do
    if [[ -S $socket ]] && podman --url "unix://$socket" version >/dev/null 2>&1; then
        echo "export DOCKER_HOST=unix://$socket"
        exit 0
    fi
    if ! kill -0 "$(cat "$pid_file")" 2>/dev/null; then
        break
    fi
    sleep 0.1
done
echo "error: podman's API service did not answer on $socket; its log:" >&2
cat "$log_file" >&2
stop_service
exit 1
