# shellcheck shell=bash
# Helpers for the container scripts; source it.

# Sets the array global_args to what every call of RUNTIME needs: the shared storage driver for
# podman, nothing for a docker-compatible CLI.
conform_global_args_for() {
    global_args=()
    if [[ $(basename "$1") == podman ]]; then
        read -r -a global_args <<<"${CONFORM_PODMAN_GLOBAL_ARGS---storage-driver=vfs}"
    fi
}
