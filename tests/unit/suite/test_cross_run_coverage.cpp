// Every check across runs has tests through the runner's seam (issue 8): each test_cross_run_*
// file notes the checks it proves (note_covered); this compares their union with the registry, so
// a new check of kind across_runs fails here until it has its cases.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include "checks/checks.hpp"
#include "fake_connector.hpp"

using namespace conform;

TEST_CASE("cross-run coverage: every check across runs has seam tests, and only those") {
    std::set<std::string> across_runs;
    for (const auto& definition : checks::airbyte_checks()) {
        if (definition.judge == nullptr) {
            across_runs.insert(std::string(definition.info.id));
        }
    }
    const auto& noted = testing::covered_checks();
    std::set<std::string> covered(noted.begin(), noted.end());
    CHECK(covered.size() == noted.size());  // each check noted by one file only
    for (const auto& id : across_runs) {
        INFO("check of kind across_runs without seam tests: ", id);
        CHECK(covered.count(id) == 1);
    }
    for (const auto& id : covered) {
        INFO("noted as covered but not a check across runs: ", id);
        CHECK(across_runs.count(id) == 1);
    }
    CHECK(across_runs.size() == 39);
}
