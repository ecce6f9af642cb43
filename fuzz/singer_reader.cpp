// Fuzz target: a Singer tap's stdout lines (and the same bytes as its stderr) through the Singer
// reader with the per-message code of every Singer check, a catalog of two streams (one
// incremental, with a floor) and a secret; then the end of the run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "checks/checks.hpp"
#include "fuzz_input.hpp"
#include "protocol/secrets.hpp"
#include "singer/messages.hpp"

namespace {

constexpr std::string_view k_catalog = R"({"streams":[
  {"tap_stream_id":"users","stream":"users","schema":{"type":"object","properties":{
      "id":{"type":"integer"},"updated_at":{"type":"string","format":"date-time"}}},
   "key_properties":["id"],
   "metadata":[{"breadcrumb":[],"metadata":{"valid-replication-keys":["updated_at"]}},
     {"breadcrumb":["properties","id"],"metadata":{"inclusion":"automatic"}}]},
  {"tap_stream_id":"logs","schema":{"type":"object"},
   "metadata":[{"breadcrumb":[],"metadata":{"forced-replication-method":"FULL_TABLE"}}]}]})";

const conform::singer::Catalog& catalog() {
    static const conform::singer::Catalog read = [] {
        std::string problem;
        return *conform::singer::Catalog::read(k_catalog, problem);
    }();
    return read;
}

// The judges of every per-message check, as a sync listing them all runs them.
std::vector<const conform::singer::MessageJudge*> every_judge() {
    std::vector<const conform::singer::MessageJudge*> judges;
    for (const auto& check : conform::checks::singer_checks()) {
        if (check.judge != nullptr) {
            judges.push_back(check.judge);
        }
    }
    return judges;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text = conform::fuzz::as_text(data, size);
    conform::protocol::Secrets secrets({"s3cret-token"});
    conform::singer::ReaderSetup setup;
    setup.catalog = &catalog();
    setup.replication_keys = {{"users", "updated_at"}};
    setup.full_table_streams = {"logs"};
    conform::singer::StreamFloor floor{
        conform::protocol::CursorValue{std::nullopt, "2024-01-01T00:00:00Z"}, {}};
    floor.partitions.push_back(
        {R"({"org":"acme"})",
         {{"org", R"("acme")"}},
         conform::protocol::CursorValue{std::nullopt, "2024-02-01T00:00:00Z"}});
    setup.floors = {{"users", floor}};
    setup.secrets = &secrets;
    setup.judges = every_judge();
    setup.activate_version_claimed = true;
    conform::singer::TapRun run;
    run.started = true;
    run.process.exit.code = 0;
    {
        conform::singer::Reader reader(std::move(setup), run);
        conform::fuzz::feed_stdout_lines(reader, text);
        reader.on_stderr(conform::fuzz::as_text(data, size));
        reader.finish(conform::fuzz::as_text(data, size));
    }
    (void)run.final_bookmarks();
    return 0;
}
