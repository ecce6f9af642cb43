#include <doctest/doctest.h>

#include <set>
#include <string>

#include "checks/registry.hpp"
#include "meltano/checks.hpp"
#include "meltano/suite.hpp"

using namespace conform;

TEST_CASE("scenarios: every mx check runs in exactly one extension scenario, and only mx checks") {
    std::set<std::string_view> used;
    std::set<std::string_view> scenario_ids;
    for (const auto& scenario : meltano::extension_scenarios()) {
        CAPTURE(scenario.id);
        CHECK(scenario_ids.insert(scenario.id).second);
        CHECK(scenario.id.starts_with("mx-"));
        CHECK(!scenario.title.empty());
        for (auto check : scenario.checks) {
            CAPTURE(check);
            CHECK(check.starts_with("mx."));
            CHECK(meltano::find_extension_check(check) != nullptr);
            CHECK(used.insert(check).second);
        }
    }
    for (const auto& check : meltano::extension_checks()) {
        {
            CAPTURE(check.id);
            CHECK(used.contains(check.id));
            for (auto clause : check.clauses) {
                CHECK(clause.starts_with("MX-"));
            }
        }
    }
}
