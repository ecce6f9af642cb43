#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "suite/surroundings.hpp"

using namespace conform;
using namespace conform::suite;

namespace {

const std::string k_secret = "hunter2-very-secret-value";

class TranscriptFile {
public:
    explicit TranscriptFile(const std::vector<std::string>& lines)
        : m_path(std::filesystem::temp_directory_path() /
                 ("conform-surroundings-" + std::to_string(::getpid()) + "-" +
                  std::to_string(++s_count) + ".jsonl")) {
        std::ofstream out(m_path, std::ios::binary);
        for (const auto& line : lines) {
            out << line << '\n';
        }
    }
    ~TranscriptFile() { std::filesystem::remove(m_path); }
    TranscriptFile(const TranscriptFile&) = delete;
    TranscriptFile& operator=(const TranscriptFile&) = delete;
    std::string path() const { return m_path.string(); }

private:
    static inline int s_count = 0;
    std::filesystem::path m_path;
};

std::vector<std::string> numbered_lines(int count) {
    std::vector<std::string> lines;
    for (int i = 1; i <= count; ++i) {
        lines.push_back("line " + std::to_string(i));
    }
    return lines;
}

}  // namespace

TEST_CASE("transcript_lines returns the asked lines and stops at the end of the file") {
    TranscriptFile file(numbered_lines(10));
    protocol::Secrets none;
    auto lines = transcript_lines(file.path(), 4, 6, none);
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].number == 4);
    CHECK(lines[0].text == "line 4");
    CHECK(lines[2].text == "line 6");
    CHECK(transcript_lines(file.path(), 9, 13, none).size() == 2);
    CHECK(transcript_lines(file.path() + ".missing", 1, 3, none).empty());
}

TEST_CASE("a secret across the cut of a transcript line leaves no part of itself") {
    // The secret starts 10 bytes before the cut: cutting first would keep "hunter2-ve".
    std::string line = std::string(30, 'x') + k_secret + "tail";
    TranscriptFile file({line});
    protocol::Secrets secrets({k_secret});
    SurroundingsLimits limits;
    limits.line_bytes = 40;
    auto lines = transcript_lines(file.path(), 1, 1, secrets, limits);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].text.find("hunter") == std::string::npos);
    CHECK(lines[0].text.find("**********") == 30);
}

TEST_CASE("examples get the lines around them from the transcript of the run they name") {
    TranscriptFile file(numbered_lines(20));
    TranscriptFile other(numbered_lines(20));
    protocol::Secrets none;
    Step step;
    step.id = "read";
    StepResult step_result;
    step_result.step = &step;
    step_result.runs.resize(3);
    step_result.runs[0].label = "read";
    step_result.runs[0].transcript_path = file.path();
    step_result.runs[1].label = "read [bisect]";  // two runs share this label
    step_result.runs[1].transcript_path = file.path();
    step_result.runs[2].label = "read [bisect]";
    step_result.runs[2].transcript_path = other.path();
    ScenarioRun context;
    context.steps.push_back(std::move(step_result));

    report::ScenarioResult result;
    report::CheckResult check;
    check.examples = {{"first line", "read", 1, "line 1"},
                      {"middle", "read", 10, "line 10"},
                      {"no line", "read", 0, ""},
                      {"ambiguous run", "read [bisect]", 10, "line 10"}};
    result.checks = {check};
    add_transcript_surroundings(result, context, none);

    const auto& examples = result.checks[0].examples;
    REQUIRE(examples[0].context.size() == 4);
    CHECK(examples[0].context.front().number == 1);
    CHECK(examples[0].context.back().number == 4);
    REQUIRE(examples[1].context.size() == 7);
    CHECK(examples[1].context.front().text == "line 7");
    CHECK(examples[1].context[3].text == "line 10");
    CHECK(examples[1].context.back().text == "line 13");
    CHECK(examples[2].context.empty());
    CHECK(examples[3].context.empty());
}
