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

# Prints the image name under which the container tests of one build import BINARY:
# localhost/NAME:test-<the first 12 hex digits of the SHA-256 of the binary's absolute path>. Two
# checkouts (two builds) on one machine share podman's storage; with one name for all, each build's
# import replaced (and removed) the other's image while its tests ran, and one build's tests could
# run the other build's connector.
conform_build_image() {
    local key
    key=$(realpath "$2" | sha256sum | cut -c1-12)
    echo "localhost/$1:test-$key"
}

# Takes the machine-wide lock of image imports (on fd 9) until the calling script exits, so that
# two tests importing the same image at once (the podman and the docker tests share podman's
# storage) import it once: the second one then finds it. flock waits for the release, not a clock.
conform_take_import_lock() {
    exec 9>"${TMPDIR:-/tmp}/conform-image-import.lock"
    flock 9
}
