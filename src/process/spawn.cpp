// Boost 1.74 offers vfork() only under old _XOPEN_SOURCE levels, although glibc has it. A child
// that shares conform's memory until exec copies no page tables (under ASan, with its shadow
// memory, the sanitized tests took a quarter less time without fork()). The child side (ChildSetup,
// Boost's pipe handlers) makes system calls only; its error path stores a message short enough to
// stay in the executor's string without allocating.
#define BOOST_POSIX_HAS_VFORK 1
#include "process/spawn.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/process/child.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>
#include <boost/process/pipe.hpp>
#include <boost/process/posix.hpp>
#include <cerrno>
#include <string_view>
#include <system_error>

#include "util/error.hpp"

extern char** environ;

namespace conform::process::detail {

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
        reset();
        m_fd = other.release();
    }
    return *this;
}

int UniqueFd::release() {
    int fd = m_fd;
    m_fd = -1;
    return fd;
}

void UniqueFd::reset() {
    if (m_fd >= 0) {
        ::close(m_fd);
        m_fd = -1;
    }
}

namespace {

namespace bp = boost::process;

constexpr int k_stdout_pipe_bytes = 1 << 20;

[[noreturn]] void throw_cannot_start(const std::string& argv0, const std::string& reason) {
    throw_internal_error("cannot start '" + argv0 + "': " + reason);
}

bool is_executable_file(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

std::string search_path_variable(const std::map<std::string, std::string>& env) {
    if (auto it = env.find("PATH"); it != env.end()) {
        return it->second;
    }
    const char* inherited = ::getenv("PATH");
    return inherited != nullptr ? inherited : "/usr/local/bin:/usr/bin:/bin";
}

// Returns the file to execute for `name`, or "" when PATH has no executable of that name.
std::string resolve_executable(const std::string& name,
                               const std::map<std::string, std::string>& env) {
    if (name.find('/') != std::string::npos) {
        return name;
    }
    std::string search_path = search_path_variable(env);
    std::string_view dirs = search_path;
    while (true) {
        std::size_t colon = dirs.find(':');
        std::string_view dir = dirs.substr(0, colon);
        std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
        if (is_executable_file(candidate)) {
            return candidate;
        }
        if (colon == std::string_view::npos) {
            return "";
        }
        dirs.remove_prefix(colon + 1);
    }
}

// "NAME=value" entries: the inherited environment (when `inherit`) with `overrides` applied.
std::vector<std::string> build_environment(const std::map<std::string, std::string>& overrides,
                                           bool inherit) {
    std::vector<std::string> entries;
    for (char** entry = inherit ? environ : nullptr; entry != nullptr && *entry != nullptr;
         ++entry) {
        std::string_view text(*entry);
        std::string name(text.substr(0, text.find('=')));
        if (!overrides.contains(name)) {
            entries.emplace_back(text);
        }
    }
    for (const auto& [name, value] : overrides) {
        entries.push_back(name);
        entries.back().append("=").append(value);
    }
    return entries;
}

std::vector<char*> null_terminated(std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    pointers.reserve(strings.size() + 1);
    for (std::string& text : strings) {
        pointers.push_back(text.data());
    }
    pointers.push_back(nullptr);
    return pointers;
}

struct Pipe {
    UniqueFd read_end;
    UniqueFd write_end;
};

Pipe make_pipe(const std::string& argv0) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        throw_cannot_start(argv0, std::strerror(errno));
    }
    return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

void set_non_blocking(const UniqueFd& fd) {
    int flags = ::fcntl(fd.get(), F_GETFL);
    if (flags >= 0) {
        ::fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK);
    }
}

void reap_blocking(pid_t pid) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
}

// Sets the executable, argv (argv[0] kept as given, empty arguments allowed) and environment,
// and prepares the child between vfork and exec. Only async-signal-safe calls run in the child,
// which shares conform's memory: it writes nothing but the executor's error.
class ChildSetup : public bp::extend::handler {
public:
    ChildSetup(const char* executable, char* const* argv, char** envp, const char* working_dir)
        : m_executable(executable),
          m_argv(argv),
          m_envp(envp),
          m_working_dir(working_dir),
          m_parent(::getpid()) {}

    template <typename Executor>
    void on_setup(Executor& executor) const {
        executor.exe = m_executable;
        executor.cmd_line = m_argv;
        executor.env = m_envp;
    }

    template <typename Executor>
    void on_exec_setup(Executor& executor) const {
        // A group of its own: Ctrl-C in the terminal does not reach it, and conform can signal
        // the connector together with everything it started.
        if (::setpgid(0, 0) != 0) {
            fail_in_child(executor, "setpgid");
        }
        // The connector dies with conform, even when conform is killed with SIGKILL. The check
        // of the parent closes the race with a conform that died before prctl().
        if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
            fail_in_child(executor, "prctl");
        }
        if (::getppid() != m_parent) {
            ::_exit(127);
        }
        // conform ignores SIGPIPE and a signal thread may block signals; neither must leak into
        // the connector.
        sigset_t no_signals;
        ::sigemptyset(&no_signals);
        ::sigprocmask(SIG_SETMASK, &no_signals, nullptr);
        struct sigaction default_action {};
        default_action.sa_handler = SIG_DFL;
        ::sigaction(SIGPIPE, &default_action, nullptr);
        // Descriptors opened by other threads without O_CLOEXEC (e.g. another run's pipes) would
        // keep those pipes open for as long as this child lives.
        ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
        if (m_working_dir != nullptr && ::chdir(m_working_dir) != 0) {
            fail_in_child(executor, "chdir");
        }
    }

    // Boost loses the pid of a child whose exec failed; reap it here so no zombie is left.
    template <typename Executor>
    void on_error(Executor& executor, const std::error_code&) const {
        if (executor.pid > 0) {
            reap_blocking(executor.pid);
        }
    }

private:
    template <typename Executor>
    static void fail_in_child(Executor& executor, const char* what) {
        executor.set_error(std::error_code(errno, std::system_category()), what);
        ::_exit(127);
    }

    const char* m_executable;
    char* const* m_argv;
    char** m_envp;
    const char* m_working_dir;
    pid_t m_parent;
};

// Takes the parent's end out of a Boost pipe whose other end Boost hands to the child.
UniqueFd take_read_end(bp::pipe& pipe) {
    UniqueFd fd(pipe.native_source());
    pipe.assign_source(-1);
    return fd;
}

UniqueFd take_write_end(bp::pipe& pipe) {
    UniqueFd fd(pipe.native_sink());
    pipe.assign_sink(-1);
    return fd;
}

bp::pipe boost_pipe(const std::string& argv0) {
    Pipe fds = make_pipe(argv0);
    int read_end = fds.read_end.release();
    return bp::pipe(read_end, fds.write_end.release());
}

}  // namespace

Spawned spawn(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
              const std::filesystem::path& working_dir, SpawnOptions options) {
    if (argv.empty() || argv.front().empty()) {
        throw_internal_error("cannot start a process: the command is empty");
    }
    const std::string& argv0 = argv.front();
    std::string executable = resolve_executable(argv0, env);
    if (executable.empty()) {
        throw_cannot_start(argv0, std::strerror(ENOENT));
    }
    std::error_code dir_error;
    if (!working_dir.empty() && !std::filesystem::is_directory(working_dir, dir_error)) {
        throw_cannot_start(argv0, "working folder '" + working_dir.string() + "' does not exist");
    }

    std::vector<std::string> arguments = argv;
    std::vector<char*> argv_pointers = null_terminated(arguments);
    std::vector<std::string> environment = build_environment(env, options.inherit_environment);
    std::vector<char*> env_pointers = null_terminated(environment);
    std::string dir = working_dir.string();
    ChildSetup setup(executable.c_str(), argv_pointers.data(), env_pointers.data(),
                     dir.empty() ? nullptr : dir.c_str());

    Spawned spawned;
    std::error_code error;
    bp::child child;
    try {
        if (!options.capture_output) {
            child =
                bp::child(setup, bp::posix::use_vfork, bp::std_in<bp::null, bp::std_out> bp::null,
                          bp::std_err > bp::null, error);
        } else {
            bp::pipe out = boost_pipe(argv0);
            // A fast connector fills 64 KiB in microseconds; each wake-up costs more than the
            // copy. Refused past the user's pipe quota: the pipe keeps its size then.
            ::fcntl(out.native_source(), F_SETPIPE_SZ, k_stdout_pipe_bytes);
            bp::pipe err = boost_pipe(argv0);
            if (options.pipe_stdin) {
                bp::pipe in = boost_pipe(argv0);
                // Boost closes the parent's read end once the child started: keep a copy.
                spawned.stdin_reader = UniqueFd(::fcntl(in.native_source(), F_DUPFD_CLOEXEC, 0));
                child = bp::child(setup, bp::posix::use_vfork, bp::std_in<in, bp::std_out> out,
                                  bp::std_err > err, error);
                spawned.stdin_fd = take_write_end(in);
            } else {
                child = bp::child(setup, bp::posix::use_vfork,
                                  bp::std_in<bp::null, bp::std_out> out, bp::std_err > err, error);
            }
            spawned.stdout_fd = take_read_end(out);
            spawned.stderr_fd = take_read_end(err);
        }
    } catch (const std::system_error& failure) {
        throw_cannot_start(argv0, failure.code().message());
    }
    if (error || !child.valid()) {
        throw_cannot_start(argv0, error ? error.message() : "unknown error");
    }
    // From here on the pid is ours to signal and reap; Boost must not kill it on destruction.
    child.detach();
    spawned.pid = child.id();
    for (const UniqueFd* fd : {&spawned.stdin_fd, &spawned.stdout_fd, &spawned.stderr_fd}) {
        if (*fd) {
            set_non_blocking(*fd);
        }
    }
    return spawned;
}

}  // namespace conform::process::detail
