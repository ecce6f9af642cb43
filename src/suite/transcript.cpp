#include "suite/transcript.hpp"

#include <chrono>
#include <string_view>
#include <vector>

#include "checks/registry.hpp"
#include "process/output.hpp"
#include "process/process.hpp"
#include "protocol/analyzer.hpp"
#include "suite/context.hpp"
#include "suite/surroundings.hpp"

namespace conform::suite {

const std::vector<std::string>& transcript_checks() {
    namespace ids = checks::ids;
    static const std::vector<std::string> k_checks{
        std::string(ids::io_json_lines),     std::string(ids::io_messages),
        std::string(ids::io_known_types),    std::string(ids::read_streams),
        std::string(ids::read_schema),       std::string(ids::read_emitted_at),
        std::string(ids::read_primary_key),  std::string(ids::read_cursor),
        std::string(ids::state_well_formed), std::string(ids::merge_reduction),
        std::string(ids::state_final),
    };
    return k_checks;
}

report::RunReport validate_transcript(std::istream& transcript, const std::string& origin,
                                      const protocol::Catalog& catalog, bool strict) {
    auto started = std::chrono::steady_clock::now();
    protocol::Secrets no_secrets;
    protocol::AnalyzerSetup setup;
    setup.catalog = &catalog;
    setup.secrets = &no_secrets;
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

    Scenario scenario{"transcript", "validate", "checks on a recorded read transcript",
                      {},           {},         transcript_checks(),
                      origin};
    Step step;
    step.id = "read";
    step.run = Command::read;
    ScenarioContext context;
    context.scenario = &scenario;
    context.catalog = &catalog;
    context.secrets = &no_secrets;
    StepResult result;
    result.step = &step;
    result.runs.push_back(std::move(observation));
    context.steps.push_back(std::move(result));

    report::ScenarioResult scenario_result;
    scenario_result.id = scenario.id;
    scenario_result.suite = scenario.suite;
    scenario_result.title = scenario.title;
    for (const auto& id : scenario.checks) {
        scenario_result.checks.push_back(to_check_result(id, evaluate_check(id, context), strict));
    }
    scenario_result.status = scenario_status(scenario_result.checks);
    add_transcript_surroundings(scenario_result, context, no_secrets);
    report::RunReport report;
    report.strict = strict;
    report.recorded_transcript = true;
    report.connector = origin;
    report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - started)
                             .count();
    scenario_result.duration_ms = report.duration_ms;
    report.scenarios.push_back(std::move(scenario_result));
    return report;
}

}  // namespace conform::suite
