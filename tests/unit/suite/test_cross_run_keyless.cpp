// Comparisons across runs on a stream without a primary key (events configured without one):
// conform fails only the losses the counts prove; records whose values changed are advice.
#include <doctest/doctest.h>

#include <string>

#include "fake_connector.hpp"

using namespace conform;
using namespace conform::testing;

namespace {

report::RunReport run_source(const SourceModel& model, std::vector<std::string> only,
                             const config::TestConfig& config) {
    return run_builtin(model.behaviour(), config, std::move(only));
}

// The source's test config with its incremental events stream configured without a key.
config::TestConfig keyless_events() {
    auto config = source_test_config({"range"});
    const std::string key = ",\n   \"primary_key\":[[\"id\"]]}]}";
    REQUIRE(config.catalog_text.has_value());
    auto& catalog = *config.catalog_text;
    auto at = catalog.rfind(key);
    REQUIRE(at != std::string::npos);
    catalog.replace(at, key.size(), "}]}");
    return config;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
        ++count;
    }
    return count;
}

}  // namespace

TEST_CASE("cross-run keyless: values regenerated on resume advise once, and prove no loss") {
    SourceModel regenerates;
    regenerates.resume_regenerates_notes = true;
    auto report = run_source(regenerates, {"resume"}, keyless_events());
    expect_verdict(report, "resume", "state.resume_no_loss", "warned",
                   "without a primary key, 2 record(s) of 'events' differ in content after "
                   "resuming from checkpoint");
    auto messages = all_messages(report, "resume", "state.resume_no_loss");
    CHECK(occurrences(messages, "conform cannot tell a lost record from a changed one") == 1);
    CHECK(messages.find("lost after resuming") == std::string::npos);
    expect_verdict(report, "resume", "state.commit_boundaries", "skipped",
                   "not judged, as conform cannot tell a lost record from a changed one");

    // With the key, the same behaviour is "same key, other content" (and no loss either).
    auto keyed = run_source(regenerates, {"resume"}, source_test_config({"range"}));
    expect_verdict(keyed, "resume", "state.resume_no_loss", "warned", "same key, other content");
    expect_verdict(keyed, "resume", "state.commit_boundaries", "passed", "");
}

TEST_CASE("cross-run keyless: a resumed read that skips a record still fails, with its count") {
    SourceModel skips;
    skips.resume_skips_second = true;
    auto report = run_source(skips, {"resume"}, keyless_events());
    expect_verdict(report, "resume", "state.resume_no_loss", "failed",
                   "never emitted by the resumed read: at least 1 record(s) of 'events', a stream "
                   "without a primary key (1 missing by content, 0 other record(s)");
    expect_verdict(report, "resume", "state.commit_boundaries", "passed", "");

    // Regenerated values do not hide a record that is missing beyond them.
    skips.resume_regenerates_notes = true;
    auto both = run_source(skips, {"resume"}, keyless_events());
    expect_verdict(both, "resume", "state.resume_no_loss", "failed",
                   "at least 1 record(s) of 'events', a stream without a primary key (2 missing "
                   "by content, 1 other record(s) that may be changed versions of them)");
}

TEST_CASE("cross-run keyless: a STATE ahead of its records still fails commit_boundaries") {
    SourceModel ahead;
    ahead.state_ahead = true;
    auto report = run_source(ahead, {"resume"}, keyless_events());
    expect_verdict(report, "resume", "state.commit_boundaries", "failed",
                   "covers records emitted after it: resuming from it lost 1 of the 2 record(s)");
    expect_verdict(report, "resume", "state.resume_no_loss", "failed",
                   "a stream without a primary key");
}

TEST_CASE("cross-run keyless: child ranges and range splits count what they prove") {
    SourceModel ahead;
    ahead.state_ahead = true;
    auto subdivided = run_source(ahead, {"range-subdivide"}, keyless_events());
    expect_verdict(subdivided, "range-subdivide", "range.state_subdivision", "failed",
                   "a stream without a primary key");
    SourceModel ignores;
    ignores.ignores_range = true;
    expect_verdict(run_source(ignores, {"range-splits"}, keyless_events()), "range-splits",
                   "range.split_union", "failed",
                   "duplicated (emitted by more shards than the full range emitted it): at least");
    expect_verdict(run_source(SourceModel{}, {"range-splits", "range-subdivide"}, keyless_events()),
                   "range-subdivide", "range.state_subdivision", "passed", "");
}
