#pragma once

// Internal to the process module: starting a child with Boost.Process, behind a header that does
// not include Boost.

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace conform::process::detail {

// Owns one file descriptor and closes it when destroyed.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : m_fd(fd) {}
    ~UniqueFd() { reset(); }
    UniqueFd(UniqueFd&& other) noexcept : m_fd(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return m_fd; }
    explicit operator bool() const { return m_fd >= 0; }
    int release();
    void reset();

private:
    int m_fd = -1;
};

struct SpawnOptions {
    // A pipe for stdin instead of /dev/null.
    bool pipe_stdin = false;
    // Pipes for stdout and stderr instead of /dev/null.
    bool capture_output = true;
    // The child's environment is conform's with `env` applied; false: `env` alone.
    bool inherit_environment = true;
};

// A started child. The parent's pipe ends are close-on-exec and non-blocking; unused ones are
// empty. The child is not reaped: the caller owns `pid`.
struct Spawned {
    pid_t pid = 0;
    UniqueFd stdin_fd;
    // The read end of the stdin pipe, kept (never read) so that what the child left unread can be
    // counted (FIONREAD) once it ended.
    UniqueFd stdin_reader;
    UniqueFd stdout_fd;
    UniqueFd stderr_fd;
};

// Starts `argv` (no shell; argv[0] without a slash is looked up on PATH) as the leader of a new
// process group, with `env` added to the inherited environment (or alone, without
// options.inherit_environment), in `working_dir` unless empty.
// The child starts with no blocked signals and SIGPIPE at its default action. Throws
// conform::Error (internal) "cannot start 'argv0': <reason>" when it cannot be started.
Spawned spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
              const std::filesystem::path& working_dir, SpawnOptions options);

}  // namespace conform::process::detail
