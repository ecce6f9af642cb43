#include <doctest/doctest.h>

#include <set>
#include <string>

#include "checks/checks.hpp"
#include "meltano/scenario.hpp"

using namespace conform;

// What a command prints is judged in every scenario; every other check has one scenario.
TEST_CASE("scenarios: every mx check runs in exactly one extension scenario, and only mx checks") {
    const auto& checks = checks::meltano_checks();
    const std::set<std::string> everywhere{"mx.stdout_quiet", "mx.secrets_not_leaked"};
    std::set<std::string> used;
    std::set<std::string> scenario_ids;
    for (const auto& scenario : meltano::builtin_scenarios(checks)) {
        CAPTURE(scenario.id);
        CHECK(scenario_ids.insert(scenario.id).second);
        CHECK(scenario.id.starts_with("mx-"));
        CHECK(!scenario.title.empty());
        CHECK(scenario.inputs.size() == scenario.checks.size());
        for (const auto& check : scenario.checks) {
            CAPTURE(check);
            CHECK(check.starts_with("mx."));
            CHECK(meltano::find_check(checks, check) != nullptr);
            CHECK((used.insert(check).second || everywhere.contains(check)));
        }
    }
    for (const auto& check : checks) {
        CAPTURE(check.info.id);
        CHECK(used.contains(std::string(check.info.id)));
        for (auto clause : check.info.clauses) {
            CHECK(clause.starts_with("MX-"));
        }
    }
}

TEST_CASE("scenarios: each check's needs are met by the steps of its scenario") {
    for (const auto& scenario : meltano::builtin_scenarios(checks::meltano_checks())) {
        for (std::size_t c = 0; c < scenario.checks.size(); ++c) {
            CAPTURE(scenario.checks[c]);
            CHECK(scenario.inputs[c].matched());
        }
    }
}
