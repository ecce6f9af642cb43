#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "json/parse.hpp"
#include "protocol/catalog.hpp"
#include "suite/transcript.hpp"

using namespace conform;
using namespace conform::suite;
using report::Status;

namespace {

protocol::Catalog test_catalog(bool keyed = true) {
    auto document = json::parse_json_text(R"({"streams":[
      {"stream":{"name":"users","json_schema":{"type":"object","properties":{
          "id":{"type":"integer"},"born":{"type":"string","format":"date"}}}},
       "sync_mode":"full_refresh")" + std::string(keyed ? R"(,"primary_key":[["id"]])" : "") +
                                              "}]}",
                                          "catalog.json");
    return protocol::load_catalog(document, "catalog.json", {});
}

std::string user(int id, std::string_view born = "2000-01-31") {
    return R"({"type":"RECORD","record":{"stream":"users","data":{"id":)" + std::to_string(id) +
           R"(,"born":")" + std::string(born) + R"("},"emitted_at":1700000000000}})";
}

const std::string k_state = R"({"type":"STATE","state":{"data":{"n":1}}})";

std::map<std::string, Status> statuses(const report::RunReport& report) {
    std::map<std::string, Status> result;
    for (const auto& check : report.scenarios.at(0).checks) {
        result[check.id] = check.status;
    }
    return result;
}

report::RunReport validate(const std::string& text, bool strict, bool keyed = true) {
    auto catalog = test_catalog(keyed);
    std::istringstream transcript(text);
    return validate_transcript(transcript, "saved.jsonl", catalog, checks::airbyte_checks(),
                               strict);
}

}  // namespace

TEST_CASE("validate_transcript: a clean transcript passes every transcript check") {
    auto report = validate(user(1) + "\n" + user(2) + "\n" + k_state + "\n", false);
    REQUIRE(report.scenarios.size() == 1);
    const auto& scenario = report.scenarios[0];
    CHECK(scenario.id == "transcript");
    CHECK(scenario.status == Status::passed);
    CHECK(report.connector == "saved.jsonl");
    REQUIRE(scenario.checks.size() == transcript_checks(checks::airbyte_checks()).size());
    // Nothing to judge for these: the catalog has no incremental stream, no STATE is a patch or
    // carries sourceStats.
    const std::set<std::string> nothing_to_judge{"read.cursor_present", "merge.reduction_valid",
                                                 "state.record_counts"};
    for (const auto& check : scenario.checks) {
        CAPTURE(check.id);
        CHECK(check.status ==
              (nothing_to_judge.count(check.id) ? Status::skipped : Status::passed));
    }
}

// What validate runs is derived from the checks' needs: every check one recorded read can feed
// and that reads nothing from a test config; no list to keep by hand.
TEST_CASE("transcript_checks: the checks whose needs one recorded read meets") {
    auto ids = transcript_checks(checks::airbyte_checks());
    CHECK(std::set<std::string>(ids.begin(), ids.end()) ==
          std::set<std::string>{"io.json_lines", "io.messages_valid", "io.known_types",
                                "read.streams_configured", "read.records_match_schema",
                                "read.emitted_at_ms", "read.primary_key_present",
                                "read.cursor_present", "state.well_formed", "merge.reduction_valid",
                                "state.final_checkpoint", "read.no_duplicates",
                                "state.record_counts", "read.streams_have_records"});
}

TEST_CASE("validate_transcript: findings become the expected statuses") {
    std::string text = user(1) + "\n" + "INFO starting\n" + user(2, "2000-02-30") + "\n" + k_state +
                       "\n" + user(3) + "\n";
    auto report = validate(text, false);
    auto status = statuses(report);
    CHECK(status.at("io.json_lines") == Status::warned);
    CHECK(status.at("io.messages_valid") == Status::passed);
    CHECK(status.at("io.known_types") == Status::passed);
    CHECK(status.at("read.streams_configured") == Status::passed);
    CHECK(status.at("read.records_match_schema") == Status::failed);
    CHECK(status.at("read.emitted_at_ms") == Status::passed);
    CHECK(status.at("read.primary_key_present") == Status::passed);
    CHECK(status.at("read.cursor_present") == Status::skipped);
    CHECK(status.at("state.well_formed") == Status::passed);
    CHECK(status.at("merge.reduction_valid") == Status::skipped);
    CHECK(status.at("state.final_checkpoint") == Status::warned);
    CHECK(report.scenarios[0].status == Status::failed);
    CHECK(!report.strict);

    for (const auto& check : report.scenarios[0].checks) {
        if (check.id == "io.json_lines") {
            REQUIRE(check.examples.size() == 1);
            CHECK(check.examples[0].line == 2);
            CHECK(check.examples[0].run == "saved.jsonl");
            CHECK(check.examples[0].excerpt == "INFO starting");
        }
        if (check.id == "read.records_match_schema") {
            REQUIRE(check.examples.size() == 1);
            CHECK(check.examples[0].line == 3);
        }
        if (check.id == "state.final_checkpoint") {
            REQUIRE(check.examples.size() == 1);
            CHECK(check.examples[0].line == 5);
        }
    }
}

TEST_CASE("validate_transcript: strict turns SHOULD warnings into failures") {
    auto report = validate(user(1) + "\nnot json\n" + k_state + "\n", true);
    auto status = statuses(report);
    CHECK(status.at("io.json_lines") == Status::failed);
    CHECK(status.at("state.final_checkpoint") == Status::passed);
    CHECK(report.scenarios[0].status == Status::failed);
    CHECK(report.strict);
}

namespace {

const report::CheckResult& check_of(const report::RunReport& report, std::string_view id) {
    const auto& checks = report.scenarios.at(0).checks;
    auto found = std::find_if(checks.begin(), checks.end(),
                              [id](const report::CheckResult& check) { return check.id == id; });
    REQUIRE(found != checks.end());
    return *found;
}

}  // namespace

TEST_CASE("validate_transcript: read.no_duplicates compares the records of keyed streams") {
    std::string twice = user(1) + "\n" + user(2) + "\n" + user(1) + "\n" + k_state + "\n";
    auto keyed = validate(twice, false);
    const auto& found = check_of(keyed, "read.no_duplicates");
    CHECK(found.status == Status::warned);
    CHECK(found.occurrences == 1);

    // Without a primary key nothing is compared: the check is skipped, not passed, and the other
    // checks still see every record (data validated, duplicate names found in it).
    std::string keyless = twice + user(3, "2000-02-30") + "\n" +
                          R"({"type":"RECORD","record":{"stream":"users","data":{"id":4,"id":5},)"
                          R"("emitted_at":1700000000000}})"
                          "\n";
    auto report = validate(keyless, false, false);
    const auto& skipped = check_of(report, "read.no_duplicates");
    CHECK(skipped.status == Status::skipped);
    CHECK(skipped.note == "no read emitted a record of a stream with a primary key");
    CHECK(check_of(report, "read.records_match_schema").occurrences == 1);
    CHECK(check_of(report, "io.json_lines").occurrences == 1);
    CHECK(check_of(report, "read.primary_key_present").status == Status::skipped);
}

namespace {

// `text` validated from a file at `path` holding `on_disk` (the file as it is read again).
report::RunReport validate_file(const std::string& text, const std::string& on_disk) {
    auto path = std::filesystem::temp_directory_path() /
                ("conform-validate-deferred-" + std::to_string(::getpid()) + ".jsonl");
    std::ofstream(path) << on_disk;
    auto catalog = test_catalog();
    std::istringstream transcript(text);
    auto report =
        validate_transcript(transcript, path.string(), catalog, checks::airbyte_checks(), false);
    std::filesystem::remove(path);
    return report;
}

}  // namespace

TEST_CASE("validate_transcript: a duplicate's example names its key as JSON") {
    auto record = [](std::string_view id) {
        return R"({"type":"RECORD","record":{"stream":"users","data":{"id":)" + std::string(id) +
               R"(},"emitted_at":1700000000000}})" + std::string("\n");
    };
    std::string text;
    for (std::string_view id :
         {"-7", "18446744073709551615", R"("0123456789012345678901234567890123456789xyz")",
          R"("q\"x\u00e9")", "2.5", R"("a-b")"}) {
        text += record(id) + record(id);
    }
    auto report = validate(text, false);
    const auto& check = check_of(report, "read.no_duplicates");
    REQUIRE(check.examples.size() == 5);
    CHECK(check.occurrences == 6);
    std::vector<std::string> keys;
    for (const auto& example : check.examples) {
        auto end = example.message.find(" (line");
        auto start = example.message.rfind("key ", end);
        REQUIRE(start != std::string::npos);
        REQUIRE(end != std::string::npos);
        keys.push_back(example.message.substr(start + 4, end - start - 4));
    }
    CHECK(keys == std::vector<std::string>{"[-7]", "[18446744073709551615]",
                                           R"(["01234567890123456789012345678901234567)"
                                           "…",
                                           R"(["q\"xé"])", "[2.5]"});
}

// Whether an example of `check` says `text`.
bool any_example(const report::CheckResult& check, std::string_view text) {
    return std::any_of(check.examples.begin(), check.examples.end(), [text](const auto& example) {
        return example.message.find(text) != std::string::npos;
    });
}

// From a file, the contents of keyed records are digested only where a key repeats, from the
// lines read again: the verdict is the one of a transcript read once (a pipe), digested as read.
TEST_CASE("validate_transcript: keyed contents read again from the file give the same verdict") {
    std::string reordered =
        R"({"type":"RECORD","record":{"stream":"users","data":{"born":"2000-01-31","id":1},)"
        R"("emitted_at":1700000000001}})";
    std::string text = user(1) + "\n" + user(2) + "\n" + reordered + "\n" + user(2, "2001-01-31") +
                       "\n" + user(3) + "\n" + user(1) + "\n" + k_state + "\n";
    auto from_file = validate_file(text, text);
    auto read_once = validate(text, false);
    for (const auto* report : {&from_file, &read_once}) {
        const auto& check = check_of(*report, "read.no_duplicates");
        CHECK(check.status == Status::warned);
        // Key 1 twice again, same content; key 2 with other content in this full-refresh stream.
        CHECK(check.occurrences == 3);
        CHECK(any_example(check, "same key and content: users key [1] (line 3 of"));
        CHECK(any_example(check, "does not identify the record"));
    }
    CHECK(check_of(validate_file(user(1) + "\n" + user(2) + "\n", user(1) + "\n" + user(2)),
                   "read.no_duplicates")
              .status == Status::passed);
}

// Enough repeated keys that the records fill several comparison partitions and the copies read
// again several batches: the count is the one of a transcript digested as read.
TEST_CASE("validate_transcript: many copies of few keys, read again in batches, same verdict") {
    constexpr int records = 150'000;
    constexpr int keys = 1'000;
    const std::array<std::string_view, 3> borns = {"2000-01-31", "2000-02-01", "2000-02-02"};
    std::string text;
    for (int i = 0; i < records; ++i) {
        text += user(i % keys, borns[static_cast<std::size_t>(i / keys % 3)]) + "\n";
    }
    auto from_file = validate_file(text, text);
    auto read_once = validate(text, false);
    for (const auto* report : {&from_file, &read_once}) {
        const auto& check = check_of(*report, "read.no_duplicates");
        CHECK(check.status == Status::warned);
        // Every copy but the first of a content, and the first of each other content of a key.
        CHECK(check.occurrences == records - keys);
        CHECK(check.examples[0].message.find("same key and content: users key [0] (line 3001 of") !=
              std::string::npos);
    }
}

// Distinct keys but two, enough of them that the analyzer's filter of seen identities says "seen"
// wrongly now and then: read.no_duplicates compares the records of those identities only, and
// still finds the one copy (and not the key whose content changed).
TEST_CASE("validate_transcript: among many distinct keys, the one repeated copy is found") {
    constexpr int records = 150'000;
    std::string distinct;
    for (int i = 0; i < records; ++i) {
        distinct += user(i) + "\n";
    }
    std::string text = distinct + user(8, "2001-01-31") + "\n" + user(7) + "\n";
    auto from_file = validate_file(text, text);
    auto read_once = validate(text, false);
    for (const auto* report : {&from_file, &read_once}) {
        const auto& check = check_of(*report, "read.no_duplicates");
        CHECK(check.status == Status::warned);
        CHECK(check.occurrences == 2);  // user 7 again; user 8 with other content
        REQUIRE(check.examples.size() == 2);
        CHECK(any_example(check, "same key and content: users key [7] (line 150002 of"));
        CHECK(any_example(check, "other content: users key [8] (line 150001 of"));
    }
    CHECK(check_of(validate_file(distinct, distinct), "read.no_duplicates").status ==
          Status::passed);
}

// A file that changed while it was checked: the copies that cannot be read again are not
// compared, and the report says so instead of passing them.
TEST_CASE("validate_transcript: repeated keys whose lines changed since are not compared") {
    // A key's first copy is read again (the later ones were digested as read): lines 1 and 2.
    std::string text = user(1) + "\n" + user(2) + "\n" + user(1) + "\n" + user(2) + "\n";
    auto report = validate_file(text, "changed\nchanged\n" + user(1) + "\n" + user(2) + "\n");
    const auto& check = check_of(report, "read.no_duplicates");
    CHECK(check.status == Status::passed);
    CHECK(check.occurrences == 0);
    CHECK(check.note.find("2 records of") != std::string::npos);
    CHECK(check.note.find("could not be read again") != std::string::npos);
}

TEST_CASE("validate_transcript: an empty transcript passes nothing; its empty stream warns") {
    auto report = validate("", false);
    CHECK(report.scenarios.at(0).status == Status::warned);
    for (const auto& check : report.scenarios.at(0).checks) {
        CAPTURE(check.id);
        if (check.id == "read.streams_have_records") {
            CHECK(check.status == Status::warned);
            continue;
        }
        CHECK(check.status == Status::skipped);
        CHECK(!check.note.empty());
    }
}

TEST_CASE("validate_transcript: examples carry the lines around them from the transcript file") {
    auto path = std::filesystem::temp_directory_path() /
                ("conform-validate-context-" + std::to_string(::getpid()) + ".jsonl");
    {
        std::ofstream out(path);
        out << user(1) << "\n"
            << user(2) << "\nDEBUG page 2\n"
            << user(3) << "\n"
            << k_state << "\n";
    }
    auto catalog = test_catalog();
    std::ifstream transcript(path);
    auto report =
        validate_transcript(transcript, path.string(), catalog, checks::airbyte_checks(), false);
    std::filesystem::remove(path);
    const report::Example* example = nullptr;
    for (const auto& check : report.scenarios.at(0).checks) {
        if (check.id == "io.json_lines" && !check.examples.empty()) {
            example = &check.examples[0];
        }
    }
    REQUIRE(example != nullptr);
    CHECK(example->line == 3);
    REQUIRE(example->context.size() == 5);
    CHECK(example->context[2].text == "DEBUG page 2");
    CHECK(example->context[0].number == 1);
    CHECK(example->context[4].number == 5);
}
