// The streams part of the report's coverage (suite/coverage.*): what discover offers, what the
// configured catalog holds, and where the two disagree on a stream's key or cursor.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "protocol/catalog.hpp"
#include "protocol/observation.hpp"
#include "suite/coverage.hpp"

using namespace conform;

namespace {

// A discover run whose CATALOG lists `streams` (AirbyteStream objects as JSON).
protocol::Observation discovered(const std::string& streams) {
    protocol::Observation discover;
    discover.kept.push_back(
        {"CATALOG", 1, R"({"type":"CATALOG","catalog":{"streams":[)" + streams + "]}}"});
    return discover;
}

protocol::CatalogStream configured(std::string name, std::string sync_mode,
                                   std::vector<protocol::FieldPath> primary_key,
                                   protocol::FieldPath cursor) {
    protocol::CatalogStream stream;
    stream.name = std::move(name);
    stream.sync_mode = std::move(sync_mode);
    stream.primary_key = std::move(primary_key);
    stream.cursor_field = std::move(cursor);
    return stream;
}

const report::StreamCoverage& stream_named(const report::StreamsCoverage& coverage,
                                           const std::string& name) {
    for (const auto& stream : coverage.streams) {
        if (stream.stream == name) {
            return stream;
        }
    }
    FAIL("no stream " << name);
    return coverage.streams.front();
}

}  // namespace

TEST_CASE("stream coverage: where the configured catalog contradicts discover, it says so") {
    suite::StreamTally tally;
    // As source-faker 6.1.1 discovers its streams, while its integration tests' configured
    // catalog predates the keys and names created_at as the default cursor.
    tally.add_discovered(discovered(
        R"({"name":"purchases","source_defined_primary_key":[["id"]],"source_defined_cursor":true,)"
        R"("default_cursor_field":["updated_at"]},)"
        R"({"name":"users","source_defined_primary_key":[["id"]],"source_defined_cursor":true,)"
        R"("default_cursor_field":["updated_at"]},)"
        R"({"name":"orders","source_defined_primary_key":[["id"],["line"]]},)"
        R"({"name":"logs","source_defined_cursor":false,"default_cursor_field":["at"]})"));
    protocol::Catalog catalog;
    catalog.streams = {configured("purchases", "incremental", {}, {"created_at"}),
                       configured("users", "full_refresh", {{"id"}}, {}),
                       configured("orders", "incremental", {{"id"}}, {"at"}),
                       configured("logs", "incremental", {}, {"ts"}),
                       configured("elsewhere", "incremental", {}, {"x"})};
    auto coverage = tally.coverage(catalog);

    CHECK(stream_named(coverage, "purchases").catalog_differences ==
          std::vector<std::string>{
              "the configured catalog names no primary key; discover declares /id",
              "the configured cursor is /created_at; discover says the source's own cursor is "
              "/updated_at"});
    // The key agrees, and a full-refresh read has no cursor to disagree about.
    CHECK(stream_named(coverage, "users").catalog_differences.empty());
    CHECK(stream_named(coverage, "orders").catalog_differences ==
          std::vector<std::string>{
              "the configured primary key is /id; discover declares /id, /line"});
    // A cursor the user chooses (source_defined_cursor false) and a stream discover does not
    // list contradict nothing.
    CHECK(stream_named(coverage, "logs").catalog_differences.empty());
    CHECK(stream_named(coverage, "elsewhere").catalog_differences.empty());
}

TEST_CASE("stream coverage: without a discover there is nothing to contradict") {
    suite::StreamTally tally;
    protocol::Catalog catalog;
    catalog.streams = {configured("purchases", "incremental", {}, {"created_at"})};
    auto coverage = tally.coverage(catalog);
    CHECK_FALSE(coverage.available_known);
    CHECK(stream_named(coverage, "purchases").catalog_differences.empty());
}
