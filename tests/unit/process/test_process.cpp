#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "process/process.hpp"
#include "process/workdir.hpp"
#include "util/error.hpp"

namespace {

using namespace std::chrono_literals;
using conform::process::Decision;
using conform::process::ExitStatus;
using conform::process::LaunchSpec;
using conform::process::RunResult;
using conform::process::StopReason;

// ThreadSanitizer turns vfork() into fork(), so the error a failed exec leaves in the memory vfork
// shares never reaches conform (CONTRIBUTING.md, "Threads"): those cases say nothing there.
#ifdef __SANITIZE_THREAD__
constexpr bool k_exec_errors_reach_parent = false;
#else
constexpr bool k_exec_errors_reach_parent = true;
#endif

struct Line {
    std::string text;
    std::uint64_t number;
    bool truncated;
};

// Records every line; optionally asks to stop after `stop_after_lines` lines or `stop_after`.
class Recorder : public conform::process::Observer {
public:
    Decision on_stdout_line(std::string_view line, std::uint64_t line_number,
                            bool truncated) override {
        lines.push_back({std::string(line), line_number, truncated});
        if (on_line) {
            on_line(line);
        }
        return stop_after_lines != 0 && lines.size() >= stop_after_lines ? Decision::stop
                                                                         : Decision::keep_going;
    }

    Decision on_tick(std::chrono::milliseconds elapsed) override {
        ++ticks;
        return stop_after > 0ms && elapsed >= stop_after ? Decision::stop : Decision::keep_going;
    }

    std::vector<std::string> texts() const {
        std::vector<std::string> result;
        for (const Line& line : lines) {
            result.push_back(line.text);
        }
        return result;
    }

    std::vector<Line> lines;
    std::size_t stop_after_lines = 0;
    std::chrono::milliseconds stop_after{0};
    std::function<void(std::string_view)> on_line;
    int ticks = 0;
};

LaunchSpec shell(const std::string& script) {
    LaunchSpec spec;
    spec.argv = {"sh", "-c", script};
    spec.timeout = 10s;
    spec.grace = 300ms;
    return spec;
}

RunResult run(const LaunchSpec& spec) {
    Recorder recorder;
    return conform::process::run(spec, recorder);
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// True once `pid` is gone or a zombie (nobody we can still signal meaningfully).
bool process_ended(pid_t pid) {
    auto deadline = std::chrono::steady_clock::now() + 2s;
    while (std::chrono::steady_clock::now() < deadline) {
        std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
        std::size_t close_paren = stat.rfind(')');
        if (stat.empty() || (close_paren != std::string::npos && stat.size() > close_paren + 2 &&
                             stat[close_paren + 2] == 'Z')) {
            return true;
        }
        std::this_thread::sleep_for(10ms);
    }
    return false;
}

}  // namespace

TEST_CASE("ExitStatus describes exit codes and signals") {
    CHECK(ExitStatus{3, std::nullopt}.describe() == "exit code 3");
    CHECK(ExitStatus{0, std::nullopt}.succeeded());
    CHECK_FALSE(ExitStatus{3, std::nullopt}.succeeded());
    CHECK(ExitStatus{std::nullopt, SIGKILL}.describe() == "killed by SIGKILL");
    CHECK(ExitStatus{std::nullopt, SIGSEGV}.describe() == "killed by SIGSEGV");
    CHECK_FALSE(ExitStatus{std::nullopt, SIGTERM}.succeeded());
    CHECK(ExitStatus{std::nullopt, 40}.describe() == "killed by signal 40");
}

TEST_CASE("stdout lines arrive in order with their numbers, the last one even without newline") {
    Recorder recorder;
    RunResult result =
        conform::process::run(shell("echo one; echo; echo three; printf four"), recorder);
    REQUIRE(recorder.lines.size() == 4);
    CHECK(recorder.texts() == std::vector<std::string>{"one", "", "three", "four"});
    for (std::size_t i = 0; i < recorder.lines.size(); ++i) {
        CHECK(recorder.lines[i].number == i + 1);
        CHECK_FALSE(recorder.lines[i].truncated);
    }
    CHECK(result.stdout_lines == 4);
    CHECK(result.stdout_bytes == 15);
    CHECK(result.exit.succeeded());
    CHECK(result.stop_reason == StopReason::none);
    CHECK_FALSE(result.exit_after_stop);
    CHECK(result.pid > 0);
}

TEST_CASE("stdout and stderr are kept apart") {
    Recorder recorder;
    RunResult result = conform::process::run(
        shell("echo out1; echo err1 >&2; echo out2; echo err2 >&2"), recorder);
    CHECK(recorder.texts() == std::vector<std::string>{"out1", "out2"});
    CHECK(result.stderr_text == "err1\nerr2\n");
    CHECK_FALSE(result.stderr_truncated);
}

TEST_CASE("exit code and signal are recorded") {
    RunResult exited = run(shell("exit 3"));
    CHECK(exited.exit.code == 3);
    CHECK_FALSE(exited.exit.signal);

    RunResult crashed = run(shell("kill -SEGV $$"));
    CHECK_FALSE(crashed.exit.code);
    CHECK(crashed.exit.signal == SIGSEGV);
    CHECK(crashed.exit.describe() == "killed by SIGSEGV");
}

TEST_CASE("argv is passed without a shell, argv[0] and empty arguments included") {
    Recorder recorder;
    LaunchSpec spec;
    spec.argv = {"sh",   "-c", "printf '[%s]' \"$1\" \"$2\"; echo; tr '\\0' ' ' < /proc/$$/cmdline",
                 "name", "",   "a b;$HOME"};
    conform::process::run(spec, recorder);
    REQUIRE(recorder.lines.size() == 2);
    CHECK(recorder.lines[0].text == "[][a b;$HOME]");
    CHECK(recorder.lines[1].text.starts_with("sh -c "));
}

TEST_CASE("environment variables are added and overridden") {
    Recorder recorder;
    LaunchSpec spec = shell("echo \"$CONFORM_TEST_VALUE\"; echo \"$HOME\"");
    spec.env = {{"CONFORM_TEST_VALUE", "hello world"}, {"HOME", "/nowhere"}};
    conform::process::run(spec, recorder);
    CHECK(recorder.texts() == std::vector<std::string>{"hello world", "/nowhere"});
}

TEST_CASE("the working folder is set") {
    conform::process::PrivateDir dir;
    Recorder recorder;
    LaunchSpec spec = shell("pwd -P");
    spec.working_dir = dir.path();
    conform::process::run(spec, recorder);
    CHECK(recorder.texts() ==
          std::vector<std::string>{std::filesystem::canonical(dir.path()).string()});
}

TEST_CASE("a timeout stops the process group with SIGTERM") {
    LaunchSpec spec;
    spec.argv = {"sleep", "30"};
    spec.timeout = 200ms;
    spec.grace = 500ms;
    RunResult result = run(spec);
    CHECK(result.stop_reason == StopReason::timeout);
    CHECK(result.exit.signal == SIGTERM);
    CHECK_FALSE(result.killed_after_grace);
    REQUIRE(result.exit_after_stop);
    CHECK(*result.exit_after_stop < 400ms);
    CHECK(result.elapsed >= 200ms);
    CHECK(result.elapsed < 1500ms);
}

TEST_CASE("a process that ignores SIGTERM is killed after the grace period") {
    LaunchSpec spec = shell("trap '' TERM; sleep 30");
    spec.timeout = 200ms;
    spec.grace = 300ms;
    RunResult result = run(spec);
    CHECK(result.stop_reason == StopReason::timeout);
    CHECK(result.killed_after_grace);
    CHECK(result.exit.signal == SIGKILL);
    REQUIRE(result.exit_after_stop);
    CHECK(*result.exit_after_stop >= 300ms);
    CHECK(result.elapsed < 2000ms);
}

TEST_CASE("a grandchild that keeps stdout open does not hang the run and is killed") {
    Recorder recorder;
    LaunchSpec spec = shell("sleep 30 & echo $!");
    spec.grace = 300ms;
    RunResult result = conform::process::run(spec, recorder);
    CHECK(result.exit.succeeded());
    CHECK(result.stop_reason == StopReason::none);
    CHECK(result.elapsed < 2000ms);
    REQUIRE(recorder.lines.size() == 1);
    pid_t grandchild = std::stoi(recorder.lines[0].text);
    CHECK(process_ended(grandchild));
}

TEST_CASE("a background process that closed its output is still killed with the group") {
    Recorder recorder;
    RunResult result =
        conform::process::run(shell("sleep 30 >/dev/null 2>&1 </dev/null & echo $!"), recorder);
    CHECK(result.exit.succeeded());
    CHECK(result.elapsed < 1000ms);
    REQUIRE(recorder.lines.size() == 1);
    CHECK(process_ended(std::stoi(recorder.lines[0].text)));
}

TEST_CASE("stderr keeps only its last stderr_limit bytes") {
    LaunchSpec spec = shell("i=0; while [ $i -lt 500 ]; do echo \"line $i\" >&2; i=$((i+1)); done");
    spec.stderr_limit = 100;
    RunResult result = run(spec);
    CHECK(result.stderr_truncated);
    CHECK(result.stderr_text.size() == 100);
    CHECK(result.stderr_text.ends_with("line 498\nline 499\n"));
}

TEST_CASE("stdin_data is written to stdin, which is then closed") {
    Recorder recorder;
    LaunchSpec spec;
    spec.argv = {"cat"};
    spec.stdin_data = "first\nsecond\n";
    RunResult result = conform::process::run(spec, recorder);
    CHECK(recorder.texts() == std::vector<std::string>{"first", "second"});
    CHECK(result.exit.succeeded());
}

TEST_CASE("large stdin_data and large output flow at the same time") {
    std::string input;
    for (int i = 0; i < 50000; ++i) {
        input += "line " + std::to_string(i) + "\n";
    }
    Recorder recorder;
    LaunchSpec spec;
    spec.argv = {"cat"};
    spec.stdin_data = input;
    RunResult result = conform::process::run(spec, recorder);
    REQUIRE(recorder.lines.size() == 50000);
    CHECK(recorder.lines.back().text == "line 49999");
    CHECK(result.stdout_bytes == input.size());
}

TEST_CASE("stdin_data does not block a child that never reads stdin") {
    LaunchSpec spec = shell("echo done");
    spec.stdin_data = std::string(1024 * 1024, 'x');
    RunResult result = run(spec);
    CHECK(result.exit.succeeded());
    CHECK(result.stop_reason == StopReason::none);
}

TEST_CASE("without stdin_data stdin is at end of file") {
    LaunchSpec spec;
    spec.argv = {"cat"};
    spec.timeout = 5s;
    RunResult result = run(spec);
    CHECK(result.exit.succeeded());
    CHECK(result.stop_reason == StopReason::none);
    CHECK(result.elapsed < 1000ms);
}

TEST_CASE("long lines are cut to max_line_bytes and flagged") {
    Recorder recorder;
    LaunchSpec spec = shell("printf '%050d\\nshort\\n%020d' 0 0");
    spec.max_line_bytes = 10;
    RunResult result = conform::process::run(spec, recorder);
    REQUIRE(recorder.lines.size() == 3);
    CHECK(recorder.lines[0].text == "0000000000");
    CHECK(recorder.lines[0].truncated);
    CHECK(recorder.lines[1].text == "short");
    CHECK_FALSE(recorder.lines[1].truncated);
    CHECK(recorder.lines[1].number == 2);
    CHECK(recorder.lines[2].text == "0000000000");
    CHECK(recorder.lines[2].truncated);
    CHECK(result.stdout_bytes == 77);
}

TEST_CASE("a missing executable is an error that names it" *
          doctest::skip(!k_exec_errors_reach_parent)) {
    Recorder recorder;
    LaunchSpec spec;
    spec.argv = {"conform-no-such-program-x"};
    try {
        conform::process::run(spec, recorder);
        FAIL("run() did not throw");
    } catch (const conform::Error& error) {
        CHECK(error.kind() == conform::ErrorKind::internal);
        CHECK(std::string(error.what()) ==
              "cannot start 'conform-no-such-program-x': No such file or directory");
    }

    spec.argv = {"/nonexistent/conform-program"};
    CHECK_THROWS_WITH_AS(conform::process::run(spec, recorder),
                         "cannot start '/nonexistent/conform-program': No such file or directory",
                         conform::Error);

    spec.argv = {"sh"};
    spec.working_dir = "/nonexistent/folder";
    CHECK_THROWS_WITH_AS(conform::process::run(spec, recorder),
                         "cannot start 'sh': working folder '/nonexistent/folder' does not exist",
                         conform::Error);
    // The child whose exec failed was reaped: no child of this test process is left.
    CHECK(::waitpid(-1, nullptr, WNOHANG) == -1);
}

TEST_CASE("a file that cannot be executed is an error" *
          doctest::skip(!k_exec_errors_reach_parent)) {
    conform::process::PrivateDir dir;
    std::filesystem::path script = dir.write_file("script", "#!/bin/sh\necho hi\n");
    Recorder recorder;
    LaunchSpec spec;
    spec.argv = {script.string()};
    CHECK_THROWS_WITH_AS(conform::process::run(spec, recorder),
                         ("cannot start '" + script.string() + "': Permission denied").c_str(),
                         conform::Error);
}

TEST_CASE("an observer can stop the process from a line") {
    Recorder recorder;
    recorder.stop_after_lines = 3;
    LaunchSpec spec = shell("i=0; while true; do echo $i; i=$((i+1)); sleep 0.01; done");
    RunResult result = conform::process::run(spec, recorder);
    CHECK(result.stop_reason == StopReason::requested);
    CHECK(result.exit.signal == SIGTERM);
    CHECK_FALSE(result.killed_after_grace);
    REQUIRE(result.exit_after_stop);
    CHECK(*result.exit_after_stop < 300ms);
    REQUIRE(recorder.lines.size() >= 3);
    CHECK(recorder.lines[2].text == "2");
}

TEST_CASE("a stop asked for after the process exited changes nothing") {
    Recorder recorder;
    recorder.stop_after_lines = 1;
    // The background job prints only once the leader was reaped.
    LaunchSpec spec =
        shell("(while kill -0 $$ 2>/dev/null; do sleep 0.01; done; echo late) & exit 0");
    spec.grace = 500ms;
    RunResult result = conform::process::run(spec, recorder);
    CHECK(recorder.texts() == std::vector<std::string>{"late"});
    CHECK(result.stop_reason == StopReason::none);
    CHECK_FALSE(result.exit_after_stop);
    CHECK(result.exit.succeeded());
}

TEST_CASE("an observer can stop the process from a tick") {
    Recorder recorder;
    recorder.stop_after = 100ms;
    LaunchSpec spec;
    spec.argv = {"sleep", "30"};
    spec.grace = 300ms;
    RunResult result = conform::process::run(spec, recorder);
    CHECK(result.stop_reason == StopReason::requested);
    CHECK(result.exit.signal == SIGTERM);
    CHECK(recorder.ticks >= 2);
    CHECK(result.elapsed < 1000ms);
}

TEST_CASE("an exception from the observer still kills and reaps the process") {
    Recorder recorder;
    pid_t child = 0;
    recorder.on_line = [&](std::string_view line) {
        child = std::stoi(std::string(line));
        throw std::runtime_error("observer failed");
    };
    conform::process::PrivateDir dir;
    LaunchSpec spec = shell("echo $$; sleep 30");
    spec.cleanup_command = {"sh", "-c", "echo cleaned > cleanup.txt"};
    spec.working_dir = dir.path();
    auto start = std::chrono::steady_clock::now();
    CHECK_THROWS_WITH_AS(conform::process::run(spec, recorder), "observer failed",
                         std::runtime_error);
    CHECK(std::chrono::steady_clock::now() - start < 2s);
    REQUIRE(child > 0);
    // Reaped: not even a zombie is left.
    CHECK_FALSE(std::filesystem::exists("/proc/" + std::to_string(child)));
    CHECK(read_text(dir.path() / "cleanup.txt") == "cleaned\n");
}

TEST_CASE("stop_command runs when conform stops the process, cleanup_command always") {
    conform::process::PrivateDir dir;
    LaunchSpec spec;
    spec.argv = {"sleep", "30"};
    spec.working_dir = dir.path();
    spec.timeout = 100ms;
    spec.grace = 500ms;
    spec.stop_command = {"sh", "-c", "echo stopped > stop.txt"};
    spec.cleanup_command = {"sh", "-c", "echo cleaned > cleanup.txt"};
    RunResult result = run(spec);
    CHECK(result.stop_reason == StopReason::timeout);
    CHECK(read_text(dir.path() / "stop.txt") == "stopped\n");
    CHECK(read_text(dir.path() / "cleanup.txt") == "cleaned\n");

    std::filesystem::remove(dir.path() / "stop.txt");
    std::filesystem::remove(dir.path() / "cleanup.txt");
    spec.argv = {"true"};
    result = run(spec);
    CHECK(result.stop_reason == StopReason::none);
    CHECK_FALSE(std::filesystem::exists(dir.path() / "stop.txt"));
    CHECK(read_text(dir.path() / "cleanup.txt") == "cleaned\n");
}

TEST_CASE("a hanging stop_command is bounded by the grace period") {
    LaunchSpec spec;
    spec.argv = {"sleep", "30"};
    spec.timeout = 100ms;
    spec.grace = 300ms;
    spec.stop_command = {"sleep", "30"};
    spec.cleanup_command = {"conform-no-such-cleanup-program"};
    RunResult result = run(spec);
    CHECK(result.stop_reason == StopReason::timeout);
    CHECK(result.elapsed < 1500ms);
}

TEST_CASE("stop_all_running stops a run from another thread") {
    LaunchSpec spec;
    spec.argv = {"sleep", "30"};
    spec.grace = 300ms;
    std::thread stopper([] {
        std::this_thread::sleep_for(150ms);
        conform::process::stop_all_running();
    });
    auto start = std::chrono::steady_clock::now();
    RunResult result = run(spec);
    stopper.join();
    CHECK(result.stop_reason == StopReason::requested);
    CHECK(result.exit.signal == SIGTERM);
    CHECK(std::chrono::steady_clock::now() - start < 1s);
}

TEST_CASE("a child does not inherit conform's ignored SIGPIPE or blocked signals") {
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigset_t previous;
    pthread_sigmask(SIG_BLOCK, &block, &previous);
    Recorder recorder;
    LaunchSpec spec = shell("grep -E '^(SigBlk|SigIgn)' /proc/self/status | cut -f2");
    conform::process::run(spec, recorder);
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);

    struct sigaction in_conform {};
    sigaction(SIGPIPE, nullptr, &in_conform);
    CHECK((in_conform.sa_handler == SIG_IGN));
    REQUIRE(recorder.lines.size() == 2);
    unsigned long long blocked = std::stoull(recorder.lines[0].text, nullptr, 16);
    unsigned long long ignored = std::stoull(recorder.lines[1].text, nullptr, 16);
    CHECK((blocked & (1ULL << (SIGTERM - 1))) == 0);
    CHECK((ignored & (1ULL << (SIGPIPE - 1))) == 0);
}

TEST_CASE("a child inherits only stdin, stdout and stderr") {
    // Opened without O_CLOEXEC, as another library in conform might.
    int leaked = ::open("/dev/null", O_RDONLY);
    REQUIRE(leaked >= 0);
    Recorder recorder;
    conform::process::run(shell("ls /proc/$$/fd"), recorder);
    ::close(leaked);
    CHECK(recorder.texts() == std::vector<std::string>{"0", "1", "2"});
}

namespace {

// True when `pid` no longer exists, not even as a zombie: it was killed and reaped.
bool process_gone(pid_t pid) {
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < deadline) {
        if (!std::filesystem::exists("/proc/" + std::to_string(pid))) {
            return true;
        }
        std::this_thread::sleep_for(10ms);
    }
    return false;
}

}  // namespace

TEST_CASE("a process that left the group with setsid and ignores SIGTERM is killed at timeout") {
    Recorder recorder;
    LaunchSpec spec = shell("setsid sh -c 'trap \"\" TERM; echo $$; while :; do sleep 1; done'");
    spec.timeout = 300ms;
    spec.grace = 300ms;
    RunResult result = conform::process::run(spec, recorder);
    CHECK(result.stop_reason == StopReason::timeout);
    REQUIRE(recorder.lines.size() == 1);
    // Killed and reaped by run() itself, not left to init.
    CHECK(process_gone(std::stoi(recorder.lines[0].text)));
}

// A connector that leaves a daemon behind: `launcher` starts `/bin/sh -c DAEMON`, which ignores
// SIGTERM and writes its pid; the connector prints that pid and exits.
LaunchSpec leaving_a_daemon(const std::string& launcher, const std::filesystem::path& dir) {
    LaunchSpec spec = shell(launcher +
                            " /bin/sh -c 'trap \"\" TERM; echo $$ > pid.tmp; /bin/mv pid.tmp pid; "
                            "while :; do /bin/sleep 1; done' </dev/null >/dev/null 2>&1 & "
                            "while [ ! -s pid ]; do sleep 0.01; done; cat pid");
    spec.working_dir = dir;
    return spec;
}

TEST_CASE("a double-forked daemon in its own session holding no pipes is killed and reaped") {
    conform::process::PrivateDir dir;
    Recorder recorder;
    RunResult result = conform::process::run(leaving_a_daemon("setsid", dir.path()), recorder);
    CHECK(result.exit.succeeded());
    CHECK(result.stop_reason == StopReason::none);
    REQUIRE(recorder.lines.size() == 1);
    CHECK(process_gone(std::stoi(recorder.lines[0].text)));
}

TEST_CASE("every connector process carries the run marker") {
    Recorder recorder;
    RunResult result = conform::process::run(shell("echo \"$CONFORM_RUN_ID\""), recorder);
    REQUIRE(recorder.lines.size() == 1);
    CHECK(recorder.lines[0].text.size() > 3);
    Recorder second;
    conform::process::run(shell("echo \"$CONFORM_RUN_ID\""), second);
    REQUIRE(second.lines.size() == 1);
    CHECK(second.lines[0].text != recorder.lines[0].text);
}

TEST_CASE("the timeout fires while an observer callback blocks") {
    // The callback blocks until the child is dead: only a watchdog outside the poll loop can
    // end this run. Without one the test never returns (ctest's timeout fails it).
    Recorder recorder;
    recorder.on_line = [](std::string_view line) {
        pid_t pid = std::stoi(std::string(line));
        int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
        REQUIRE(fd >= 0);
        pollfd exited{fd, POLLIN, 0};
        while (::poll(&exited, 1, -1) < 0 && errno == EINTR) {
        }
        ::close(fd);
    };
    LaunchSpec spec = shell("echo $$; exec sleep 30");
    spec.timeout = 200ms;
    spec.grace = 300ms;
    RunResult result = conform::process::run(spec, recorder);
    CHECK(result.stop_reason == StopReason::timeout);
    CHECK(result.exit.signal == SIGTERM);
}

TEST_CASE("a daemon that cleared its environment and left the session is killed at the end") {
    conform::process::PrivateDir dir;
    Recorder recorder;
    // No marker to find it by: it is found as conform's descendant (conform is its subreaper).
    RunResult result =
        conform::process::run(leaving_a_daemon("setsid env -i", dir.path()), recorder);
    CHECK(result.exit.succeeded());
    REQUIRE(recorder.lines.size() == 1);
    CHECK(process_gone(std::stoi(recorder.lines[0].text)));
}

TEST_CASE("what a helper run that keeps its leftovers started outlives it") {
    conform::process::PrivateDir dir;
    Recorder recorder;
    LaunchSpec spec = leaving_a_daemon("setsid env -u CONFORM_RUN_ID", dir.path());
    spec.leftovers = LaunchSpec::Leftovers::keep;
    conform::process::run(spec, recorder);
    REQUIRE(recorder.lines.size() == 1);
    pid_t service = std::stoi(recorder.lines[0].text);
    CHECK(::kill(service, 0) == 0);
    // A later run that sweeps spares it: it started before that run.
    Recorder later;
    conform::process::run(shell("echo done"), later);
    CHECK(::kill(service, 0) == 0);
    ::kill(service, SIGKILL);
    CHECK(process_ended(service));
}

TEST_CASE("a signal is told apart by its sender: conform's descendants, or not") {
    CHECK_FALSE(conform::process::sent_by_descendant(::getppid()));
    CHECK_FALSE(conform::process::sent_by_descendant(::getpid()));
    CHECK_FALSE(conform::process::sent_by_descendant(0));
    conform::process::PrivateDir dir;
    Recorder recorder;
    bool seen_during = false;
    recorder.on_line = [&](std::string_view line) {
        seen_during = conform::process::sent_by_descendant(std::stoi(std::string(line)));
        std::ofstream(dir.path() / "seen").close();
    };
    // A grandchild in a session of its own, which waits until it was looked at.
    LaunchSpec spec =
        shell("setsid sh -c 'echo $$; while [ ! -e seen ]; do sleep 0.01; done' & wait");
    spec.working_dir = dir.path();
    RunResult result = conform::process::run(spec, recorder);
    CHECK(seen_during);
    // The leader, just after conform reaped it: it may have signalled and exited at once.
    CHECK(conform::process::sent_by_descendant(result.pid));
}
