#include "process/process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "process/output.hpp"
#include "process/proc_scan.hpp"
#include "process/spawn.hpp"
#include "util/error.hpp"

namespace conform::process {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using namespace std::chrono_literals;

constexpr milliseconds k_tick = 50ms;
// How long the pipes may stay open after the process exited, e.g. held by a grandchild.
constexpr milliseconds k_max_drain_window = 500ms;
constexpr std::chrono::seconds k_cleanup_limit = 30s;
constexpr milliseconds k_helper_poll = 5ms;
// A quarter of the connector's stdout pipe (spawn.cpp asks for 1 MiB): few reads, few wake-ups.
constexpr std::size_t k_read_chunk = 256 * 1024;
// Per stream and wake-up, so that a flood of output cannot starve timeouts and ticks.
constexpr std::size_t k_read_budget = 4 * k_read_chunk;
// What is still read from a stream that is closed by force.
constexpr std::size_t k_final_drain_budget = 16 * k_read_chunk;

std::string signal_name(int number) {
    switch (number) {
        case SIGTERM:
            return "SIGTERM";
        case SIGKILL:
            return "SIGKILL";
        case SIGSEGV:
            return "SIGSEGV";
        case SIGABRT:
            return "SIGABRT";
        case SIGINT:
            return "SIGINT";
        case SIGPIPE:
            return "SIGPIPE";
        case SIGBUS:
            return "SIGBUS";
        case SIGFPE:
            return "SIGFPE";
        case SIGILL:
            return "SIGILL";
        case SIGHUP:
            return "SIGHUP";
        case SIGQUIT:
            return "SIGQUIT";
        case SIGUSR1:
            return "SIGUSR1";
        case SIGUSR2:
            return "SIGUSR2";
        case SIGALRM:
            return "SIGALRM";
        case SIGXCPU:
            return "SIGXCPU";
        case SIGXFSZ:
            return "SIGXFSZ";
        case SIGSYS:
            return "SIGSYS";
        case SIGTRAP:
            return "SIGTRAP";
        default:
            return "signal " + std::to_string(number);
    }
}

void signal_group(pid_t group, int signal_number) {
    // Never 0 or 1: kill(0) and kill(-1) would hit conform's own group or every process.
    if (group > 1) {
        ::kill(-group, signal_number);
    }
}

ExitStatus decode_wait_status(int status) {
    if (WIFEXITED(status)) {
        return ExitStatus{WEXITSTATUS(status), std::nullopt};
    }
    if (WIFSIGNALED(status)) {
        return ExitStatus{std::nullopt, WTERMSIG(status)};
    }
    return ExitStatus{};
}

// Reaps `pid` if it has exited. A child reaped by someone else (ECHILD) counts as exited with an
// unknown status, so that no caller waits for it forever.
std::optional<ExitStatus> reap_if_exited(pid_t pid) {
    int status = 0;
    while (true) {
        pid_t result = ::waitpid(pid, &status, WNOHANG);
        if (result == pid) {
            return decode_wait_status(status);
        }
        if (result == 0) {
            return std::nullopt;
        }
        if (errno != EINTR) {
            return ExitStatus{};
        }
    }
}

ExitStatus reap_blocking(pid_t pid) {
    int status = 0;
    while (true) {
        pid_t result = ::waitpid(pid, &status, 0);
        if (result == pid) {
            return decode_wait_status(status);
        }
        if (errno != EINTR) {
            return ExitStatus{};
        }
    }
}

// A descriptor that becomes readable when `pid` exits (Linux 5.3+), or none. Through syscall():
// glibc 2.36's <sys/pidfd.h> lacks C linkage for C++.
detail::UniqueFd open_exit_fd(pid_t pid) {
    return detail::UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
}

// The children conform started and reaps itself (connector leaders, helpers). Any other child is
// an orphan reparented to conform (the subreaper) and is reaped by reap_orphans(). Spawning and
// registering happen under one lock, so an orphan sweep never reaps a child being started.
class KnownChildren {
public:
    static KnownChildren& instance() {
        static auto* children = new KnownChildren;  // never destroyed: used until exit
        return *children;
    }

    template <typename Spawn>
    detail::Spawned spawn(Spawn&& spawn_child) {
        std::lock_guard lock(m_mutex);
        detail::Spawned spawned = spawn_child();
        m_pids.insert(spawned.pid);
        return spawned;
    }

    void forget(pid_t pid) {
        std::lock_guard lock(m_mutex);
        m_pids.erase(pid);
        remember_reaped_locked(pid);
    }

    // Reaps every zombie child that nobody else will reap.
    void reap_orphans() {
        std::lock_guard lock(m_mutex);
        for (const detail::ProcessInfo& child : detail::children_of_self()) {
            if (child.state == 'Z' && !m_pids.contains(child.pid) &&
                ::waitpid(child.pid, nullptr, WNOHANG) == child.pid) {
                remember_reaped_locked(child.pid);
            }
        }
    }

    // After SIGKILL: waits for `pid` if it is an orphan of conform's, so it leaves no zombie.
    void reap_killed_orphan(pid_t pid) {
        std::lock_guard lock(m_mutex);
        detail::ProcessInfo info;
        if (!m_pids.contains(pid) && detail::read_process_info(pid, info) &&
            info.parent == ::getpid()) {
            while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
            }
            remember_reaped_locked(pid);
        }
    }

    // Whether conform reaped `pid` in the last k_recent_reap: a signal it sent just before it
    // exited still came from conform's tree.
    bool reaped_recently(pid_t pid) {
        std::lock_guard lock(m_mutex);
        auto now = Clock::now();
        return std::any_of(m_reaped.begin(), m_reaped.end(), [&](const auto& reaped) {
            return reaped.first == pid && now - reaped.second < k_recent_reap;
        });
    }

    // The descendants of conform that started at `cutoff` or later and belong to no child
    // conform started and still runs, nor to a process older than `cutoff` (a service a helper
    // started on purpose, and what it runs). Under the lock, so no child is being started.
    std::vector<detail::ProcessInfo> leftovers_since(unsigned long long cutoff) {
        std::lock_guard lock(m_mutex);
        std::map<pid_t, detail::ProcessInfo> table;
        for (const auto& info : detail::all_processes()) {
            table.emplace(info.pid, info);
        }
        pid_t self = ::getpid();
        std::vector<detail::ProcessInfo> found;
        for (const auto& [pid, info] : table) {
            if (pid != self && left_behind(info, table, self, cutoff)) {
                found.push_back(info);
            }
        }
        return found;
    }

    // Whether `info` descends from conform (`self`) through processes that all started since
    // `cutoff`, none of them a child conform still runs, nor a zombie.
    bool left_behind(const detail::ProcessInfo& info,
                     const std::map<pid_t, detail::ProcessInfo>& table, pid_t self,
                     unsigned long long cutoff) const {
        const detail::ProcessInfo* at = &info;
        for (int step = 0; step < 4096; ++step) {
            if (at->start_ticks < cutoff || m_pids.contains(at->pid) || at->state == 'Z') {
                return false;
            }
            if (at->parent == self) {
                return true;
            }
            auto parent = table.find(at->parent);
            if (parent == table.end()) {
                return false;  // not conform's
            }
            at = &parent->second;
        }
        return false;
    }

private:
    static constexpr std::chrono::seconds k_recent_reap{10};
    static constexpr std::size_t k_reaped_kept = 256;

    void remember_reaped_locked(pid_t pid) {
        if (m_reaped.size() >= k_reaped_kept) {
            m_reaped.erase(m_reaped.begin());
        }
        m_reaped.emplace_back(pid, Clock::now());
    }

    std::mutex m_mutex;
    std::set<pid_t> m_pids;
    std::vector<std::pair<pid_t, Clock::time_point>> m_reaped;
};

// The runs in progress that sweep what they leave behind, and since when: descendants are
// swept when the last of them ends, back to the start of the first (a nested run's leftovers
// cannot be told from the outer run's, whose connector may still need them).
class SweepingRuns {
public:
    static SweepingRuns& instance() {
        static auto* runs = new SweepingRuns;  // never destroyed: used until exit
        return *runs;
    }

    void begin(unsigned long long start_ticks) {
        std::lock_guard lock(m_mutex);
        m_since = m_active == 0 ? start_ticks : std::min(m_since, start_ticks);
        ++m_active;
    }

    // When this was the last one: the start of the first, to sweep from.
    std::optional<unsigned long long> end() {
        std::lock_guard lock(m_mutex);
        --m_active;
        if (m_active > 0) {
            return std::nullopt;
        }
        return m_since;
    }

private:
    std::mutex m_mutex;
    std::size_t m_active = 0;
    unsigned long long m_since = 0;
};

// What a sweep killed, for the run's cleanup problem.
struct Swept {
    std::size_t count = 0;
    std::vector<std::string> described;  // the first few: "pid 123 (python3 main.py spec)"
};

// SIGKILLs the descendants left behind since `cutoff` (KnownChildren::leftovers_since), round
// after round (a killed parent's children come to conform next), and reaps them. A pid is
// signalled through a pidfd opened while it still had the start time the scan saw, so a recycled
// pid is never hit.
Swept kill_left_behind(unsigned long long cutoff) {
    constexpr int k_max_rounds = 200;
    constexpr std::size_t k_described = 5;
    Swept swept;
    for (int round = 0; round < k_max_rounds; ++round) {
        auto leftovers = KnownChildren::instance().leftovers_since(cutoff);
        if (leftovers.empty()) {
            break;
        }
        for (const auto& leftover : leftovers) {
            detail::UniqueFd handle(static_cast<int>(::syscall(SYS_pidfd_open, leftover.pid, 0)));
            detail::ProcessInfo now;
            if (!handle || !detail::read_process_info(leftover.pid, now) ||
                now.start_ticks != leftover.start_ticks) {
                continue;
            }
            if (swept.described.size() < k_described) {
                swept.described.push_back(fmt::format("pid {} ({})", leftover.pid,
                                                      detail::command_line_of(leftover.pid)));
            }
            ::syscall(SYS_pidfd_send_signal, handle.get(), SIGKILL, nullptr, 0);
            ++swept.count;
        }
        for (const auto& leftover : leftovers) {
            KnownChildren::instance().reap_killed_orphan(leftover.pid);
        }
        if (round > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    return swept;
}

// Ignores SIGPIPE and makes conform a child subreaper: a process that a connector orphans (a
// double fork, a daemon, a container runtime's conmon) becomes conform's child instead of
// init's. A reaper thread reaps such orphans within about 50 ms of their exit: a zombie would
// otherwise look alive to whoever waits for it (`podman rm` waits for conmon).
void prepare_process_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ignore, nullptr);
        ::prctl(PR_SET_CHILD_SUBREAPER, 1);
        std::thread([] {
            while (true) {
                std::this_thread::sleep_for(k_tick);
                // Only when some child is a zombie (peeked at, not reaped) is /proc scanned.
                siginfo_t info{};
                if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                    info.si_pid != 0) {
                    KnownChildren::instance().reap_orphans();
                }
            }
        }).detach();
    });
}

// Signals every process that carries the run's marker in its environment: those that left the
// process group (setsid, setpgid) or were orphaned. Returns how many were found.
std::size_t signal_marked(const std::string& marker, int signal_number) {
    if (marker.empty()) {
        return 0;
    }
    std::vector<pid_t> pids = detail::find_processes_with_environment(marker);
    for (pid_t pid : pids) {
        ::kill(pid, signal_number);
    }
    return pids.size();
}

// SIGKILLs whatever still carries the run's marker until nothing does, and reaps the orphans
// among them. Bounded, so a fork bomb cannot keep conform here forever.
void kill_escaped(const std::string& marker) {
    if (marker.empty()) {
        KnownChildren::instance().reap_orphans();
        return;
    }
    constexpr int k_max_rounds = 200;
    for (int round = 0; round < k_max_rounds; ++round) {
        std::vector<pid_t> pids = detail::find_processes_with_environment(marker);
        if (pids.empty()) {
            break;
        }
        for (pid_t pid : pids) {
            ::kill(pid, SIGKILL);
        }
        for (pid_t pid : pids) {
            KnownChildren::instance().reap_killed_orphan(pid);
        }
        if (round > 0) {
            // Killed processes not parented to conform may take a moment to exit.
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    KnownChildren::instance().reap_orphans();
}

// A process group started by run(), as stop_all_running() and the watchdog see it.
struct GroupEntry {
    pid_t pid = 0;
    // "CONFORM_RUN_ID=<id>", set in the connector's environment.
    std::string marker;
    bool reaped = false;
    // When conform first signalled the group to stop, and why.
    std::optional<Clock::time_point> terminated_at;
    StopReason reason = StopReason::none;
    bool killed_after_grace = false;
};

// What the poll loop learns from the running groups.
struct StopState {
    std::optional<Clock::time_point> terminated_at;
    StopReason reason = StopReason::none;
    bool killed_after_grace = false;
};

// True when `pid` (a child of conform's, not reaped) has exited; it stays a zombie.
bool exited_unreaped(pid_t pid) {
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
        if (errno != EINTR) {
            return true;
        }
    }
    return info.si_pid == pid;
}

// The groups started by run() and not yet finished. Reaping a leader and signalling its group by
// another thread both happen under the mutex, so a signal never reaches a recycled pid.
class RunningGroups {
public:
    static RunningGroups& instance() {
        static RunningGroups groups;
        return groups;
    }

    void add(GroupEntry& entry) {
        std::lock_guard lock(m_mutex);
        m_entries.push_back(&entry);
    }

    void remove(GroupEntry& entry) {
        std::lock_guard lock(m_mutex);
        std::erase(m_entries, &entry);
    }

    // Sends SIGTERM to the run (leader, group and marked processes) unless it was signalled
    // before or its leader has exited; returns the run's stop state.
    StopState terminate(GroupEntry& entry, StopReason reason) {
        std::lock_guard lock(m_mutex);
        terminate_locked(entry, reason);
        return state_locked(entry);
    }

    void terminate_all() {
        std::lock_guard lock(m_mutex);
        for (GroupEntry* entry : m_entries) {
            terminate_locked(*entry, StopReason::requested);
        }
    }

    // SIGKILLs the run once `grace` has passed since it was terminated, if its leader lives.
    void kill_after_grace(GroupEntry& entry, milliseconds grace, Clock::time_point now) {
        std::lock_guard lock(m_mutex);
        if (entry.terminated_at && !entry.killed_after_grace && !entry.reaped &&
            now >= *entry.terminated_at + grace && !exited_unreaped(entry.pid)) {
            signal_run_locked(entry, SIGKILL);
            entry.killed_after_grace = true;
        }
    }

    StopState state(const GroupEntry& entry) {
        std::lock_guard lock(m_mutex);
        return state_locked(entry);
    }

    std::optional<ExitStatus> reap_if_exited(GroupEntry& entry) {
        std::lock_guard lock(m_mutex);
        std::optional<ExitStatus> status = process::reap_if_exited(entry.pid);
        entry.reaped = status.has_value();
        if (entry.reaped) {
            KnownChildren::instance().forget(entry.pid);
        }
        return status;
    }

    // SIGKILLs the group and waits for its leader. Marking the entry as signalled first keeps
    // other threads away while the wait runs without the mutex.
    ExitStatus kill_and_reap(GroupEntry& entry) {
        {
            std::lock_guard lock(m_mutex);
            signal_run_locked(entry, SIGKILL);
            if (!entry.terminated_at) {
                entry.terminated_at = Clock::now();
            }
        }
        ExitStatus status = reap_blocking(entry.pid);
        KnownChildren::instance().forget(entry.pid);
        std::lock_guard lock(m_mutex);
        entry.reaped = true;
        return status;
    }

private:
    void terminate_locked(GroupEntry& entry, StopReason reason) {
        if (!entry.terminated_at && !entry.reaped && !exited_unreaped(entry.pid)) {
            signal_run_locked(entry, SIGTERM);
            entry.terminated_at = Clock::now();
            entry.reason = reason;
        }
    }

    // The leader by pid (it may have left its group), its group, and every process carrying the
    // run's marker. Under the mutex, so the leader's pid is not recycled meanwhile.
    static void signal_run_locked(const GroupEntry& entry, int signal_number) {
        if (!entry.reaped && entry.pid > 1) {
            ::kill(entry.pid, signal_number);
        }
        signal_group(entry.pid, signal_number);
        signal_marked(entry.marker, signal_number);
    }

    static StopState state_locked(const GroupEntry& entry) {
        return StopState{entry.terminated_at, entry.reason, entry.killed_after_grace};
    }

    std::mutex m_mutex;
    std::vector<GroupEntry*> m_entries;
};

// A stop or cleanup command: output discarded, killed when it takes too long.
class HelperProcess {
public:
    static std::optional<HelperProcess> start(const std::vector<std::string>& argv,
                                              const LaunchSpec& spec) noexcept {
        try {
            detail::Spawned spawned = KnownChildren::instance().spawn([&] {
                return detail::spawn(
                    argv, spec.env, spec.working_dir,
                    detail::SpawnOptions{.pipe_stdin = false, .capture_output = false});
            });
            return HelperProcess(spawned.pid);
        } catch (...) {
            return std::nullopt;
        }
    }

    HelperProcess(HelperProcess&& other) noexcept
        : m_pid(std::exchange(other.m_pid, 0)), m_exit(other.m_exit) {}
    HelperProcess& operator=(HelperProcess&& other) noexcept {
        if (this != &other) {
            kill_and_reap();
            m_pid = std::exchange(other.m_pid, 0);
            m_exit = other.m_exit;
        }
        return *this;
    }
    ~HelperProcess() { kill_and_reap(); }

    // True once it has exited and was reaped.
    bool finished() {
        if (m_pid > 0) {
            if (auto status = reap_if_exited(m_pid)) {
                m_exit = status;
                KnownChildren::instance().forget(m_pid);
                m_pid = 0;
            }
        }
        return m_pid == 0;
    }

    // How it exited, or nothing when it was still running at `deadline` and was killed.
    std::optional<ExitStatus> wait_until(Clock::time_point deadline) {
        while (!finished() && Clock::now() < deadline) {
            std::this_thread::sleep_for(k_helper_poll);
        }
        kill_and_reap();
        return m_exit;
    }

    void kill_and_reap() noexcept {
        if (m_pid > 0) {
            ::kill(m_pid, SIGKILL);
            signal_group(m_pid, SIGKILL);
            reap_blocking(m_pid);
            KnownChildren::instance().forget(m_pid);
            m_pid = 0;
        }
    }

private:
    explicit HelperProcess(pid_t pid) : m_pid(pid) {}

    pid_t m_pid = 0;
    std::optional<ExitStatus> m_exit;
};

// One run(): the poll loop over the child's pipes, its stop sequence, and its cleanup.
class ChildRun {
public:
    ChildRun(const LaunchSpec& spec, Observer& observer);
    ~ChildRun() { shut_down(); }
    ChildRun(const ChildRun&) = delete;
    ChildRun& operator=(const ChildRun&) = delete;

    RunResult run();

private:
    bool finished() const { return m_exit && !m_stdout && !m_stderr; }
    void step();
    int poll_timeout_ms(Clock::time_point now) const;

    void write_stdin();
    void offer_end_of_input();
    std::uint64_t stdin_in_pipe() const;
    void read_output(detail::UniqueFd& fd, std::size_t budget);
    void consume(const detail::UniqueFd& fd, std::string_view data);
    void close_output(detail::UniqueFd& fd);
    void deliver_line(std::string_view line, bool truncated);

    void check_exit(Clock::time_point now);
    void check_stop_from_elsewhere();
    void check_timeout(Clock::time_point now);
    void tick(Clock::time_point now);
    void kill_after_grace(Clock::time_point now);
    void check_stop_helper(Clock::time_point now);
    void close_pipes_after_drain_window(Clock::time_point now);

    void request_stop(StopReason reason);
    void begin_stopping(StopReason reason, Clock::time_point terminated_at);
    void start_watchdog();
    void watch();
    void stop_watchdog() noexcept;
    std::optional<Clock::time_point> stop_helper_deadline() const;
    void shut_down() noexcept;
    void run_cleanup_command() noexcept;
    std::vector<pid_t> kill_by_leftover_argument() const;
    void sweep_left_behind() noexcept;
    RunResult result() const;

    const LaunchSpec& m_spec;
    Observer& m_observer;
    detail::LineSplitter m_splitter;
    detail::TailBuffer m_stderr_tail;
    std::vector<char> m_buffer = std::vector<char>(k_read_chunk);
    GroupEntry m_entry;
    detail::UniqueFd m_stdin;
    detail::UniqueFd m_stdin_reader;  // never read: counts what the child left in the pipe
    std::uint64_t m_stdin_written = 0;
    detail::UniqueFd m_stdout;
    detail::UniqueFd m_stderr;
    // Readable when the child exits, so the loop wakes at once; empty where unsupported.
    detail::UniqueFd m_exit_fd;
    std::string_view m_stdin_left;

    Clock::time_point m_start;
    Clock::time_point m_next_tick;
    Clock::time_point m_end;
    std::optional<ExitStatus> m_exit;
    std::optional<Clock::time_point> m_exit_time;
    std::optional<Clock::time_point> m_drain_deadline;
    StopReason m_stop_reason = StopReason::none;
    std::optional<Clock::time_point> m_terminated_at;
    std::optional<milliseconds> m_exit_after_stop;
    bool m_killed_after_grace = false;
    std::optional<HelperProcess> m_stop_helper;
    std::string m_cleanup_problem;
    bool m_sweeps = false;  // counted in SweepingRuns
    std::uint64_t m_stdout_lines = 0;
    std::uint64_t m_stdout_bytes = 0;
    bool m_shut_down = false;

    // Enforces the timeout and the grace period even while an observer callback blocks the poll
    // loop: it signals the process, and the loop sees the stop through the running groups.
    std::thread m_watchdog;
    std::mutex m_watchdog_mutex;
    std::condition_variable m_watchdog_wake;
    bool m_watchdog_done = false;
};

ChildRun::ChildRun(const LaunchSpec& spec, Observer& observer)
    : m_spec(spec),
      m_observer(observer),
      m_splitter(spec.max_line_bytes),
      m_stderr_tail(spec.stderr_limit) {
    prepare_process_once();
    std::map<std::string, std::string> env = spec.env;
    std::string marker;
    if (spec.mark_descendants) {
        std::string run_id = detail::new_run_id();
        env[std::string(detail::k_run_id_variable)] = run_id;
        marker = std::string(detail::k_run_id_variable) + "=" + run_id;
    }
    detail::Spawned spawned = KnownChildren::instance().spawn([&] {
        return detail::spawn(spec.argv, env, spec.working_dir,
                             detail::SpawnOptions{.pipe_stdin = spec.stdin_data.has_value(),
                                                  .capture_output = true,
                                                  .inherit_environment = spec.inherit_environment});
    });
    m_start = Clock::now();
    m_next_tick = m_start + k_tick;
    m_entry.pid = spawned.pid;
    m_entry.marker = std::move(marker);
    try {
        RunningGroups::instance().add(m_entry);
    } catch (...) {
        ::kill(spawned.pid, SIGKILL);
        signal_group(spawned.pid, SIGKILL);
        reap_blocking(spawned.pid);
        KnownChildren::instance().forget(spawned.pid);
        throw;
    }
    if (spec.leftovers != LaunchSpec::Leftovers::keep) {
        // What the leader forks starts no earlier than the leader: its start time is the
        // sweep's cutoff (a zombie still has it).
        detail::ProcessInfo leader;
        detail::read_process_info(spawned.pid, leader);
        SweepingRuns::instance().begin(leader.start_ticks);
        m_sweeps = true;
    }
    m_stdin = std::move(spawned.stdin_fd);
    m_stdin_reader = std::move(spawned.stdin_reader);
    m_stdout = std::move(spawned.stdout_fd);
    m_stderr = std::move(spawned.stderr_fd);
    m_exit_fd = open_exit_fd(spawned.pid);
    if (spec.stdin_data) {
        m_stdin_left = *spec.stdin_data;
    }
}

RunResult ChildRun::run() {
    start_watchdog();
    while (!finished()) {
        step();
    }
    m_end = Clock::now();
    if (m_stop_helper) {
        m_stop_helper->wait_until(*stop_helper_deadline());
    }
    shut_down();
    return result();
}

void ChildRun::step() {
    // poll() ignores negative descriptors, so closed streams simply drop out; so does stdin once
    // everything is written and the observer holds it open.
    std::array<pollfd, 4> fds{{
        {m_stdin_left.empty() ? -1 : m_stdin.get(), POLLOUT, 0},
        {m_stdout.get(), POLLIN, 0},
        {m_stderr.get(), POLLIN, 0},
        {m_exit_fd.get(), POLLIN, 0},
    }};
    int ready = ::poll(fds.data(), fds.size(), poll_timeout_ms(Clock::now()));
    if (ready < 0 && errno != EINTR) {
        throw_internal_error(std::string("waiting for a connector's output failed: ") +
                             std::strerror(errno));
    }
    if (ready > 0) {
        if (fds[0].revents != 0) {
            write_stdin();
        }
        if (fds[1].revents != 0) {
            read_output(m_stdout, k_read_budget);
        }
        if (fds[2].revents != 0) {
            read_output(m_stderr, k_read_budget);
        }
    }
    offer_end_of_input();
    Clock::time_point now = Clock::now();
    check_exit(now);
    check_stop_from_elsewhere();
    check_timeout(now);
    tick(now);
    kill_after_grace(now);
    check_stop_helper(now);
    close_pipes_after_drain_window(now);
}

int ChildRun::poll_timeout_ms(Clock::time_point now) const {
    Clock::time_point wake = now + k_tick;
    auto wake_by = [&](std::optional<Clock::time_point> deadline) {
        if (deadline) {
            wake = std::min(wake, *deadline);
        }
    };
    if (!m_exit) {
        wake_by(m_next_tick);
        if (m_spec.timeout > 0ms && m_stop_reason == StopReason::none) {
            wake_by(m_start + m_spec.timeout);
        }
        if (m_terminated_at && !m_killed_after_grace) {
            wake_by(*m_terminated_at + m_spec.grace);
        }
    }
    wake_by(m_drain_deadline);
    if (m_stop_helper) {
        wake_by(stop_helper_deadline());
    }
    auto wait = std::chrono::ceil<milliseconds>(wake - now);
    return static_cast<int>(std::max(wait, 0ms).count());
}

void ChildRun::write_stdin() {
    while (m_stdin && !m_stdin_left.empty()) {
        ssize_t written = ::write(m_stdin.get(), m_stdin_left.data(), m_stdin_left.size());
        if (written > 0) {
            m_stdin_left.remove_prefix(static_cast<std::size_t>(written));
            m_stdin_written += static_cast<std::uint64_t>(written);
        } else if (written < 0 && errno == EINTR) {
            continue;
        } else if (written < 0 && errno == EAGAIN) {
            return;
        } else {
            // The child no longer reads stdin, which is its business (EPIPE cannot come while
            // conform holds the read end, but a closed pipe may).
            m_stdin.reset();
            return;
        }
    }
}

void ChildRun::offer_end_of_input() {
    if (m_stdin && m_stdin_left.empty() &&
        m_observer.end_input({m_stdin_written, stdin_in_pipe()})) {
        m_stdin.reset();
    }
}

std::uint64_t ChildRun::stdin_in_pipe() const {
    int pending = 0;
    if (!m_stdin_reader || ::ioctl(m_stdin_reader.get(), FIONREAD, &pending) != 0 || pending < 0) {
        return 0;
    }
    return static_cast<std::uint64_t>(pending);
}

void ChildRun::read_output(detail::UniqueFd& fd, std::size_t budget) {
    std::size_t total = 0;
    while (fd && total < budget) {
        ssize_t count = ::read(fd.get(), m_buffer.data(), m_buffer.size());
        if (count > 0) {
            total += static_cast<std::size_t>(count);
            consume(fd, std::string_view(m_buffer.data(), static_cast<std::size_t>(count)));
        } else if (count < 0 && errno == EINTR) {
            continue;
        } else if (count < 0 && errno == EAGAIN) {
            return;
        } else {
            close_output(fd);
        }
    }
}

void ChildRun::consume(const detail::UniqueFd& fd, std::string_view data) {
    if (&fd == &m_stderr) {
        m_stderr_tail.append(data);
        m_observer.on_stderr(data);
        return;
    }
    m_stdout_bytes += data.size();
    m_splitter.feed(
        data, [this](std::string_view line, bool truncated) { deliver_line(line, truncated); });
}

void ChildRun::close_output(detail::UniqueFd& fd) {
    bool is_stdout = &fd == &m_stdout;
    fd.reset();
    if (is_stdout) {
        m_splitter.finish(
            [this](std::string_view line, bool truncated) { deliver_line(line, truncated); });
    }
}

void ChildRun::deliver_line(std::string_view line, bool truncated) {
    ++m_stdout_lines;
    if (m_observer.on_stdout_line(line, m_stdout_lines, truncated) == Decision::stop) {
        request_stop(StopReason::requested);
    }
}

void ChildRun::check_exit(Clock::time_point now) {
    if (m_exit) {
        return;
    }
    m_exit = RunningGroups::instance().reap_if_exited(m_entry);
    if (!m_exit) {
        return;
    }
    m_exit_time = now;
    m_exit_fd.reset();
    if (m_terminated_at) {
        m_exit_after_stop = std::chrono::duration_cast<milliseconds>(now - *m_terminated_at);
    }
    m_drain_deadline = now + std::clamp(m_spec.grace, 0ms, k_max_drain_window);
}

void ChildRun::check_stop_from_elsewhere() {
    StopState state = RunningGroups::instance().state(m_entry);
    m_killed_after_grace = state.killed_after_grace;
    if (m_stop_reason != StopReason::none) {
        return;
    }
    auto terminated_at = state.terminated_at;
    if (!terminated_at) {
        return;
    }
    // stop_command runs even when the leader is gone already: a container may outlive its
    // client.
    begin_stopping(state.reason, *terminated_at);
    if (m_exit) {
        // Signalled and reaped within one step: the signal came before the reaping (the
        // running groups never signal a reaped leader).
        m_exit_after_stop =
            std::chrono::duration_cast<milliseconds>(*m_exit_time - *m_terminated_at);
    }
}

void ChildRun::check_timeout(Clock::time_point now) {
    if (m_spec.timeout > 0ms && !m_exit && m_stop_reason == StopReason::none &&
        now - m_start >= m_spec.timeout) {
        request_stop(StopReason::timeout);
    }
}

void ChildRun::tick(Clock::time_point now) {
    if (m_exit || now < m_next_tick) {
        return;
    }
    m_next_tick = now + k_tick;
    auto elapsed = std::chrono::duration_cast<milliseconds>(now - m_start);
    if (m_observer.on_tick(elapsed) == Decision::stop) {
        request_stop(StopReason::requested);
    }
}

void ChildRun::kill_after_grace(Clock::time_point now) {
    if (m_exit || !m_terminated_at || m_killed_after_grace) {
        return;
    }
    RunningGroups::instance().kill_after_grace(m_entry, m_spec.grace, now);
    m_killed_after_grace = RunningGroups::instance().state(m_entry).killed_after_grace;
}

void ChildRun::check_stop_helper(Clock::time_point now) {
    if (!m_stop_helper) {
        return;
    }
    // Resetting kills it if it is still running.
    if (m_stop_helper->finished() || now >= *stop_helper_deadline()) {
        m_stop_helper.reset();
    }
}

void ChildRun::close_pipes_after_drain_window(Clock::time_point now) {
    if (!m_exit || finished() || now < *m_drain_deadline) {
        return;
    }
    // Whoever still holds the pipes belongs to the connector's group (or escaped it); the
    // connector itself is gone, so take what is buffered and stop listening.
    signal_group(m_entry.pid, SIGKILL);
    signal_marked(m_entry.marker, SIGKILL);
    for (detail::UniqueFd* fd : {&m_stdout, &m_stderr}) {
        read_output(*fd, k_final_drain_budget);
        if (*fd) {
            close_output(*fd);
        }
    }
}

void ChildRun::request_stop(StopReason reason) {
    // Once the leader exited there is nothing left to stop: it ended on its own.
    if (m_stop_reason != StopReason::none || m_exit) {
        return;
    }
    StopState state = RunningGroups::instance().terminate(m_entry, reason);
    begin_stopping(state.terminated_at ? state.reason : reason,
                   state.terminated_at.value_or(Clock::now()));
}

void ChildRun::start_watchdog() {
    m_watchdog = std::thread([this] { watch(); });
}

void ChildRun::watch() {
    std::unique_lock lock(m_watchdog_mutex);
    while (!m_watchdog_done) {
        m_watchdog_wake.wait_for(lock, k_tick);
        if (m_watchdog_done) {
            break;
        }
        lock.unlock();
        Clock::time_point now = Clock::now();
        if (m_spec.timeout > 0ms && now - m_start >= m_spec.timeout) {
            RunningGroups::instance().terminate(m_entry, StopReason::timeout);
        }
        RunningGroups::instance().kill_after_grace(m_entry, m_spec.grace, now);
        lock.lock();
    }
}

void ChildRun::stop_watchdog() noexcept {
    if (!m_watchdog.joinable()) {
        return;
    }
    {
        std::lock_guard lock(m_watchdog_mutex);
        m_watchdog_done = true;
    }
    m_watchdog_wake.notify_all();
    m_watchdog.join();
}

void ChildRun::begin_stopping(StopReason reason, Clock::time_point terminated_at) {
    m_stop_reason = reason;
    m_terminated_at = terminated_at;
    if (!m_spec.stop_command.empty()) {
        m_stop_helper = HelperProcess::start(m_spec.stop_command, m_spec);
    }
}

std::optional<Clock::time_point> ChildRun::stop_helper_deadline() const {
    if (!m_terminated_at) {
        return std::nullopt;
    }
    return *m_terminated_at + m_spec.grace;
}

void ChildRun::shut_down() noexcept {
    if (m_shut_down) {
        return;
    }
    m_shut_down = true;
    stop_watchdog();
    if (!m_exit) {
        // run() is being left by an exception, e.g. from an observer callback.
        m_exit = RunningGroups::instance().kill_and_reap(m_entry);
    }
    if (m_end == Clock::time_point{}) {
        m_end = Clock::now();
    }
    // Whatever is left of the group (the leader is reaped; its pid cannot be recycled as a
    // group id while any member lives), then whatever escaped it, and the orphans to reap.
    signal_group(m_entry.pid, SIGKILL);
    try {
        kill_escaped(m_entry.marker);
    } catch (...) {
        // Out of memory while scanning /proc: the group was killed, which is what is certain.
    }
    RunningGroups::instance().remove(m_entry);
    m_stdin.reset();
    m_stdout.reset();
    m_stderr.reset();
    m_stop_helper.reset();
    run_cleanup_command();
    sweep_left_behind();
}

void ChildRun::run_cleanup_command() noexcept {
    if (m_spec.cleanup_command.empty()) {
        return;
    }
    auto helper = HelperProcess::start(m_spec.cleanup_command, m_spec);
    if (!helper) {
        m_cleanup_problem = "could not be started";
    } else if (auto status = helper->wait_until(Clock::now() + k_cleanup_limit); !status) {
        m_cleanup_problem =
            fmt::format("did not finish within {} s and was killed", k_cleanup_limit.count());
    } else if (!status->succeeded()) {
        m_cleanup_problem = "failed: " + status->describe();
    } else {
        return;
    }
    try {
        m_cleanup_problem = fmt::format("cleanup `{}` {}", fmt::join(m_spec.cleanup_command, " "),
                                        m_cleanup_problem);
    } catch (...) {
        m_cleanup_problem = "cleanup failed (and describing it ran out of memory)";
    }
}

std::vector<pid_t> ChildRun::kill_by_leftover_argument() const {
    if (m_spec.leftover_argument.empty()) {
        return {};
    }
    auto leftovers = detail::find_processes_with_argument(m_spec.leftover_argument);
    for (auto pid : leftovers) {
        ::kill(pid, SIGKILL);
    }
    for (auto pid : leftovers) {
        KnownChildren::instance().reap_killed_orphan(pid);
    }
    return leftovers;
}

// After the cleanup: what the run left behind dies (LaunchSpec::leftovers), and a failed
// cleanup's problem says what conform killed, by the container's name and among its descendants.
void ChildRun::sweep_left_behind() noexcept {
    try {
        bool failed = !m_cleanup_problem.empty();
        auto by_name = failed ? kill_by_leftover_argument() : std::vector<pid_t>{};
        std::optional<unsigned long long> since;
        if (m_sweeps) {
            m_sweeps = false;
            since = SweepingRuns::instance().end();
        }
        bool sweep =
            since &&
            (m_spec.leftovers == LaunchSpec::Leftovers::kill ||
             (m_spec.leftovers == LaunchSpec::Leftovers::kill_when_cleanup_fails && failed));
        Swept swept = sweep ? kill_left_behind(*since) : Swept{};
        if (!failed) {
            return;
        }
        std::vector<std::string> killed;
        for (auto pid : by_name) {
            killed.push_back(
                fmt::format("pid {} with '{}' on its command line", pid, m_spec.leftover_argument));
        }
        killed.insert(killed.end(), swept.described.begin(), swept.described.end());
        auto count = by_name.size() + swept.count;
        if (count == 0) {
            m_cleanup_problem += "; no process of the run was left";
        } else {
            m_cleanup_problem += fmt::format(
                "; conform killed {} process(es) still running ({}{}): what they ran may still "
                "exist",
                count, fmt::join(killed, ", "), killed.size() < count ? ", ..." : "");
        }
    } catch (...) {
        // Out of memory while scanning /proc: the group was killed, which is what is certain.
    }
}

RunResult ChildRun::result() const {
    RunResult result;
    result.exit = m_exit.value_or(ExitStatus{});
    result.stop_reason = m_stop_reason;
    result.exit_after_stop = m_exit_after_stop;
    result.killed_after_grace = m_entry.killed_after_grace;
    result.stderr_text = m_stderr_tail.text();
    result.stderr_truncated = m_stderr_tail.truncated();
    result.stdout_lines = m_stdout_lines;
    result.stdout_bytes = m_stdout_bytes;
    result.stdin_unread = m_spec.stdin_data ? m_stdin_left.size() + stdin_in_pipe() : 0;
    result.elapsed = std::chrono::duration_cast<milliseconds>(m_end - m_start);
    result.pid = m_entry.pid;
    result.cleanup_problem = m_cleanup_problem;
    return result;
}

}  // namespace

std::string ExitStatus::describe() const {
    if (code) {
        return "exit code " + std::to_string(*code);
    }
    if (signal) {
        return "killed by " + signal_name(*signal);
    }
    return "unknown exit status";
}

std::string RunResult::ending() const {
    return stop_reason == StopReason::timeout
               ? "stopped at its timeout after " + std::to_string(elapsed.count()) + " ms"
               : exit.describe();
}

namespace {
std::atomic<bool> g_stop_requested{false};
}  // namespace

RunResult run(const LaunchSpec& spec, Observer& observer) {
    if (g_stop_requested) {
        throw Error(ErrorKind::interrupted, "conform was interrupted; no further process started");
    }
    ChildRun child_run(spec, observer);
    return child_run.run();
}

RunResult run_with(const Executor& executor, const LaunchSpec& spec, Observer& observer) {
    return executor ? executor(spec, observer) : run(spec, observer);
}

void stop_all_running() {
    RunningGroups::instance().terminate_all();
}

void request_stop() {
    g_stop_requested = true;
    stop_all_running();
}

bool stop_requested() {
    return g_stop_requested;
}

bool sent_by_descendant(pid_t pid) {
    return pid > 0 &&
           (detail::descends_from_self(pid) || KnownChildren::instance().reaped_recently(pid));
}

}  // namespace conform::process
