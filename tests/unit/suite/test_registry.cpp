#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "checks/registry.hpp"
#include "meltano/checks.hpp"
#include "suite/check_registry.hpp"

using namespace conform;
using namespace conform::checks;

namespace {

std::vector<CheckInfo> all_checks() {
    std::vector<CheckInfo> all;
    for (const auto& check : suite::airbyte_checks()) {
        all.push_back(check.info);
    }
    const auto& extension = meltano::extension_checks();
    all.insert(all.end(), extension.begin(), extension.end());
    return all;
}

const CheckInfo* find_check(std::string_view id) {
    if (const auto* check = suite::find_airbyte_check(id)) {
        return &check->info;
    }
    return meltano::find_extension_check(id);
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
    std::regex row(R"(^\| *((AP|X|MX)-[A-Z]+-[0-9]+) *\|)");
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

TEST_CASE("registry: ids are unique and well formed, every check names clauses") {
    std::set<std::string_view> ids;
    std::regex id_pattern("^[a-z]+\\.[a-z_]+$");
    std::regex clause_pattern("^(AP|X|MX)-[A-Z]+-[0-9]+$");
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

TEST_CASE("registry: find_check finds every check and nothing else") {
    for (const auto& check : all_checks()) {
        REQUIRE(find_check(check.id) != nullptr);
        CHECK(find_check(check.id)->title == check.title);
    }
    CHECK(find_check("") == nullptr);
    CHECK(find_check("io.json_line") == nullptr);
    CHECK(find_check("IO.JSON_LINES") == nullptr);
}

TEST_CASE("registry: the named ids are registered with the expected level") {
    CHECK(find_check(ids::io_json_lines)->level == Level::should);
    CHECK(find_check(ids::io_messages)->level == Level::must);
    CHECK(find_check(ids::secrets)->clauses == std::vector<std::string_view>{"AP-SPEC-3"});
    CHECK(find_check(ids::range_malformed)->level == Level::should);
    for (auto id : {ids::io_known_types,    ids::cli_spec,          ids::cli_check,
                    ids::cli_discover,      ids::cli_read,          ids::spec_schema,
                    ids::spec_config,       ids::discover_streams,  ids::discover_keys,
                    ids::read_streams,      ids::read_schema,       ids::read_emitted_at,
                    ids::read_primary_key,  ids::read_cursor,       ids::read_deterministic,
                    ids::read_expected,     ids::state_well_formed, ids::state_no_older,
                    ids::state_commits,     ids::state_resume,      ids::state_exactly_once,
                    ids::state_final,       ids::tail_off,          ids::tail_on,
                    ids::tail_resume,       ids::range_split,       ids::range_subdivide,
                    ids::range_absent,      ids::merge_reduction,   ids::merge_resume,
                    ids::merge_equals_full, ids::projections,       ids::compat}) {
        CAPTURE(id);
        CHECK(find_check(id) != nullptr);
    }
}

TEST_CASE("registry: every clause of docs/CONTRACT.md (AP, X, MX) is enforced by a check") {
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

TEST_CASE("registry: every clause a check names exists in docs/CONTRACT.md") {
    auto contract = contract_clauses();
    for (const auto& clause : clauses_named_by_checks()) {
        CAPTURE(clause);
        CHECK(contract.count(clause) == 1);
    }
}

// AP-IO-1 is MUST yet io.json_lines is SHOULD by design (non-JSON lines only warn), so a clause
// needs at least one check at its own level, not all of them.
TEST_CASE("registry: each clause of docs/CONTRACT.md has a check at the clause's level") {
    std::istringstream lines(contract_text());
    std::regex row(R"(^\| *((AP|X|MX)-[A-Z]+-[0-9]+) *\| *(MUST|SHOULD))");
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

TEST_CASE("registry: every Airbyte check has code, and only the analyzer's are per message") {
    const std::set<std::string_view> judged_per_line{
        ids::io_json_lines, ids::io_messages,       ids::io_known_types,  ids::secrets,
        ids::read_streams,  ids::read_schema,       ids::read_emitted_at, ids::read_primary_key,
        ids::read_cursor,   ids::state_well_formed, ids::state_no_older,  ids::merge_reduction};
    for (const auto& check : suite::airbyte_checks()) {
        CAPTURE(check.info.id);
        CHECK((check.code != nullptr));
        CHECK((check.kind == suite::CheckKind::per_message) ==
              judged_per_line.contains(check.info.id));
    }
}

TEST_CASE("registry: a check across runs reads at least one step role") {
    for (const auto& check : suite::airbyte_checks()) {
        if (check.kind == suite::CheckKind::across_runs) {
            CAPTURE(check.info.id);
            CHECK(!check.reads.empty());
        }
    }
}
