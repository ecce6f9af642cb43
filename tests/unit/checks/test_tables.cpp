#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "checks/checks.hpp"

using namespace conform;
using engine::CheckInfo;
using report::Level;

namespace {

std::vector<CheckInfo> all_checks() {
    return checks::all_infos();
}

std::optional<CheckInfo> find_check(std::string_view id) {
    for (const auto& check : all_checks()) {
        if (check.id == id) {
            return check;
        }
    }
    return std::nullopt;
}

std::string contract_text() {
    const char* data = std::getenv("CONFORM_TEST_DATA");
    REQUIRE_MESSAGE(data != nullptr, "CONFORM_TEST_DATA is not set (run through ctest)");
    auto path = std::filesystem::path(data) / ".." / ".." / "docs" / "CONTRACT.md";
    std::ifstream file(path);
    REQUIRE_MESSAGE(file.good(), "cannot read " << path);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// The clause ids the contract defines: the first cell of its table rows.
std::set<std::string> contract_clauses() {
    std::set<std::string> clauses;
    std::istringstream lines(contract_text());
    std::regex row(R"(^\| *((AP|X|MX|SG|DST)-[A-Z]+-[0-9]+) *\|)");
    std::string line;
    std::smatch match;
    while (std::getline(lines, line)) {
        if (std::regex_search(line, match, row)) {
            clauses.insert(match[1]);
        }
    }
    return clauses;
}

std::set<std::string> clauses_named_by_checks() {
    std::set<std::string> named;
    for (const auto& check : all_checks()) {
        named.insert(check.clauses.begin(), check.clauses.end());
    }
    return named;
}

}  // namespace

TEST_CASE("check tables: ids are unique and well formed, every check names clauses") {
    std::set<std::string_view> ids;
    std::regex id_pattern("^[a-z]+\\.[a-z_]+$");
    std::regex clause_pattern("^(AP|X|MX|SG|DST)-[A-Z]+-[0-9]+$");
    REQUIRE(all_checks().size() >= 30);
    for (const auto& check : all_checks()) {
        CAPTURE(check.id);
        CHECK(ids.insert(check.id).second);
        CHECK(std::regex_match(std::string(check.id), id_pattern));
        CHECK(!check.title.empty());
        CHECK(!check.clauses.empty());
        for (auto clause : check.clauses) {
            CAPTURE(clause);
            CHECK(std::regex_match(std::string(clause), clause_pattern));
        }
    }
}

TEST_CASE("check tables: find_check finds every check and nothing else") {
    for (const auto& check : all_checks()) {
        REQUIRE(find_check(check.id));
        CHECK(find_check(check.id)->title == check.title);
    }
    CHECK(!find_check(""));
    CHECK(!find_check("io.json_line"));
    CHECK(!find_check("IO.JSON_LINES"));
}

TEST_CASE("check tables: ids keep their levels and clauses") {
    CHECK(find_check("io.json_lines")->level == Level::should);
    CHECK(find_check("io.messages_valid")->level == Level::must);
    CHECK(find_check("secrets.not_leaked")->clauses == std::vector<std::string_view>{"AP-SPEC-3"});
    CHECK(find_check("range.malformed_rejected")->level == Level::should);
    CHECK(find_check("state.resume_exactly_once")->level == Level::should);
    CHECK(find_check("mx.passthrough")->level == Level::must);
}

TEST_CASE(
    "check tables: every clause of docs/CONTRACT.md (AP, X, MX, SG, DST) is enforced by a check") {
    auto contract = contract_clauses();
    auto named = clauses_named_by_checks();
    std::size_t enforceable = 0;
    for (const auto& clause : contract) {
        ++enforceable;
        CAPTURE(clause);
        CHECK(named.count(clause) == 1);
    }
    CHECK(enforceable >= 30);
}

TEST_CASE("check tables: every clause a check names exists in docs/CONTRACT.md") {
    auto contract = contract_clauses();
    for (const auto& clause : clauses_named_by_checks()) {
        CAPTURE(clause);
        CHECK(contract.count(clause) == 1);
    }
}

// AP-IO-1 is MUST yet io.json_lines is SHOULD by design (non-JSON lines only warn), so a clause
// needs at least one check at its own level, not all of them.
TEST_CASE("check tables: each clause of docs/CONTRACT.md has a check at the clause's level") {
    std::istringstream lines(contract_text());
    std::regex row(R"(^\| *((AP|X|MX|SG|DST)-[A-Z]+-[0-9]+) *\| *(MUST|SHOULD))");
    std::string line;
    std::smatch match;
    std::size_t rows = 0;
    while (std::getline(lines, line)) {
        if (!std::regex_search(line, match, row)) {
            continue;
        }
        ++rows;
        std::string clause = match[1];
        Level level = match[3] == "MUST" ? Level::must : Level::should;
        bool found = false;
        for (const auto& check : all_checks()) {
            for (auto named : check.clauses) {
                found = found || (named == clause && check.level == level);
            }
        }
        CAPTURE(clause);
        CHECK(found);
    }
    CHECK(rows >= 30);
}

TEST_CASE("check tables: every check has code, needs and its own reason for a skip") {
    for (const auto& check : checks::airbyte_checks()) {
        CAPTURE(check.info.id);
        CHECK((check.code != nullptr));
        CHECK(!check.needs.empty());
        CHECK(!check.nothing_judged.empty());
        if (check.judge != nullptr) {
            CHECK(check.judge->id() == check.info.id);
        }
    }
    for (const auto& check : checks::meltano_checks()) {
        CAPTURE(check.info.id);
        CHECK((check.code != nullptr));
        CHECK(!check.needs.empty());
        CHECK(!check.nothing_judged.empty());
    }
    for (const auto& check : checks::destination_checks()) {
        CAPTURE(check.info.id);
        CHECK((check.code != nullptr));
        CHECK(!check.needs.empty());
        CHECK(!check.nothing_judged.empty());
        if (check.judge != nullptr) {
            CHECK(check.judge->id() == check.info.id);
        }
    }
}

TEST_CASE("check tables: the per-message checks are those with a judge for the analyzer") {
    std::set<std::string_view> judged;
    for (const auto& check : checks::airbyte_checks()) {
        if (check.judge != nullptr) {
            judged.insert(check.info.id);
        }
    }
    CHECK(judged ==
          std::set<std::string_view>{
              "io.json_lines", "io.messages_valid", "io.known_types", "secrets.not_leaked",
              "read.streams_configured", "read.records_match_schema", "read.emitted_at_ms",
              "read.primary_key_present", "read.cursor_present", "state.well_formed",
              "state.incremental_no_older", "merge.reduction_valid", "state.record_counts"});
}

// A scenario whose checks all say they compare no keyless record by content digests none
// (suite::Check::reads_contents); the end-to-end keyless cases fail when a check that
// does is marked otherwise. Per-message checks report tallies; checks across runs compare records.
TEST_CASE("checks say whether they may compare records of keyless streams by content") {
    const auto& checks = checks::airbyte_checks();
    for (const auto& check : checks) {
        CAPTURE(check.info.id);
        if (check.judge != nullptr) {
            CHECK_FALSE(check.reads_contents);
        }
    }
    for (const auto* id : {"read.expected_records", "read.full_refresh_deterministic",
                           "state.resume_no_loss", "range.split_union"}) {
        CAPTURE(id);
        CHECK(suite::any_reads_contents(checks, {id}));
    }
    CHECK_FALSE(suite::any_reads_contents(
        checks, {"cli.read", "read.records_match_schema", "read.no_duplicates"}));
    CHECK(suite::any_reads_contents(checks, {"cli.read", "no.such_check"}));
}
