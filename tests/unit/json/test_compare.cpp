#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "json/compare.hpp"
#include "json/parse.hpp"

using namespace conform::json;

namespace {

Differences compare(const char* expected, const char* actual, std::size_t limit = 10) {
    return differences(parse_json_text(expected, "expected"), parse_json_text(actual, "actual"),
                       limit);
}

std::string describe(const Difference& difference) {
    return difference.pointer + " " + difference.expected + " | " + difference.actual;
}

}  // namespace

TEST_CASE("compare: equal values in another member order, 1 and 1.0 equal") {
    auto found =
        compare(R"({"a":1,"b":{"c":[1,"x",null]}})", R"({"b":{"c":[1.0,"x",null]},"a":1})");
    CHECK(found.total == 0);
    CHECK(found.shown.empty());
}

TEST_CASE("compare: each place that differs once, with its pointer, in the expected order") {
    auto found = compare(R"({"p":{"k":2,"gone":true},"list":[1,2,3],"t":"s","a/b":1})",
                         R"({"p":{"k":5,"new":{"x":1}},"list":[1,2],"t":["s"],"a/b":2})");
    REQUIRE(found.total == 6);
    REQUIRE(found.shown.size() == 6);
    CHECK(describe(found.shown[0]) == "/p/k 2 | 5");
    CHECK(describe(found.shown[1]) == "/p/gone true | ");
    CHECK(describe(found.shown[2]) == R"(/p/new  | {"x":1})");
    CHECK(describe(found.shown[3]) == "/list/2 3 | ");
    CHECK(describe(found.shown[4]) == R"(/t "s" | ["s"])");
    CHECK(describe(found.shown[5]) == "/a~1b 1 | 2");
}

TEST_CASE("compare: the limit keeps the first differences and counts them all") {
    auto found = compare("[1,2,3,4]", "[5,6,7,8]", 2);
    CHECK(found.total == 4);
    REQUIRE(found.shown.size() == 2);
    CHECK(found.shown[1].pointer == "/1");
    auto prefixed = differences(parse_json_text("{}", "e"), parse_json_text(R"({"k":1})", "a"), 5,
                                "/connectionSpecification");
    REQUIRE(prefixed.shown.size() == 1);
    CHECK(prefixed.shown[0].pointer == "/connectionSpecification/k");
}

TEST_CASE("compare: deep nesting costs no stack") {
    constexpr std::size_t k_depth = 200000;
    std::string left;
    for (std::size_t i = 0; i < k_depth; ++i) {
        left += "{\"k\":";
    }
    std::string right = left + "1";
    left += "0";
    for (std::size_t i = 0; i < k_depth; ++i) {
        left += "}";
        right += "}";
    }
    auto found = compare(left.c_str(), right.c_str());
    REQUIRE(found.total == 1);
    CHECK(found.shown[0].pointer.size() == 2 * k_depth);
    CHECK(found.shown[0].expected == "0");
}
