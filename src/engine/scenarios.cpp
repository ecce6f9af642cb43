#include "engine/scenarios.hpp"

#include <rapidjson/document.h>

#include "util/error.hpp"
#include "util/files.hpp"

namespace conform::engine {

bool declares_protocol(const std::filesystem::path& path, std::string_view protocol) {
    if (path.empty()) {
        return false;
    }
    // Read as every input is: a device or an endless FIFO is refused, not read whole. Loading
    // the test config then gives the error.
    std::string text;
    try {
        text = read_text_file(path);
    } catch (const Error&) {
        return false;
    }
    rapidjson::Document document;
    document.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag>(
        text.c_str(), text.size());
    if (document.HasParseError() || !document.IsObject()) {
        return false;
    }
    auto it = document.FindMember("protocol");
    return it != document.MemberEnd() && it->value.IsString() &&
           std::string_view(it->value.GetString()) == protocol;
}

report::RunReport run_builtin_suite(ScenarioSource& source, const RunOptions& options,
                                    report::Reporter& reporter,
                                    const std::filesystem::path& test_config,
                                    std::string_view protocol) {
    auto report = run(source, options, reporter);
    report.test_config = test_config.string();
    report.protocol = std::string(protocol);
    return report;
}

}  // namespace conform::engine
