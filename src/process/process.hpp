#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace conform::process {

// How a process ended. Exactly one of `code` and `signal` is set once the process was reaped.
struct ExitStatus {
    std::optional<int> code;
    std::optional<int> signal;

    bool succeeded() const { return code && *code == 0; }
    // "exit code 3", "killed by SIGKILL".
    std::string describe() const;
};

// Everything needed to start one connector invocation. argv is executed directly, never through
// a shell; argv[0] without a slash is looked up on PATH.
struct LaunchSpec {
    std::vector<std::string> argv;
    // Added to (or overriding) the inherited environment.
    std::map<std::string, std::string> env;
    // False: the process gets `env` and nothing of conform's own environment.
    bool inherit_environment = true;
    std::filesystem::path working_dir;  // empty: inherit
    // Written to stdin as the process reads it (conform never blocks on a full pipe: it keeps
    // reading the process's output), then stdin is closed when the observer's end_input() agrees;
    // without it stdin is /dev/null.
    std::optional<std::string> stdin_data;
    // Zero means no limit. When it expires the process group gets SIGTERM, then SIGKILL after
    // `grace`.
    std::chrono::milliseconds timeout{0};
    std::chrono::milliseconds grace{5000};
    // stderr is kept up to this many bytes (the tail is kept; the head is dropped).
    std::size_t stderr_limit = 64 * 1024;
    // Longer stdout lines are cut to this size and delivered with `truncated` set.
    std::size_t max_line_bytes = 16 * 1024 * 1024;
    // Run (and waited for, bounded by `grace`) when conform stops the process, in addition to the
    // signals sent to its process group. Containers use it to stop the container by name.
    std::vector<std::string> stop_command;
    // Run after the process was reaped, whatever the outcome (e.g. `podman rm -f NAME`), for at
    // most 30 s. Both commands get `env` and `working_dir`; their output is discarded. A failed
    // stop command is retried by its own script; a failed cleanup is RunResult::cleanup_problem.
    std::vector<std::string> cleanup_command;
    // What only the processes the cleanup should end have on their command line (a container's
    // name): when the cleanup fails, processes with this argument are killed, and the result
    // names them.
    std::string leftover_argument;
    // Sets CONFORM_RUN_ID in the environment, so that descendants that leave the process group
    // are found and killed (docs/process-runner.md). Off for container runtimes: their daemons
    // (conmon) inherit the client's environment but belong to the engine, and stop_command and
    // cleanup_command stop the container.
    bool mark_descendants = true;
    // What becomes of the processes the run leaves behind that carry no marker (a daemon that
    // cleared its environment, a runtime client that exec'd the connector). conform is a child
    // subreaper, so they are its descendants: once no run that sweeps is in progress any more,
    // every descendant that started after the first of those runs is SIGKILLed, unless it
    // belongs to a process started before them or to a child conform is still running.
    enum class Leftovers {
        kill,                     // always (connectors, commands from a test config)
        kill_when_cleanup_fails,  // only when cleanup_command failed (container runtimes)
        keep,                     // never (conform's own helper commands, which may start
                                  // services on purpose)
    };
    Leftovers leftovers = Leftovers::kill;
};

enum class Decision { keep_going, stop };

// How far a process got with its stdin_data.
struct StdinProgress {
    std::uint64_t written = 0;  // bytes conform wrote into the pipe
    std::uint64_t unread = 0;   // of those, bytes still in the pipe: the process has not read them
};

// Receives output while the process runs. Callbacks run on the thread that called run(). After a
// stop, lines already written are still delivered; further stop decisions are ignored, and so is
// a stop asked for after the process exited. An exception thrown by a callback leaves run() after
// the process group was killed and reaped.
class Observer {
public:
    virtual ~Observer() = default;
    // One stdout line without its '\n'; `line_number` is 1-based.
    virtual Decision on_stdout_line(std::string_view line, std::uint64_t line_number,
                                    bool truncated) = 0;
    // Every chunk of stderr as it is read, before only the tail is kept (e.g. to scan it all).
    virtual void on_stderr(std::string_view /*chunk*/) {}
    // Called about every 50 ms while the process runs, with the time since start.
    virtual Decision on_tick(std::chrono::milliseconds /*elapsed*/) { return Decision::keep_going; }
    // Asked once all of stdin_data is written, and again on every output line and tick until it
    // answers true: then stdin is closed and the process reads end of file. The default closes it
    // at once; an observer that holds it open decides by what the process did (e.g. its output).
    virtual bool end_input(const StdinProgress& /*progress*/) { return true; }
};

// Why conform stopped the process, if it did.
enum class StopReason { none, timeout, requested };

struct RunResult {
    ExitStatus exit;
    StopReason stop_reason = StopReason::none;
    // Time from conform's SIGTERM to the process exiting; set when conform stopped it.
    std::optional<std::chrono::milliseconds> exit_after_stop;
    // True when SIGTERM was not enough and the group was killed after the grace period.
    bool killed_after_grace = false;
    std::string stderr_text;  // the last `stderr_limit` bytes
    bool stderr_truncated = false;
    std::uint64_t stdout_lines = 0;
    std::uint64_t stdout_bytes = 0;
    // Bytes of stdin_data the process never read: those conform could not write because it
    // stopped reading, and those left in the pipe when it ended. 0 without stdin_data.
    std::uint64_t stdin_unread = 0;
    std::chrono::milliseconds elapsed{0};
    pid_t pid = 0;
    // Empty, or what went wrong in the cleanup command and what conform killed after it.
    std::string cleanup_problem;

    // "stopped at its timeout after 30000 ms", or the exit ("exit code 1", "killed by SIGKILL").
    std::string ending() const;
};

// Starts the process in its own process group, feeds `observer` until stdout and stderr close and
// the process exits, and always reaps it. Throws conform::Error (internal) only when the process
// cannot be started at all (the message names argv[0] and the OS error).
RunResult run(const LaunchSpec& spec, Observer& observer);

// What starts a process for a protocol's source: run() when empty; a test puts a fake in its
// place that answers without spawning anything.
using Executor = std::function<RunResult(const LaunchSpec&, Observer&)>;

// `executor`'s run of `spec`, or run() when `executor` is empty.
RunResult run_with(const Executor& executor, const LaunchSpec& spec, Observer& observer);

// Stops every process started by run() that is still running (SIGTERM, then SIGKILL after its
// grace period, plus its stop_command). Safe to call from a signal-handling thread; used on Ctrl-C.
void stop_all_running();

// stop_all_running(), and from then on run() throws conform::Error (interrupted) instead of
// starting anything. For Ctrl-C.
void request_stop();

// True once request_stop() was called.
bool stop_requested();

// Whether a signal sent by `pid` came from conform's own process tree: `pid` is a descendant of
// conform, or one conform reaped in the last seconds (it may have exited right after sending).
// Such a signal is the connector's doing, not the user's.
bool sent_by_descendant(pid_t pid);

}  // namespace conform::process
