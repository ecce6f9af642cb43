// Fuzz target: stdout lines (and stderr) through the protocol analyzer of a live read.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "checks/checks.hpp"
#include "fuzz_input.hpp"
#include "json/parse.hpp"
#include "protocol/analyzer.hpp"
#include "protocol/catalog.hpp"
#include "protocol/secrets.hpp"

namespace {

constexpr std::string_view k_catalog = R"({"streams":[
  {"stream":{"name":"users","json_schema":{"type":"object","properties":{
      "id":{"type":["integer","string"]},"updated":{"type":"string","format":"date-time"},
      "name":{"type":"string","pattern":"^[a-z]+$"}}},
    "supported_sync_modes":["full_refresh","incremental"]},
   "sync_mode":"incremental","cursor_field":["updated"],"primary_key":[["id"]],
   "destination_sync_mode":"append"},
  {"stream":{"name":"logs","namespace":"app","json_schema":{"type":"object"},
    "supported_sync_modes":["full_refresh"]},
   "sync_mode":"full_refresh","destination_sync_mode":"overwrite"}]})";

const conform::protocol::Catalog& catalog() {
    static const conform::protocol::Catalog loaded = [] {
        auto document = conform::json::parse_json_text(k_catalog, "catalog.json");
        return conform::protocol::load_catalog(document, "catalog.json", {{"logs", {"/seen_at"}}});
    }();
    return loaded;
}

// The per-line code of every per-message check, as a read scenario listing them all runs it.
std::vector<const conform::protocol::LineJudge*> every_judge() {
    const auto& checks = conform::checks::airbyte_checks();
    std::vector<std::string> ids;
    for (const auto& check : checks) {
        ids.emplace_back(check.info.id);
    }
    return conform::suite::judges_of(checks, ids);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text = conform::fuzz::as_text(data, size);
    conform::protocol::Secrets secrets({"s3cret-token", "pin"});
    conform::protocol::AnalyzerSetup setup;
    setup.catalog = &catalog();
    setup.secrets = &secrets;
    setup.judges = every_judge();
    // The input's length picks the analyzer's mode, so that both ways of preparing lines (each at
    // once, or in batches shared with a worker thread) are exercised, with keyless records'
    // contents digested or not.
    setup.prepare_on_worker = (size & 1U) != 0;
    setup.keyless_contents = (size & 2U) != 0;
    conform::protocol::Analyzer analyzer(std::move(setup));
    conform::fuzz::feed_stdout_lines(analyzer, text);
    analyzer.on_stderr(conform::fuzz::as_text(data, size));
    conform::process::RunResult result;
    result.exit.code = 0;
    result.stderr_text = std::string(conform::fuzz::as_text(data, size));
    auto observation = analyzer.finish(std::move(result));
    (void)observation;
    return 0;
}
