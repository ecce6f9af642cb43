#include "cli/cli.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "checks/checks.hpp"
#include "config/test_config.hpp"
#include "destination/scenario.hpp"
#include "destination/source.hpp"
#include "destination/test_config.hpp"
#include "diff/baseline.hpp"
#include "diff/regression.hpp"
#include "diff/verdicts.hpp"
#include "engine/run.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "meltano/source.hpp"
#include "meltano/test_config.hpp"
#include "process/process.hpp"
#include "protocol/analyzer.hpp"
#include "report/console.hpp"
#include "report/files.hpp"
#include "report/formats.hpp"
#include "report/json_read.hpp"
#include "singer/scenario.hpp"
#include "singer/source.hpp"
#include "singer/test_config.hpp"
#include "suite/runner.hpp"
#include "suite/scenario.hpp"
#include "suite/transcript.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

#ifndef CONFORM_VERSION
#define CONFORM_VERSION "0.0.0"
#endif

namespace conform::cli {

namespace {

constexpr const char* k_exit_codes_help =
    "Exit codes: 0 all checks passed (SHOULD warnings allowed unless --strict); 1 a check failed; "
    "2 bad command line; 3 bad test config, suite, catalog or transcript; 4 conform's own error; "
    "5 nothing ran (no scenario selected, every check skipped, or validate found no message); "
    "130 interrupted.";

struct RunFlags {
    std::string test_config;
    std::string connector;
    std::string image;
    std::string config;
    std::string invalid_config;
    std::string catalog;
    std::string manifest;  // a manifest-only connector's manifest.yaml
    std::vector<std::string> extensions;
    std::vector<std::string> suites;
    std::vector<std::string> only;
    std::vector<std::string> skip;
    bool strict = false;
    bool verbose = false;
    bool fail_fast = false;
    bool dry_run = false;
    std::string extension_keys = "estuary";
    // Per report format (report::formats()): the file to write it to, empty for none.
    std::map<std::string, std::string, std::less<>> outputs;
    std::string shard;              // K/N
    std::string connector_version;  // what the user says the connector's version is
    std::string runtime;
    std::vector<std::string> runtime_args;
    bool network = false;
    std::string pull;
    // What a test config says for the common cases, also as flags (they override the file).
    std::vector<std::string> volatile_fields;  // STREAM:/pointer
    double read_timeout = 0;
    std::string inject;
    bool states_are_patches = false;
    // Regression against a saved report (docs/regression.md).
    std::string baseline;
    bool record_digests = false;
    // Adoption in an existing CI (docs/known-failures.md).
    std::string
        acceptance_test_config;  // Airbyte's acceptance-test-config.yml, instead of a test config
    std::string known_failures;  // overrides the test config's "known_failures"
    std::string write_known_failures;  // today's failures, written as a starting list
    std::size_t rerun_failed = 0;      // reruns of a scenario with an unexpected failure
};

// The longest --read-timeout: a week. A read that takes longer is not a test, and the value must
// stay far from what milliseconds can hold.
constexpr double k_longest_read_seconds = 7 * 24 * 3600.0;

// Why `text` is not a --read-timeout (seconds above 0, at most a week), or "".
std::string read_timeout_problem(const std::string& text) {
    double seconds = 0;
    const char* end = text.data() + text.size();
    auto parsed = std::from_chars(text.data(), end, seconds);
    if (parsed.ec != std::errc() || parsed.ptr != end || !std::isfinite(seconds)) {
        return fmt::format("'{}' is not a number of seconds (e.g. 300 or 2.5)", text);
    }
    if (seconds <= 0 || seconds > k_longest_read_seconds) {
        return fmt::format(
            "{} is out of range: a read timeout is more than 0 and at most {:.0f} "
            "seconds (a week)",
            text, k_longest_read_seconds);
    }
    return {};
}

// Applies the flags that stand for test-config keys. Throws a usage error naming a bad value.
void apply_config_flags(const RunFlags& flags, config::TestConfig& config) {
    for (const auto& field : flags.volatile_fields) {
        auto colon = field.find(':');
        if (colon == std::string::npos || colon == 0 ||
            !json::pointer_syntax_error(field.substr(colon + 1)).empty()) {
            throw Error(ErrorKind::usage,
                        fmt::format("--volatile {}: expected STREAM:/json/pointer, e.g. "
                                    "users:/updated_at",
                                    field));
        }
        config.volatile_fields[field.substr(0, colon)].push_back(field.substr(colon + 1));
    }
    if (flags.read_timeout > 0) {
        config.read_timeout =
            std::chrono::milliseconds(static_cast<long long>(flags.read_timeout * 1000));
    }
    if (!flags.inject.empty()) {
        config.inject_command = config::split_command_line(flags.inject);
    }
    config.states_are_patches = config.states_are_patches || flags.states_are_patches;
    if (!flags.manifest.empty()) {
        config.manifest = config::read_manifest(flags.manifest, flags.manifest);
    }
}

// --config and --invalid-config given with a test config or an acceptance-test-config.yml (a
// source's or a destination's) replace what the file says, as --connector replaces its connector.
template <typename TestConfig>
void apply_config_file_flags(const RunFlags& flags, TestConfig& config) {
    if (!flags.config.empty()) {
        config.config_text = config::read_json_file(flags.config, config::Holds::secrets);
        config.no_config.reset();
    }
    if (!flags.invalid_config.empty()) {
        config.invalid_config_text =
            config::read_json_file(flags.invalid_config, config::Holds::secrets);
    }
}

// The same, and --catalog and --extensions, for a source's test config.
void apply_file_flags(const RunFlags& flags, config::TestConfig& config) {
    apply_config_file_flags(flags, config);
    if (!flags.catalog.empty()) {
        config.catalog_text = config::read_json_file(flags.catalog, config::Holds::data);
    }
    if (!flags.extensions.empty()) {
        config.extensions = flags.extensions;
    }
}

// `what` (a diff, a baseline's record digests) reads the connector: it needs its config.
void require_config(const config::TestConfig& config, std::string_view what) {
    if (config.no_config) {
        throw Error(ErrorKind::usage,
                    fmt::format("{} reads the connector: {}", what, *config.no_config));
    }
}

std::string now_iso8601() {
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return text;
}

// The command line that reruns this invocation, without its selection (--only, --skip,
// --shard) and without its report files, which a rerun would overwrite.
std::string rerun_prefix(int argc, char** argv) {
    std::vector<std::string> dropped{"--shard"};
    for (const auto& format : report::formats()) {
        dropped.emplace_back(format.run_flag);
    }
    // --only and --skip take several values: `--only a b` as well as `--only a,b`.
    const std::vector<std::string> lists{"--only", "--skip"};
    dropped.insert(dropped.end(), lists.begin(), lists.end());
    std::string command;
    for (int i = 0; i < argc; ++i) {
        std::string arg = argv[i];
        if (std::find(lists.begin(), lists.end(), arg) != lists.end()) {
            while (i + 1 < argc && !std::string_view(argv[i + 1]).starts_with("-")) {
                ++i;
            }
            continue;
        }
        if (std::find(dropped.begin(), dropped.end(), arg) != dropped.end()) {
            ++i;
            continue;
        }
        if (std::any_of(dropped.begin(), dropped.end(),
                        [&arg](const std::string& flag) { return arg.starts_with(flag + "="); })) {
            continue;
        }
        command += (command.empty() ? "" : " ") + shell_quote(arg);
    }
    return command;
}

// The command line's container settings over a test config's image (when it names one).
void apply_image_flags(const RunFlags& flags, std::optional<container::ImageSettings>& image) {
    if (!image) {
        return;
    }
    if (!flags.runtime.empty()) {
        image->runtime = flags.runtime;
    }
    image->runtime_args.insert(image->runtime_args.end(), flags.runtime_args.begin(),
                               flags.runtime_args.end());
    image->network = image->network || flags.network;
    if (auto pull = container::parse_pull_policy(flags.pull)) {
        image->pull = *pull;
    }
}

// The test config's connector replaced by `command` or `image` (nothing when both are empty),
// its other settings kept: CI tests the image it just built with the connector's test config.
template <typename TestConfig>
void replace_connector(TestConfig& config, const std::string& command, const std::string& image) {
    if (!command.empty()) {
        config.image.reset();
        config.command = config::split_command_line(command);
    } else if (!image.empty()) {
        config.command.clear();
        auto settings = config.image.value_or(container::ImageSettings{});
        settings.image = image;
        config.image = settings;
    }
}

// Airbyte's acceptance-test-config.yml as the test config, its image replaced by --connector or
// --image as a test config's is.
config::TestConfig acceptance_config_from(const RunFlags& flags) {
    if (!flags.test_config.empty()) {
        throw Error(ErrorKind::usage,
                    "give --test-config or --acceptance-test-config, not both (a test config "
                    "names one with \"acceptance_test_config\")");
    }
    if (!flags.connector.empty() && !flags.image.empty()) {
        throw Error(ErrorKind::usage, "give --connector or --image, not both");
    }
    auto config = config::load_acceptance_test_config(flags.acceptance_test_config);
    replace_connector(config, flags.connector, flags.image);
    apply_image_flags(flags, config.image);
    apply_file_flags(flags, config);
    apply_config_flags(flags, config);
    return config;
}

config::TestConfig test_config_from(const RunFlags& flags) {
    if (!flags.acceptance_test_config.empty()) {
        return acceptance_config_from(flags);
    }
    if (!flags.test_config.empty()) {
        if (!flags.connector.empty() && !flags.image.empty()) {
            throw Error(ErrorKind::usage, "give --connector or --image, not both");
        }
        auto config = config::load_test_config(flags.test_config);
        replace_connector(config, flags.connector, flags.image);
        apply_image_flags(flags, config.image);
        apply_file_flags(flags, config);
        apply_config_flags(flags, config);
        return config;
    }
    if (flags.connector.empty() == flags.image.empty()) {
        throw Error(ErrorKind::usage,
                    "say which connector to test: --test-config FILE, --connector 'COMMAND' or "
                    "--image IMAGE");
    }
    if (flags.config.empty()) {
        throw Error(ErrorKind::usage,
                    "--connector/--image need --config FILE (the connector config)");
    }
    config::TestConfig config;
    config.origin = config::k_command_line_origin;
    config.base_dir = std::filesystem::current_path();
    if (!flags.connector.empty()) {
        config.command = config::split_command_line(flags.connector);
    } else {
        container::ImageSettings image;
        image.image = flags.image;
        image.runtime = flags.runtime;
        image.runtime_args = flags.runtime_args;
        image.network = flags.network;
        image.pull =
            container::parse_pull_policy(flags.pull).value_or(container::PullPolicy::missing);
        config.image = image;
    }
    // Checked here, so that a syntax error names the file rather than "<command line>".
    config.config_text = config::read_json_file(flags.config, config::Holds::secrets);
    if (!flags.invalid_config.empty()) {
        config.invalid_config_text =
            config::read_json_file(flags.invalid_config, config::Holds::secrets);
    }
    if (!flags.catalog.empty()) {
        config.catalog_text = config::read_json_file(flags.catalog, config::Holds::data);
    }
    config.extensions = flags.extensions;
    apply_config_flags(flags, config);
    return config;
}

std::vector<suite::Scenario> load_scenarios(const std::vector<std::string>& suite_files) {
    const auto& checks = checks::airbyte_checks();
    if (suite_files.empty()) {
        return suite::load_builtin_suites(checks);
    }
    std::vector<suite::Scenario> scenarios;
    for (const auto& file : suite_files) {
        auto loaded = suite::load_suite_file(file, checks);
        scenarios.insert(scenarios.end(), loaded.begin(), loaded.end());
    }
    return scenarios;
}

// --shard K/N: this run takes every Nth selected scenario, starting at the Kth.
void apply_shard(const std::string& shard, engine::RunOptions& options) {
    if (shard.empty()) {
        return;
    }
    std::size_t index = 0;
    std::size_t count = 0;
    char slash = 0;
    char rest = 0;
    if (std::sscanf(shard.c_str(), "%zu%c%zu%c", &index, &slash, &count, &rest) != 3 ||
        slash != '/' || index == 0 || index > count) {
        throw Error(ErrorKind::usage,
                    fmt::format("--shard {}: expected K/N with 1 <= K <= N, e.g. 2/4", shard));
    }
    options.shard_index = index - 1;
    options.shard_count = count;
}

// What the engine's run loop takes from the command line, whatever the protocol.
engine::RunOptions run_options(const RunFlags& flags, int argc, char** argv) {
    engine::RunOptions options;
    options.strict = flags.strict;
    options.only = flags.only;
    options.skip = flags.skip;
    options.fail_fast = flags.fail_fast;
    options.rerun_failed = flags.rerun_failed;
    options.rerun_prefix = rerun_prefix(argc, argv);
    apply_shard(flags.shard, options);
    return options;
}

int exit_code_for(const report::RunReport& report) {
    auto totals = report.check_totals();
    if (totals.failed > 0) {
        return k_exit_checks_failed;
    }
    auto judged = totals.passed + totals.warned + totals.expected_failures + totals.flaky;
    return judged == 0 ? k_exit_nothing_ran : k_exit_passed;
}

// Writes every report the flags ask for. `drawn`: formats already rendered with more than the
// model holds (a diff's members in JSON and JUnit); `only_from_model`: just the formats drawn from
// the model alone.
void write_reports(const report::RunReport& report, const RunFlags& flags,
                   const std::map<std::string, std::string>& drawn = {},
                   bool only_from_model = false) {
    for (const auto& format : report::formats()) {
        auto path = flags.outputs.find(format.name);
        if (path == flags.outputs.end() || path->second.empty() ||
            (only_from_model && !format.from_model)) {
            continue;
        }
        auto given = drawn.find(std::string(format.name));
        report::write_report_file(path->second,
                                  given != drawn.end() ? given->second : format.render(report));
    }
}

// Refuses, before anything runs, report paths that would overwrite an input (the test config,
// the connector config and its secret, a catalog, a transcript, a saved report) or each other, and
// makes the folders they go in: a report that cannot be written is a usage error naming both
// paths, not exit 4 after the whole run. `inputs`: what the command read besides its flags'.
void check_report_paths(const RunFlags& flags, const std::vector<std::filesystem::path>& inputs,
                        bool report_flags = false) {
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, fs::path>> read;
    for (const auto& [flag, path] :
         {std::pair<std::string, std::string>{"--test-config", flags.test_config},
          {"--config", flags.config},
          {"--invalid-config", flags.invalid_config},
          {"--catalog", flags.catalog},
          {"--manifest", flags.manifest},
          {"--baseline", flags.baseline},
          {"--known-failures", flags.known_failures},
          {"--acceptance-test-config", flags.acceptance_test_config}}) {
        if (!path.empty()) {
            read.emplace_back(flag, path);
        }
    }
    for (const auto& suite : flags.suites) {
        read.emplace_back("--suite", suite);
    }
    for (const auto& input : inputs) {
        read.emplace_back("an input", input);
    }
    std::vector<std::pair<std::string, fs::path>> written;
    for (const auto& format : report::formats()) {
        auto path = flags.outputs.find(format.name);
        if (path != flags.outputs.end() && !path->second.empty()) {
            written.emplace_back(report_flags ? format.report_flag : format.run_flag, path->second);
        }
    }
    if (!flags.write_known_failures.empty()) {
        written.emplace_back("--write-known-failures", flags.write_known_failures);
    }
    auto same_file = [](const fs::path& a, const fs::path& b) {
        std::error_code error;
        if (fs::equivalent(a, b, error)) {
            return true;  // one file by two names (a symlink, a hard link, a relative path)
        }
        std::error_code other;
        auto left = fs::weakly_canonical(a, error);
        auto right = fs::weakly_canonical(b, other);
        return !error && !other && left == right;
    };
    for (std::size_t i = 0; i < written.size(); ++i) {
        const auto& [flag, path] = written[i];
        for (const auto& [what, input] : read) {
            if (same_file(path, input)) {
                throw Error(ErrorKind::usage,
                            fmt::format("{} '{}' is the file read as {} '{}': the report would "
                                        "overwrite it; write the report elsewhere",
                                        flag, path.string(), what, input.string()));
            }
        }
        for (std::size_t j = 0; j < i; ++j) {
            if (same_file(path, written[j].second)) {
                throw Error(
                    ErrorKind::usage,
                    fmt::format("{} '{}' and {} '{}' name the same file: one report would "
                                "overwrite the other",
                                written[j].first, written[j].second.string(), flag, path.string()));
            }
        }
        auto problem = report::prepare_report_file(path.string());
        if (!problem.empty()) {
            throw Error(ErrorKind::usage, fmt::format("{} {}: cannot write the report there: {}",
                                                      flag, path.string(), problem));
        }
    }
}

bool writes_any(const RunFlags& flags, bool from_model_only = false) {
    return std::any_of(report::formats().begin(), report::formats().end(), [&](const auto& format) {
        auto path = flags.outputs.find(format.name);
        return path != flags.outputs.end() && !path->second.empty() &&
               (!from_model_only || format.from_model);
    });
}

// Passes everything on to the console until conform is interrupted, and keeps the scenarios that
// finished before: a scenario that was running when Ctrl-C came saw its connector killed, and
// its verdicts would blame the connector for conform's stop.
class InterruptAwareReporter : public report::Reporter {
public:
    explicit InterruptAwareReporter(report::Reporter& console) : m_console(console) {}

    void scenario_started(const std::string& id, const std::string& title) override {
        if (!process::stop_requested()) {
            m_console.scenario_started(id, title);
        }
    }
    void run_progress(const std::string& label, std::uint64_t records,
                      std::chrono::milliseconds elapsed) override {
        if (!process::stop_requested()) {
            m_console.run_progress(label, records, elapsed);
        }
    }
    void scenario_finished(const report::ScenarioResult& result) override {
        if (!process::stop_requested()) {
            m_finished.push_back(result);
            m_console.scenario_finished(result);
        }
    }
    void run_finished(const report::RunReport& report) override { m_console.run_finished(report); }

    std::vector<report::ScenarioResult> take_finished() { return std::move(m_finished); }

private:
    report::Reporter& m_console;
    std::vector<report::ScenarioResult> m_finished;
};

// The names --only and --skip may use: the scenarios, their suites and every check.
void check_selection_names(const RunFlags& flags, const engine::ScenarioSource& source) {
    auto ids = checks::all_ids();
    engine::check_selection_names(flags.only, source.scenarios(), ids);
    engine::check_selection_names(flags.skip, source.scenarios(), ids);
}

// The known failures of --known-failures, else of the test config's "known_failures"
// (`from_config`, resolved against the test config's folder); none when neither names a file. Ids
// are those of `source`'s scenarios and of every check.
std::optional<engine::KnownFailures> known_failures_for(const RunFlags& flags,
                                                        const std::filesystem::path& from_config,
                                                        const engine::ScenarioSource& source) {
    std::filesystem::path path =
        flags.known_failures.empty() ? from_config : std::filesystem::path(flags.known_failures);
    if (path.empty()) {
        return std::nullopt;
    }
    engine::KnownIds ids{checks::all_ids(), {}};
    for (const auto& scenario : source.scenarios()) {
        ids.scenarios.push_back(scenario.id);
    }
    return engine::load_known_failures(path, ids);
}

// --write-known-failures: today's failures as a list to start from.
void write_known_failures(const report::RunReport& report, const RunFlags& flags) {
    if (flags.write_known_failures.empty()) {
        return;
    }
    report::write_report_file(flags.write_known_failures, engine::known_failures_json(report));
    fmt::print("known failures written to {}\n", flags.write_known_failures);
}

// What became of each clause of the report's protocol, from the checks that ran.
void add_clause_coverage(report::RunReport& report) {
    if (report.coverage) {
        report.coverage->clauses = report::clause_coverage(
            report.protocol, checks::clauses_of_protocol(report.protocol), report.scenarios);
    }
}

// Runs `source` through the engine's loop with the console (and Ctrl-C) in the middle, or lists
// it (--dry-run), and writes the reports. `known_failures`: the test config's (empty: none).
// `finish` sets what only the protocol knows on the report; `write` writes the report files and
// returns the exit code.
template <typename Finish, typename Write>
int run_source(engine::ScenarioSource& source, const RunFlags& flags, int argc, char** argv,
               const std::filesystem::path& known_failures, report::Reporter& console,
               InterruptAwareReporter& reporter, Finish finish, Write write) {
    check_selection_names(flags, source);
    auto options = run_options(flags, argc, argv);
    auto known = known_failures_for(flags, known_failures, source);
    options.known_failures = known ? &*known : nullptr;
    if (flags.dry_run) {
        return engine::print_dry_run(source, options) == 0 ? k_exit_nothing_ran : k_exit_passed;
    }
    auto started_at = now_iso8601();
    auto started = std::chrono::steady_clock::now();
    report::RunReport report;
    try {
        report = engine::run(source, options, reporter);
    } catch (const Error&) {
        // Whatever failed after Ctrl-C failed because of it (a stopped setup run, no further
        // process started).
        if (!process::stop_requested()) {
            throw;
        }
    }
    report.started_at = started_at;
    report.conform_version = CONFORM_VERSION;
    if (!flags.connector_version.empty()) {
        report.connector_version = flags.connector_version;
        report.connector_version_source = "--connector-version";
    }
    finish(report);
    if (process::stop_requested()) {
        report.interrupted = true;
        report.scenarios = reporter.take_finished();
        report.coverage = report::Coverage{source.stream_coverage(), {}};
        add_clause_coverage(report);
        report.strict = flags.strict;
        report.filtered = engine::is_filtered(options);
        report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - started)
                                 .count();
        console.run_finished(report);
        fmt::print(stderr,
                   "conform: interrupted; the report lists the {} scenario(s) that finished "
                   "before\n",
                   report.scenarios.size());
        write_reports(report, flags);
        return k_exit_interrupted;
    }
    add_clause_coverage(report);
    console.run_finished(report);
    write_known_failures(report, flags);
    return write(report);
}

// What a protocol with its own test config (Meltano extensions, Singer taps, Airbyte
// destinations) says of itself on the command line: the test config's name in the refusal of
// flags it takes no part of, its user doc and its report's "protocol".
struct BuiltinProtocol {
    std::string_view what;  // "an extension test config"
    std::string_view doc;   // "docs/meltano.md"
    std::string_view protocol;
    bool refuses_baseline = false;  // --baseline and --record-digests compare source records
};

void refuse_source_flags(const RunFlags& flags, const BuiltinProtocol& protocol) {
    bool baseline = !flags.baseline.empty() || flags.record_digests;
    // An Airbyte source's test config says what these say; no other one takes them.
    bool source_only = !flags.volatile_fields.empty() || flags.read_timeout > 0 ||
                       !flags.inject.empty() || flags.states_are_patches;
    if (!flags.connector.empty() || !flags.image.empty() || !flags.suites.empty() ||
        !flags.config.empty() || !flags.invalid_config.empty() || !flags.catalog.empty() ||
        !flags.manifest.empty() || !flags.extensions.empty() || source_only ||
        (protocol.refuses_baseline && baseline)) {
        throw Error(
            ErrorKind::usage,
            fmt::format("{} takes no --connector, --image, --suite, --config, "
                        "--invalid-config, --catalog, --manifest, --volatile, --read-timeout, "
                        "--inject, --states-are-patches{} ({})",
                        protocol.what,
                        protocol.refuses_baseline ? ", --extensions, --baseline or --record-digests"
                                                  : " or --extensions",
                        protocol.doc));
    }
}

// Runs the scenarios of a protocol with its own test config: `load(path)` reads it, the source
// `make_source(config, checks, {})` makes runs them.
template <typename Load, typename MakeSource, typename Checks>
int run_builtin_command(const RunFlags& flags, int argc, char** argv,
                        const BuiltinProtocol& protocol, Load load, MakeSource make_source,
                        const Checks& checks) {
    refuse_source_flags(flags, protocol);
    auto config = load(flags.test_config);
    apply_image_flags(flags, config.image);
    auto console = report::make_console_reporter(stdout, flags.verbose);
    InterruptAwareReporter reporter(*console);
    auto source = make_source(config, checks, {});
    return run_source(
        *source, flags, argc, argv, config.known_failures, *console, reporter,
        [&config, &protocol](report::RunReport& report) {
            report.test_config = config.origin.string();
            report.protocol = std::string(protocol.protocol);
        },
        [&flags](const report::RunReport& report) {
            write_reports(report, flags);
            return exit_code_for(report);
        });
}

// A test config with "protocol": "meltano-extension" runs the extension suite (docs/meltano.md).
int run_meltano_command(const RunFlags& flags, int argc, char** argv) {
    return run_builtin_command(
        flags, argc, argv,
        {"an extension test config", "docs/meltano.md", report::k_meltano_extension},
        meltano::load_test_config, meltano::make_meltano_source, checks::meltano_checks());
}

// A test config with "protocol": "singer" runs the Singer suite (docs/singer.md).
int run_singer_command(const RunFlags& flags, int argc, char** argv) {
    return run_builtin_command(
        flags, argc, argv, {"a Singer test config", "docs/singer.md", report::k_singer},
        singer::load_test_config, singer::make_singer_source, checks::singer_checks());
}

// A test config with "protocol": "airbyte-destination" runs the destination suite
// (docs/destinations.md).
int run_destination_command(const RunFlags& flags, int argc, char** argv) {
    return run_builtin_command(
        flags, argc, argv,
        {"a destination test config", "docs/destinations.md", report::k_airbyte_destination, true},
        destination::load_test_config, destination::make_destination_source,
        checks::destination_checks());
}

std::vector<diff::AcceptedChange> accepted_changes_of(const config::TestConfig& config) {
    std::vector<diff::AcceptedChange> accepted;
    for (const auto& entry : config.accepted_changes) {
        accepted.push_back({entry.change, entry.where, entry.reason});
    }
    return accepted;
}

// One more read for the per-stream record digests, then the comparison with the saved report:
// the JSON report carries the digests (it can be the next baseline) and, with --baseline, the diff.
int finish_with_baseline(const report::RunReport& report, const config::TestConfig& config,
                         const RunFlags& flags) {
    diff::VersionProbe probe(config);
    auto answers = probe.answer();
    diff::DiffReport diff;
    diff.control = flags.baseline;
    diff.target = probe.describe();
    std::vector<diff::StreamDigests> digests;
    if (answers.read_failure.empty()) {
        digests = diff::digests_of(answers.read,
                                   diff::keys_for_digests(answers.read_catalog, answers.catalog));
    } else {
        diff.notes.push_back(fmt::format("no record digests: the read {}", answers.read_failure));
    }
    if (!flags.baseline.empty()) {
        auto baseline = diff::load_baseline(flags.baseline);
        diff.changes = diff::diff_verdicts(baseline.verdicts, report, &diff.notes);
        if (baseline.streams.empty()) {
            diff.notes.emplace_back(
                "records not compared: the baseline has no \"streams\" (write "
                "it with --record-digests)");
        } else if (answers.read_failure.empty()) {
            auto records = diff::diff_digests(baseline.streams, digests);
            diff.changes.insert(diff.changes.end(), records.begin(), records.end());
        }
        diff::apply_accepted(diff.changes, accepted_changes_of(config));
        diff::redact_secrets(diff, {answers.spec}, config.config_text);
        fmt::print("{}", diff::to_console_text(diff));
    }
    auto json = diff::with_member(report::to_json_report(report), "streams",
                                  diff::to_streams_member(digests));
    auto xml = report::to_junit_xml(report);
    auto with_differences = report;
    if (!flags.baseline.empty()) {
        json = diff::with_diff_member(json, diff);
        xml = diff::with_diff_testsuite(xml, diff);
        diff::attach_differences(with_differences, diff, "the baseline " + flags.baseline);
    }
    write_reports(with_differences, flags, {{"json", json}, {"junit", xml}});
    return diff.breaking() > 0 ? k_exit_checks_failed : exit_code_for(report);
}

// The keys of an acceptance-test-config.yml conform cannot honour, once each, before the run.
void print_config_warnings(const config::TestConfig& config) {
    for (const auto& warning : config.warnings) {
        fmt::print("warning: {}\n", warning);
    }
    bool manifest_missing = config.manifest_beside && !config.manifest;
    if (manifest_missing) {
        fmt::print(
            "warning: {}: its metadata.yaml says the connector is manifest-only: give the "
            "manifest (--manifest {}) and run it on a generic runner (--connector "
            "source-declarative-manifest), or the runner has no connector to run "
            "(docs/manifest-only.md)\n",
            config.manifest_beside->parent_path().string(), config.manifest_beside->string());
    }
    if (!config.warnings.empty() || manifest_missing) {
        fmt::print("\n");
    }
    std::fflush(stdout);
}

// A destination's acceptance-test-config.yml runs the destination suite's spec and check
// scenarios (docs/acceptance-test-config.md, "Destinations"); --connector/--image, --config,
// --invalid-config and --catalog replace what it gives, and a catalog makes the writes run.
int run_destination_acceptance(const RunFlags& flags, int argc, char** argv) {
    if (!flags.test_config.empty()) {
        throw Error(ErrorKind::usage, "give --test-config or --acceptance-test-config, not both");
    }
    if (!flags.connector.empty() && !flags.image.empty()) {
        throw Error(ErrorKind::usage, "give --connector or --image, not both");
    }
    if (!flags.suites.empty() || !flags.manifest.empty() || !flags.extensions.empty() ||
        !flags.baseline.empty() || flags.record_digests) {
        throw Error(ErrorKind::usage,
                    fmt::format("{} is a destination's: it takes no --suite, --manifest, "
                                "--extensions, --baseline or --record-digests "
                                "(docs/destinations.md)",
                                flags.acceptance_test_config));
    }
    auto config = destination::load_acceptance_test_config(flags.acceptance_test_config);
    replace_connector(config, flags.connector, flags.image);
    apply_image_flags(flags, config.image);
    apply_config_file_flags(flags, config);
    if (!flags.catalog.empty()) {
        config.catalog_text = config::read_json_file(flags.catalog, config::Holds::data);
        config.catalog_origin = flags.catalog;
        config.no_catalog.reset();
    }
    for (const auto& warning : config.warnings) {
        fmt::print("warning: {}\n", warning);
    }
    fmt::print(
        "{}: a destination's file: its spec and connection tests run in the destination "
        "suite (docs/acceptance-test-config.md)\n\n",
        flags.acceptance_test_config);
    std::fflush(stdout);
    auto console = report::make_console_reporter(stdout, flags.verbose);
    InterruptAwareReporter reporter(*console);
    auto source = destination::make_destination_source(config, checks::destination_checks(), {});
    return run_source(
        *source, flags, argc, argv, config.known_failures, *console, reporter,
        [&config](report::RunReport& report) {
            report.test_config = config.origin.string();
            report.protocol = std::string(report::k_airbyte_destination);
            report.untested = config.no_config.value_or(config.no_catalog.value_or(""));
        },
        [&flags](const report::RunReport& report) {
            write_reports(report, flags);
            return exit_code_for(report);
        });
}

int run_command(const RunFlags& flags, int argc, char** argv) {
    check_report_paths(flags, {});
    if (!flags.acceptance_test_config.empty() &&
        destination::is_destination_acceptance_test_config(flags.acceptance_test_config)) {
        return run_destination_acceptance(flags, argc, argv);
    }
    if (meltano::is_meltano_test_config(flags.test_config)) {
        return run_meltano_command(flags, argc, argv);
    }
    if (singer::is_singer_test_config(flags.test_config)) {
        return run_singer_command(flags, argc, argv);
    }
    if (destination::is_destination_test_config(flags.test_config)) {
        return run_destination_command(flags, argc, argv);
    }
    auto scenarios = load_scenarios(flags.suites);
    auto config = test_config_from(flags);
    check_report_paths(flags, config.files);
    if (!flags.baseline.empty() || flags.record_digests) {
        require_config(config, "--baseline/--record-digests");
    }
    print_config_warnings(config);
    suite::SourceOptions source_options;
    source_options.spelling = flags.extension_keys == "bare" ? protocol::KeySpelling::bare
                                                             : protocol::KeySpelling::estuary;
    auto console = report::make_console_reporter(stdout, flags.verbose, config.extensions);
    InterruptAwareReporter reporter(*console);
    auto source = suite::make_airbyte_source(config, std::move(scenarios), checks::airbyte_checks(),
                                             source_options, reporter);
    return run_source(
        *source, flags, argc, argv, config.known_failures, *console, reporter,
        [&](report::RunReport& report) {
            report.test_config = config.origin.string();
            report.claimed_extensions = config.extensions;
            report.untested = config.no_config.value_or("");
        },
        [&](const report::RunReport& report) {
            if (!flags.baseline.empty() || flags.record_digests) {
                return finish_with_baseline(report, config, flags);
            }
            write_reports(report, flags);
            return exit_code_for(report);
        });
}

// `conform diff`: the connector to run for each version, by command line or image, and for a
// manifest-only connector the manifest of each version.
struct DiffFlags {
    std::string control;
    std::string target;
    std::string control_image;
    std::string target_image;
    std::string control_manifest;
    std::string target_manifest;
};

// The test config (or the flags' config) with its connector replaced by one version's. A version
// given by its manifest alone keeps the test config's connector (the same generic runner).
config::TestConfig version_config(RunFlags flags, const std::string& command,
                                  const std::string& image, const std::string& manifest) {
    bool runner_kept =
        command.empty() && image.empty() && !manifest.empty() && !flags.test_config.empty();
    if (command.empty() == image.empty() && !runner_kept) {
        throw Error(ErrorKind::usage,
                    "give each version once: --control or --control-image, and --target or "
                    "--target-image (with a test config, --control-manifest and "
                    "--target-manifest alone keep its connector)");
    }
    flags.manifest = manifest;
    if (flags.test_config.empty()) {
        flags.connector = command;
        flags.image = image;
        return test_config_from(flags);
    }
    auto config = config::load_test_config(flags.test_config);
    replace_connector(config, command, image);
    apply_image_flags(flags, config.image);
    apply_file_flags(flags, config);
    apply_config_flags(flags, config);
    require_config(config, "conform diff");
    return config;
}

// `rerun`: the diff's own command line, which reruns a scenario on both versions.
report::RunReport run_version(const char* role, const config::TestConfig& config,
                              const RunFlags& flags, const std::vector<suite::Scenario>& scenarios,
                              const std::string& rerun) {
    engine::RunOptions options;
    options.strict = flags.strict;
    options.only = flags.only;
    options.skip = flags.skip;
    options.rerun_prefix = rerun;
    fmt::print("== {}\n", role);
    std::fflush(stdout);
    auto console = report::make_console_reporter(stdout, flags.verbose, config.extensions);
    auto report =
        suite::run_suites(config, scenarios, checks::airbyte_checks(), options, {}, *console);
    report.started_at = now_iso8601();
    report.conform_version = CONFORM_VERSION;
    add_clause_coverage(report);
    console->run_finished(report);
    return report;
}

int diff_command(const RunFlags& flags, const DiffFlags& versions, int argc, char** argv) {
    check_report_paths(flags, {});
    auto scenarios = load_scenarios(flags.suites);
    auto ids = checks::all_ids();
    auto headers = suite::headers_of(scenarios);
    engine::check_selection_names(flags.only, headers, ids);
    engine::check_selection_names(flags.skip, headers, ids);
    auto control =
        version_config(flags, versions.control, versions.control_image, versions.control_manifest);
    auto target =
        version_config(flags, versions.target, versions.target_image, versions.target_manifest);
    auto inputs = control.files;
    inputs.insert(inputs.end(), target.files.begin(), target.files.end());
    check_report_paths(flags, inputs);
    report::RunReport control_report;
    report::RunReport target_report;
    try {
        auto rerun = rerun_prefix(argc, argv);
        control_report = run_version("control", control, flags, scenarios, rerun);
        target_report = run_version("target", target, flags, scenarios, rerun);
    } catch (const Error&) {
        // What failed after Ctrl-C failed because of it; no diff of half-finished runs.
        if (!process::stop_requested()) {
            throw;
        }
    }
    if (process::stop_requested()) {
        fmt::print(stderr, "conform: interrupted; no diff was made\n");
        return k_exit_interrupted;
    }
    auto diff = diff::compare_versions(control, target, control_report, target_report,
                                       accepted_changes_of(target));
    fmt::print("{}", diff::to_console_text(diff));
    auto json = diff::with_diff_member(report::to_json_report(target_report), diff);
    auto xml = diff::with_diff_testsuite(report::to_junit_xml(target_report), diff);
    diff::attach_differences(target_report, diff, "the control version " + diff.control);
    write_reports(target_report, flags, {{"json", json}, {"junit", xml}});
    return diff.breaking() > 0 ? k_exit_checks_failed : k_exit_passed;
}

int list_command(const std::vector<std::string>& suite_files) {
    auto scenarios = load_scenarios(suite_files);
    fmt::print("Checks (id, level, clauses):\n");
    for (const auto& check : checks::all_infos()) {
        fmt::print("  {:<36} {:<6} {:<12} {}\n", check.id, report::level_name(check.level),
                   fmt::join(check.clauses, ","), check.title);
    }
    std::string suite;
    for (const auto& scenario : scenarios) {
        if (scenario.suite != suite) {
            suite = scenario.suite;
            fmt::print("\nSuite '{}':\n", suite);
        }
        fmt::print("  {:<28} {}\n", scenario.id, scenario.title);
        fmt::print("  {:<28}   checks: {}\n", "", fmt::join(scenario.checks, ", "));
    }
    // The protocols whose scenarios are built in and selected by the test config's "protocol".
    auto print_protocol = [](std::string_view name, std::string_view protocol,
                             const auto& builtin) {
        fmt::print("\nSuite '{}' (test configs with \"protocol\": \"{}\"):\n", name, protocol);
        for (const auto& scenario : builtin) {
            fmt::print("  {:<28} {}\n", scenario.id, scenario.title);
            fmt::print("  {:<28}   checks: {}\n", "", fmt::join(scenario.checks, ", "));
        }
    };
    print_protocol(meltano::k_suite, "meltano-extension",
                   meltano::builtin_scenarios(checks::meltano_checks()));
    print_protocol(singer::k_suite, "singer", singer::builtin_scenarios(checks::singer_checks()));
    print_protocol(destination::k_suite, report::k_airbyte_destination,
                   destination::builtin_scenarios(checks::destination_checks()));
    return k_exit_passed;
}

int validate_command(const std::string& catalog_path, const std::string& transcript_path,
                     const RunFlags& flags, int argc, char** argv) {
    check_report_paths(flags, {catalog_path, transcript_path});
    auto catalog_text = read_text_file(catalog_path);
    auto document = json::parse_json_text(catalog_text, catalog_path);
    std::map<std::string, std::vector<std::string>> volatile_fields;
    auto catalog = protocol::load_catalog(document, catalog_path, volatile_fields);
    std::error_code error;
    if (std::filesystem::is_directory(transcript_path, error)) {
        throw_input_error(fmt::format(
            "transcript '{}' is a folder; give the file of a read's stdout", transcript_path));
    }
    std::ifstream transcript(transcript_path, std::ios::binary);
    if (!transcript) {
        throw_input_error(fmt::format("cannot read transcript '{}'", transcript_path));
    }
    if (transcript.peek() == std::ifstream::traits_type::eof()) {
        throw_input_error(fmt::format(
            "transcript '{}' is empty: a read's stdout has at least one message", transcript_path));
    }
    auto report = suite::validate_transcript(transcript, transcript_path, catalog,
                                             checks::airbyte_checks(), flags.strict);
    report.started_at = now_iso8601();
    report.conform_version = CONFORM_VERSION;
    auto rerun = rerun_prefix(argc, argv);
    for (auto& scenario : report.scenarios) {
        scenario.rerun = rerun;
    }
    auto console = report::make_console_reporter(stdout, flags.verbose);
    for (const auto& scenario : report.scenarios) {
        console->scenario_finished(scenario);
    }
    add_clause_coverage(report);
    console->run_finished(report);
    write_reports(report, flags);
    auto exit_code = exit_code_for(report);
    if (report.recorded_messages == 0 && exit_code == k_exit_passed) {
        fmt::print(stderr,
                   "conform: nothing was validated: no line of '{}' is an Airbyte message (a "
                   "read's stdout has one JSON message per line)\n",
                   transcript_path);
        return k_exit_nothing_ran;
    }
    return exit_code;
}

using SavedRuns = std::map<std::pair<std::string, std::string>,
                           std::pair<std::vector<report::RunReport>, std::vector<std::string>>>;

// Reports of several connectors: one registry page (HTML) of their certification levels.
int registry_command(const SavedRuns& runs, const RunFlags& flags) {
    auto html = flags.outputs.find("html");
    bool only_html = std::all_of(
        flags.outputs.begin(), flags.outputs.end(),
        [](const auto& output) { return output.first == "html" || output.second.empty(); });
    if (!only_html || html == flags.outputs.end() || html->second.empty()) {
        throw Error(ErrorKind::usage,
                    fmt::format("the reports are of {} connectors (or test configs): only --html "
                                "renders them together, as a registry page",
                                runs.size()));
    }
    std::vector<report::RunReport> merged;
    int exit_code = k_exit_passed;
    for (const auto& [key, run] : runs) {
        merged.push_back(report::merge_reports(run.first, run.second));
        if (merged.back().check_totals().failed > 0) {
            exit_code = k_exit_checks_failed;
        }
    }
    report::write_report_file(html->second, report::to_html_registry(merged));
    fmt::print("registry page: {} connector(s)\n", merged.size());
    return exit_code;
}

// `conform report`: renders saved JSON reports, merged into one (the shards of a run).
int report_command(const std::vector<std::string>& inputs, const RunFlags& flags) {
    if (!writes_any(flags)) {
        std::vector<std::string> names;
        for (const auto& format : report::formats()) {
            names.emplace_back(format.report_flag);
        }
        throw Error(ErrorKind::usage,
                    fmt::format("say what to write: {} FILE", fmt::join(names, ", ")));
    }
    check_report_paths(flags, {inputs.begin(), inputs.end()}, true);
    // Reports of one connector and test config are the shards (or parts) of one run.
    SavedRuns runs;
    for (const auto& input : inputs) {
        auto saved = report::read_json_report(input);
        auto& [reports, names] = runs[{saved.connector, saved.test_config}];
        reports.push_back(std::move(saved));
        names.push_back(input);
    }
    if (runs.size() > 1) {
        return registry_command(runs, flags);
    }
    auto merged = report::merge_reports(runs.begin()->second.first, runs.begin()->second.second);
    write_reports(merged, flags);
    auto totals = merged.check_totals();
    fmt::print("{} report(s), {} scenarios; checks: {} passed, {} failed, {} warned, {} skipped\n",
               inputs.size(), merged.scenarios.size(), totals.passed, totals.failed, totals.warned,
               totals.skipped);
    return exit_code_for(merged);
}

// What `run` and `diff` share: which scenarios, how images run, which fields may vary.
void add_selection_and_container_flags(CLI::App& command, RunFlags& flags,
                                       const std::string& volatile_help) {
    command.add_option("--suite", flags.suites, "suite file(s) instead of the built-in suites");
    command.add_option("--only", flags.only, "run only these scenarios, suites or checks")
        ->delimiter(',');
    command.add_option("--skip", flags.skip, "skip these scenarios, suites or checks")
        ->delimiter(',');
    command.add_option("--container-runtime", flags.runtime, "docker, podman or a compatible CLI");
    command.add_option("--runtime-arg", flags.runtime_args, "extra argument for `RUNTIME run`");
    command.add_flag("--network", flags.network, "give containers network access (off by default)");
    command.add_option("--pull", flags.pull, "image pull policy")
        ->check(CLI::IsMember({"never", "missing", "always"}));
    command.add_option("--volatile", flags.volatile_fields, volatile_help);
}

// A flag per report format (report::formats()): `report_flags` names them as `conform report`
// does.
void add_format_flags(CLI::App& command, RunFlags& flags, bool report_flags) {
    for (const auto& format : report::formats()) {
        command.add_option(std::string(report_flags ? format.report_flag : format.run_flag),
                           flags.outputs[std::string(format.name)],
                           fmt::format("write {} here", format.help));
    }
}

void add_report_flags(CLI::App& command, RunFlags& flags) {
    command.add_flag("--strict", flags.strict, "SHOULD clauses fail instead of warning");
    add_format_flags(command, flags, false);
    command.add_flag("-v,--verbose", flags.verbose,
                     "show every scenario's runs and skipped checks");
}

// The long flags of `command`, "--strict" and so on.
std::vector<std::string> long_flags_of(const CLI::App& command) {
    std::vector<std::string> flags;
    for (const auto* option : command.get_options()) {
        for (const auto& name : option->get_lnames()) {
            flags.push_back("--" + name);
        }
    }
    return flags;
}

// "unknown flag --stirct of `conform run` (did you mean '--strict'?)" for the first flag of
// `argv` (from `first`) that `command` does not know and that is close to one it does; or "".
std::string mistyped_flag_hint(const CLI::App& command, int first, int argc, char** argv) {
    auto flags = long_flags_of(command);
    for (int i = first; i < argc; ++i) {
        std::string word = argv[i];
        word = word.substr(0, word.find('='));
        if (!word.starts_with("--") || word == "--" ||
            std::find(flags.begin(), flags.end(), word) != flags.end()) {
            continue;
        }
        auto hint = did_you_mean(word, flags);
        if (!hint.empty()) {
            return fmt::format("unknown flag {} of `conform {}`{}", word, command.get_name(), hint);
        }
    }
    return {};
}

// What a command line that CLI11 refused probably meant: the nearest sub-command for an unknown
// one, else the nearest flag of the sub-command for an unknown one; "" when nothing is close.
std::string mistyped_word_hint(const CLI::App& app, int argc, char** argv) {
    if (argc < 2) {
        return {};
    }
    std::string first = argv[1];
    std::vector<std::string> commands;
    for (const auto* command : app.get_subcommands([](const CLI::App*) { return true; })) {
        commands.push_back(command->get_name());
    }
    if (std::find(commands.begin(), commands.end(), first) != commands.end()) {
        return mistyped_flag_hint(*app.get_subcommand(first), 2, argc, argv);
    }
    auto hint = first.starts_with("-") ? std::string() : did_you_mean(first, commands);
    return hint.empty() ? std::string() : fmt::format("unknown sub-command '{}'{}", first, hint);
}

// Ctrl-C or SIGTERM stop every connector conform started; the main thread then finishes the
// current run (reaping it and removing its container) and exits with 130. If it has not after
// k_interrupt_patience, conform exits anyway. A signal that one of conform's own descendants sent
// (a connector that signals its parent) is the connector's doing, not the user's: it is reported
// and ignored.
constexpr auto k_interrupt_patience = std::chrono::seconds(30);

void install_stop_handler() {
    static sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    std::thread([] {
        // The next signal from outside conform's process tree; nullopt when `deadline` passed.
        using Clock = std::chrono::steady_clock;
        auto from_outside = [](std::optional<Clock::time_point> deadline) -> std::optional<int> {
            while (true) {
                siginfo_t info{};
                int received = 0;
                if (!deadline) {
                    received = sigwaitinfo(&signals, &info);
                } else {
                    auto left = std::max(Clock::duration::zero(), *deadline - Clock::now());
                    auto seconds = std::chrono::duration_cast<std::chrono::seconds>(left);
                    auto nanoseconds =
                        std::chrono::duration_cast<std::chrono::nanoseconds>(left - seconds);
                    timespec wait{static_cast<time_t>(seconds.count()),
                                  static_cast<long>(nanoseconds.count())};
                    received = sigtimedwait(&signals, &info, &wait);
                }
                if (received < 0) {
                    if (errno == EINTR) {
                        continue;
                    }
                    return std::nullopt;
                }
                // A terminal's Ctrl-C comes from the kernel (no sender); kill(2) names its sender.
                bool sent =
                    info.si_code == SI_USER || info.si_code == SI_QUEUE || info.si_code == SI_TKILL;
                if (sent && process::sent_by_descendant(info.si_pid)) {
                    fmt::print(stderr,
                               "\nconform: ignored signal {} from pid {}, a process conform "
                               "started (only a signal from outside stops the run)\n",
                               received, info.si_pid);
                    continue;
                }
                return received;
            }
        };
        auto received = from_outside(std::nullopt);
        fmt::print(stderr, "\nconform: stopping (signal {}); cleaning up connectors\n",
                   received.value_or(0));
        process::request_stop();
        // A second signal, or the patience running out, ends conform at once. Connectors
        // still running get SIGKILL from the kernel then (PR_SET_PDEATHSIG).
        if (from_outside(Clock::now() + k_interrupt_patience)) {
            fmt::print(stderr, "conform: second signal; exiting now\n");
        } else {
            fmt::print(stderr, "conform: connectors did not stop in time; exiting\n");
        }
        std::_Exit(k_exit_interrupted);
    }).detach();
}

}  // namespace

int conform_main(int argc, char** argv) {
    CLI::App app{"conform: protocol conformance tests for Airbyte-protocol data connectors"};
    app.footer(k_exit_codes_help);
    app.require_subcommand(1);
    app.set_version_flag("--version", CONFORM_VERSION);
    RunFlags flags;

    auto* run = app.add_subcommand("run", "run the suites against one connector");
    run->add_option("-t,--test-config", flags.test_config, "the connector's test config (JSON)");
    run->add_option("--connector", flags.connector,
                    "command line of a native connector (replaces the test config's)");
    run->add_option("--image", flags.image,
                    "connector image (docker/podman; replaces the test config's connector)");
    run->add_option("--config", flags.config, "connector config file (with --connector/--image)");
    run->add_option("--invalid-config", flags.invalid_config, "a config check must reject");
    run->add_option("--catalog", flags.catalog, "configured catalog (default: from discover)");
    run->add_option("--manifest", flags.manifest,
                    "a manifest-only connector's manifest.yaml, injected into its configs; its "
                    "spec section is the connector's spec (replaces the test config's)");
    run->add_option("--extensions", flags.extensions, "extensions the connector claims")
        ->delimiter(',')
        ->check(CLI::IsMember({"tail", "range", "merge", "projections"}));
    add_selection_and_container_flags(
        *run, flags, "STREAM:/pointer of a field that may differ between reads (repeatable)");
    run->add_option("--extension-keys", flags.extension_keys,
                    "spelling of extension keys written into catalogs")
        ->check(CLI::IsMember({"bare", "estuary"}));
    run->add_option("--read-timeout", flags.read_timeout, "seconds a read may take")
        ->check(CLI::Validator(read_timeout_problem, "SECONDS", "seconds"));
    run->add_option("--inject", flags.inject,
                    "command that adds data while tailing (tail.inject_command)");
    run->add_flag("--states-are-patches", flags.states_are_patches,
                  "every STATE is an RFC 7396 merge patch (merge.states_are_patches)");
    run->add_option(
        "--baseline", flags.baseline,
        "compare verdicts and records with this saved JSON report (docs/regression.md)");
    run->add_flag("--record-digests", flags.record_digests,
                  "add per-stream record digests to the JSON report, for a later --baseline");
    run->add_option("--acceptance-test-config", flags.acceptance_test_config,
                    "Airbyte's acceptance-test-config.yml instead of a test config "
                    "(docs/acceptance-test-config.md)");
    run->add_option("--known-failures", flags.known_failures,
                    "failures to report as expected; an entry whose check passes fails the run "
                    "(docs/known-failures.md)");
    run->add_option("--write-known-failures", flags.write_known_failures,
                    "write today's failures to this file, as a known-failures list to start from");
    run->add_option("--rerun-failed", flags.rerun_failed,
                    "run a scenario with an unexpected failure again, up to N times; a check "
                    "that then passes is reported flaky")
        ->check(CLI::Range(0, 10));
    run->add_flag("--fail-fast", flags.fail_fast,
                  "stop after the first scenario with a failed check");
    run->add_flag("--dry-run", flags.dry_run,
                  "list the scenarios, steps and checks that would run; start nothing");
    run->add_option("--shard", flags.shard,
                    "K/N: run every Nth selected scenario from the Kth (merge: conform report)");
    run->add_option("--connector-version", flags.connector_version,
                    "the connector's version for reports (default: the image's version label)");
    add_report_flags(*run, flags);

    auto* list = app.add_subcommand("list", "list suites, scenarios and checks with their clauses");
    list->add_option("--suite", flags.suites, "suite file(s) instead of the built-in suites");

    std::string catalog_path;
    std::string transcript_path;
    auto* validate = app.add_subcommand(
        "validate", "check a recorded `read` transcript offline, with the live run's checks");
    validate->add_option("--catalog", catalog_path, "the configured catalog of the read")
        ->required();
    validate->add_option("transcript", transcript_path, "the read's stdout, one message per line")
        ->required();
    add_report_flags(*validate, flags);

    DiffFlags versions;
    auto* diff = app.add_subcommand(
        "diff", "run two versions of a connector and report what changed (docs/regression.md)");
    diff->add_option("--control", versions.control, "command line of the previous version");
    diff->add_option("--target", versions.target, "command line of the new version");
    diff->add_option("--control-image", versions.control_image, "image of the previous version");
    diff->add_option("--target-image", versions.target_image, "image of the new version");
    diff->add_option("--control-manifest", versions.control_manifest,
                     "manifest.yaml of the previous version of a manifest-only connector");
    diff->add_option("--target-manifest", versions.target_manifest,
                     "manifest.yaml of the new version of a manifest-only connector");
    diff->add_option("-t,--test-config", flags.test_config,
                     "test config (its connector is replaced by each version)");
    diff->add_option("--config", flags.config, "connector config file (without --test-config)");
    diff->add_option("--catalog", flags.catalog, "configured catalog (default: from discover)");
    add_selection_and_container_flags(
        *diff, flags, "STREAM:/pointer of a field that may differ between versions (repeatable)");
    add_report_flags(*diff, flags);
    diff->footer(
        "Exit codes of diff: 0 no breaking difference (only harmless or accepted ones; checks "
        "that fail on both versions are no difference); 1 at least one breaking difference the "
        "test config does not accept; 2 bad command line; 3 bad test config, suite or catalog; 4 "
        "conform's own error; 130 interrupted.");
    std::vector<std::string> report_inputs;
    auto* report_cmd = app.add_subcommand(
        "report", "render saved JSON reports, merging the shards of a run into one");
    report_cmd->add_option("reports", report_inputs, "JSON reports (--report-json) to render")
        ->required()
        ->check(CLI::ExistingFile);
    add_format_flags(*report_cmd, flags, true);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        int code = app.exit(error);
        if (code != 0) {
            auto hint = mistyped_word_hint(app, argc, argv);
            if (!hint.empty()) {
                fmt::print(stderr, "conform: {}\n", hint);
            }
        }
        return code == 0 ? k_exit_passed : k_exit_usage;
    }
    try {
        // A malformed CONFORM_ANALYSIS_THREADS is a usage error before a read runs.
        if (*run || *validate || *diff) {
            protocol::prepare_on_worker_by_default();
        }
        if (*run) {
            install_stop_handler();
            return run_command(flags, argc, argv);
        }
        if (*list) {
            return list_command(flags.suites);
        }
        if (*diff) {
            install_stop_handler();
            return diff_command(flags, versions, argc, argv);
        }
        if (*report_cmd) {
            return report_command(report_inputs, flags);
        }
        return validate_command(catalog_path, transcript_path, flags, argc, argv);
    } catch (const Error& error) {
        fmt::print(stderr, "conform: error: {}\n", error.what());
        switch (error.kind()) {
            case ErrorKind::usage:
                return k_exit_usage;
            case ErrorKind::input:
                return k_exit_bad_input;
            case ErrorKind::internal:
                return k_exit_internal;
            case ErrorKind::interrupted:
                return k_exit_interrupted;
        }
    } catch (const std::exception& error) {
        fmt::print(stderr, "conform: internal error: {}\n", error.what());
    }
    return k_exit_internal;
}

}  // namespace conform::cli
