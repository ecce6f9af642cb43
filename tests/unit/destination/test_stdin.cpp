// The process runner's stdin as destinations need it (src/process): what a child left unread is
// counted, and an observer can hold the input open until an event it waits for.
#include <doctest/doctest.h>

#include <string>

#include "process/process.hpp"

using namespace conform;

namespace {

class Lines : public process::Observer {
public:
    process::Decision on_stdout_line(std::string_view line, std::uint64_t, bool) override {
        lines.emplace_back(line);
        return process::Decision::keep_going;
    }
    bool end_input(const process::StdinProgress& progress) override {
        last = progress;
        // Holds the input open until the child said it read everything.
        return !hold || !lines.empty();
    }
    std::vector<std::string> lines;
    process::StdinProgress last;
    bool hold = false;
};

process::LaunchSpec shell(const std::string& script, std::string input) {
    process::LaunchSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.stdin_data = std::move(input);
    spec.timeout = std::chrono::seconds(30);
    return spec;
}

}  // namespace

TEST_CASE("stdin: a child that reads all of its input leaves nothing unread") {
    Lines lines;
    auto result = process::run(shell("cat >/dev/null", std::string(300'000, 'x')), lines);
    CHECK(result.exit.succeeded());
    CHECK(result.stdin_unread == 0);
}

TEST_CASE("stdin: a child that exits early leaves the rest counted as unread") {
    Lines lines;
    auto result = process::run(shell("head -c 1000 >/dev/null", std::string(300'000, 'x')), lines);
    CHECK(result.exit.succeeded());
    CHECK(result.stdin_unread == 299'000);
}

TEST_CASE("stdin: a child that stops reading while it writes is waited for (backpressure)") {
    Lines lines;
    // Reads 1 KiB, writes 1 MiB to stdout, then reads the rest: conform must keep reading while
    // its writes to stdin wait.
    auto result = process::run(
        shell("head -c 1024 >/dev/null; head -c 1048576 /dev/zero | tr '\\0' 'y' | fold -w 1000; "
              "cat >/dev/null",
              std::string(500'000, 'x')),
        lines);
    CHECK(result.exit.succeeded());
    CHECK(result.stdin_unread == 0);
    CHECK(lines.lines.size() > 1000);
}

TEST_CASE("stdin: an observer holds the input open until the event it waits for") {
    Lines lines;
    lines.hold = true;
    // Says it read everything, then waits for the end of its input: it ends only because the
    // observer, having seen the line, let the input end.
    auto result = process::run(
        shell("head -c 10 >/dev/null; echo read-all; cat >/dev/null; echo ended", "0123456789"),
        lines);
    CHECK(result.exit.succeeded());
    REQUIRE(lines.lines.size() == 2);
    CHECK(lines.lines[1] == "ended");
    CHECK(lines.last.written == 10);
    CHECK(lines.last.unread == 0);
}
