// The one function that matches a check's typed needs to a scenario's steps, at load and at run.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/needs.hpp"

using namespace conform::engine;

namespace {

enum class Role { read, plain, resumed, shards, merge, inject };

std::string_view name(Role role) {
    switch (role) {
        case Role::read:
            return "a read";
        case Role::plain:
            return "a plain read";
        case Role::resumed:
            return "a resumed read";
        case Role::shards:
            return "shards";
        case Role::merge:
            return "a merge read";
        case Role::inject:
            return "an injection";
    }
    return "?";
}

using Steps = std::vector<StepShape<Role>>;

Matching matched(const std::vector<Need<Role>>& needs, const Steps& steps) {
    return match_needs(needs, steps, name);
}

}  // namespace

TEST_CASE("needs: a role matches every step that provides it, in scenario order") {
    Steps steps{{"a", {Role::read, Role::plain}}, {"b", {Role::read}}, {"c", {Role::plain}}};
    auto matching = matched({{Role::read}}, steps);
    REQUIRE(matching.matched());
    CHECK(matching.steps[0] == std::vector<std::size_t>{0, 1});
}

TEST_CASE("needs: roles the same step must also provide, or must not") {
    Steps steps{{"split", {Role::read, Role::shards}},
                {"resume", {Role::read, Role::resumed}, 0},
                {"both", {Role::read, Role::shards, Role::resumed}, 0}};
    // The conjunction the old per-scenario roles could not express: split in one step and
    // resumed in another is not a resumed split.
    auto both = matched({{Role::shards, {Role::resumed}}}, steps);
    REQUIRE(both.matched());
    CHECK(both.steps[0] == std::vector<std::size_t>{2});
    auto only_shards = matched({{Role::shards, {}, {Role::resumed}}}, steps);
    CHECK(only_shards.steps[0] == std::vector<std::size_t>{0});
    Steps apart{{"split", {Role::read, Role::shards}}, {"resume", {Role::read, Role::resumed}, 0}};
    auto refused = matched({{Role::shards, {Role::resumed}}}, apart);
    CHECK(!refused.matched());
    REQUIRE(refused.problems.size() == 1);
    CHECK(refused.problems[0] ==
          "needs a step that is shards that is also a resumed read, and the scenario has none");
}

TEST_CASE("needs: counts are met exactly, and the problem names the steps that were found") {
    Steps one{{"first", {Role::plain}}};
    auto two = matched({{Role::plain, {}, {}, std::nullopt, Count::two}}, one);
    CHECK(!two.matched());
    CHECK(two.problems[0] ==
          "needs exactly two steps that is a plain read, and the scenario has 1 ('first')");
    Steps three{{"a", {Role::plain}}, {"b", {Role::plain}}, {"c", {Role::plain}}};
    CHECK(!matched({{Role::plain, {}, {}, std::nullopt, Count::one}}, three).matched());
    CHECK(matched({{Role::plain, {}, {}, std::nullopt, Count::any}}, Steps{}).matched());
    CHECK(!matched({{Role::plain}}, Steps{}).matched());
}

TEST_CASE("needs: a step based on another must be based on one that provides the role") {
    Steps steps{{"merge", {Role::read, Role::merge}},
                {"plain", {Role::read, Role::plain}},
                {"from-merge", {Role::read, Role::resumed}, 0},
                {"from-plain", {Role::read, Role::resumed}, 1}};
    auto from_merge =
        matched({{Role::resumed, {}, {}, Basis<Role>{Reference::state, Role::merge}}}, steps);
    REQUIRE(from_merge.matched());
    CHECK(from_merge.steps[0] == std::vector<std::size_t>{2});
    Steps backlog{{"before", {Role::plain}}, {"tail", {Role::read}, std::nullopt, 0}};
    auto tail =
        matched({{Role::read, {}, {}, Basis<Role>{Reference::backlog, Role::plain}}}, backlog);
    REQUIRE(tail.matched());
    CHECK(tail.steps[0] == std::vector<std::size_t>{1});
    CHECK(!matched({{Role::read, {}, {}, Basis<Role>{Reference::state, Role::plain}}}, backlog)
               .matched());
}

TEST_CASE("needs: a need's steps can be required to come after another need's") {
    Steps steps{{"before", {Role::plain}},
                {"inject", {Role::read, Role::inject}},
                {"truth", {Role::plain}}};
    auto matching = matched({{Role::inject, {}, {}, std::nullopt, Count::one},
                             {Role::plain, {}, {}, std::nullopt, Count::one, 0}},
                            steps);
    REQUIRE(matching.matched());
    CHECK(matching.steps[1] == std::vector<std::size_t>{2});
    auto without_order = matched({{Role::plain, {}, {}, std::nullopt, Count::one}}, steps);
    CHECK(!without_order.matched());
}

TEST_CASE("needs: describe says what a need asks for in words") {
    Need<Role> need{
        Role::resumed, {Role::merge}, {Role::shards}, Basis<Role>{Reference::state, Role::merge}};
    CHECK(describe(need, name) ==
          "a resumed read that is also a merge read that is not shards, resumed from a merge "
          "read");
}
