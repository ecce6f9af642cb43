#include "suite/transcript.hpp"

#include <chrono>
#include <filesystem>
#include <string_view>
#include <vector>

#include "engine/verdict.hpp"
#include "process/output.hpp"
#include "process/process.hpp"
#include "protocol/analyzer.hpp"
#include "suite/coverage.hpp"
#include "suite/surroundings.hpp"

namespace conform::suite {

namespace {

// A recorded transcript as a scenario step: a plain read that conform did not run.
Scenario recorded_read_scenario(const std::string& origin) {
    Step step;
    step.id = "read";
    step.run = Command::read;
    step.recorded = true;
    Scenario scenario;
    scenario.id = "transcript";
    scenario.suite = "validate";
    scenario.title = "checks on a recorded read transcript";
    scenario.steps.push_back(step);
    scenario.origin = origin;
    return scenario;
}

protocol::Observation analyze(std::istream& transcript, const std::string& origin,
                              const protocol::Catalog& catalog, const protocol::Secrets& secrets,
                              std::vector<const protocol::LineJudge*> judges, bool all_contents) {
    protocol::AnalyzerSetup setup;
    setup.catalog = &catalog;
    setup.secrets = &secrets;
    setup.judges = std::move(judges);
    setup.keyless_contents = all_contents;
    // Deferred digests are read again from the file: a pipe or a FIFO is read once.
    std::error_code error;
    setup.defer_keyed_contents = !all_contents && std::filesystem::is_regular_file(origin, error);
    setup.prepare_on_worker = protocol::prepare_on_worker_by_default();
    protocol::Analyzer analyzer(std::move(setup));
    // Lines are cut as a live run cuts them (same limit, same `truncated` flag), so a long line
    // gets the live verdict and an endless one (/dev/zero) cannot exhaust memory.
    process::detail::LineSplitter splitter(process::LaunchSpec{}.max_line_bytes);
    std::uint64_t number = 0;
    auto deliver = [&](std::string_view line, bool truncated) {
        analyzer.on_stdout_line(line, ++number, truncated);
    };
    std::vector<char> chunk(64 * 1024);
    while (transcript.read(chunk.data(), static_cast<std::streamsize>(chunk.size())) ||
           transcript.gcount() > 0) {
        splitter.feed(std::string_view(chunk.data(), static_cast<std::size_t>(transcript.gcount())),
                      deliver);
    }
    splitter.finish(deliver);
    process::RunResult recorded;
    recorded.exit.code = 0;  // a saved transcript is taken as a read that succeeded
    auto observation = analyzer.finish(std::move(recorded));
    observation.label = origin;
    // The user's file is the transcript: examples show the lines around them when it names one.
    observation.transcript_path = origin;
    return observation;
}

// One recorded read: its records per configured stream; what the connector offers is not known.
report::StreamsCoverage recorded_streams(const protocol::Catalog& catalog,
                                         const protocol::Observation& read) {
    StreamTally tally;
    tally.add_read(catalog, read);
    auto streams = tally.coverage(catalog);
    streams.note = "a recorded transcript: the streams the connector offers are not known";
    return streams;
}

}  // namespace

std::vector<std::string> transcript_checks(const Checks& checks) {
    auto scenario = recorded_read_scenario("");
    std::vector<std::string> ids;
    for (const auto& check : checks) {
        if (check.requires_.empty() && match(check, scenario).matched()) {
            ids.emplace_back(check.info.id);
        }
    }
    return ids;
}

report::RunReport validate_transcript(std::istream& transcript, const std::string& origin,
                                      const protocol::Catalog& catalog, const Checks& checks,
                                      bool strict) {
    auto started = std::chrono::steady_clock::now();
    protocol::Secrets no_secrets;
    auto scenario = recorded_read_scenario(origin);
    scenario.checks = transcript_checks(checks);
    ScenarioRun run{
        &scenario,
        nullptr,
        &catalog,
        &no_secrets,
        {},
        {},
        nullptr,
        "a recorded transcript comes without its spec and config: no secret to look for"};
    StepResult result;
    result.step = &scenario.steps.front();
    result.runs.push_back(analyze(transcript, origin, catalog, no_secrets,
                                  judges_of(checks, scenario.checks),
                                  any_reads_contents(checks, scenario.checks)));
    run.steps.push_back(std::move(result));

    report::ScenarioResult scenario_result;
    scenario_result.id = scenario.id;
    scenario_result.suite = scenario.suite;
    scenario_result.title = scenario.title;
    for (const auto& id : scenario.checks) {
        const auto& check = *find_check(checks, id);
        engine::Circumstances circumstances;
        circumstances.strict = strict;
        scenario_result.checks.push_back(judge(check, match(check, scenario), run, circumstances));
    }
    scenario_result.status = engine::scenario_status(scenario_result.checks);
    add_transcript_surroundings(scenario_result, run, no_secrets);
    report::RunReport report;
    report.strict = strict;
    report.recorded_transcript = true;
    const auto& observation = run.steps.front().runs.front();
    report.recorded_messages = observation.lines - observation.invalid_lines;
    report.connector = origin;
    report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - started)
                             .count();
    scenario_result.duration_ms = report.duration_ms;
    report.scenarios.push_back(std::move(scenario_result));
    report.coverage = report::Coverage{recorded_streams(catalog, observation), {}};
    return report;
}

}  // namespace conform::suite
