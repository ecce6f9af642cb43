#include "fake_connector.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include "config/test_config.hpp"
#include "json/parse.hpp"
#include "suite/scenario.hpp"
#include "util/files.hpp"

namespace conform::testing {

namespace {

std::string file_after(const std::vector<std::string>& argv, std::string_view flag) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == flag) {
            return read_text_file(argv[i + 1]);
        }
    }
    return {};
}

ext::KeyRange range_of(const std::string& catalog) {
    if (catalog.empty()) {
        return ext::KeyRange::full();
    }
    auto document = json::parse_json_text(catalog, "catalog");
    for (const char* key : {"estuary.dev/range", "range"}) {
        if (document.HasMember(key)) {
            return ext::parse_key_range(document[key]);
        }
    }
    return ext::KeyRange::full();
}

suite::Executor executor_for(const Behaviour& behaviour) {
    return [behaviour](const process::LaunchSpec& spec, process::Observer& observer) {
        Invocation invocation;
        invocation.command = spec.argv.size() > 1 ? spec.argv[1] : "";
        invocation.config = file_after(spec.argv, "--config");
        invocation.catalog = file_after(spec.argv, "--catalog");
        auto state = file_after(spec.argv, "--state");
        if (!state.empty()) {
            invocation.state = state;
        }
        invocation.range = range_of(invocation.catalog);
        auto answer =
            invocation.command == "spec" ? Answer{{spec_line()}, 0} : behaviour(invocation);
        process::RunResult result;
        std::uint64_t number = 0;
        for (const auto& line : answer.lines) {
            observer.on_stdout_line(line, ++number, false);
        }
        result.exit.code = answer.exit_code;
        result.stdout_lines = number;
        return result;
    };
}

const report::CheckResult* find(const report::RunReport& report, const std::string& scenario,
                                const std::string& check) {
    for (const auto& result : report.scenarios) {
        if (result.id != scenario) {
            continue;
        }
        for (const auto& checked : result.checks) {
            if (checked.id == check) {
                return &checked;
            }
        }
    }
    return nullptr;
}

}  // namespace

config::TestConfig fake_test_config(const std::string& catalog_json,
                                    std::vector<std::string> extensions) {
    config::TestConfig config;
    config.origin = "<fake>";
    config.command = {"fake-connector"};
    config.config_text = "{}";
    config.catalog_text = catalog_json;
    config.extensions = std::move(extensions);
    config.resume_sample = 0;
    return config;
}

report::RunReport run_fake(const Behaviour& behaviour, const config::TestConfig& test_config,
                           const std::string& suite_json, bool strict) {
    suite::RunOptions options;
    options.strict = strict;
    options.executor = executor_for(behaviour);
    report::Reporter silent;
    suite::Runner runner(test_config, options, silent);
    return runner.run(suite::load_suite_text(suite_json, "test-suite.json"));
}

std::string status_of(const report::RunReport& report, const std::string& scenario,
                      const std::string& check) {
    const auto* found = find(report, scenario, check);
    return found == nullptr ? "absent" : std::string(report::status_name(found->status));
}

std::string first_message(const report::RunReport& report, const std::string& scenario,
                          const std::string& check) {
    const auto* found = find(report, scenario, check);
    if (found == nullptr) {
        return "absent";
    }
    return found->examples.empty() ? found->note : found->examples.front().message;
}

std::string record_line(const std::string& stream, const std::string& data_json) {
    return fmt::format(
        R"({{"type":"RECORD","record":{{"stream":"{}","data":{},"emitted_at":1700000000000}}}})",
        stream, data_json);
}

std::string spec_line() {
    return R"({"type":"SPEC","spec":{"connectionSpecification":{"type":"object"}}})";
}

}  // namespace conform::testing
