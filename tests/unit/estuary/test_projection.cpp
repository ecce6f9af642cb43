#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "estuary/projection.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::estuary;

namespace {

Projections parse(std::string_view text) {
    return parse_projections(json::parse_json_text(text, "projections"));
}

// Applies `projections` to the record given as text; returns the canonical result.
std::string projected(std::string_view record_text, const Projections& projections,
                      std::vector<std::string>* unplaced = nullptr) {
    rapidjson::Document record = json::parse_json_text(record_text, "record");
    auto fields = apply_projections(record, projections, record.GetAllocator());
    if (unplaced != nullptr) {
        *unplaced = fields;
    }
    return json::to_canonical_json(record);
}

}  // namespace

TEST_CASE("projection: parse") {
    Projections projections = parse(R"({"count":"/count","user_id":"/user/id","a/b":"/a~1b"})");
    CHECK(projections ==
          Projections{{"count", "/count"}, {"user_id", "/user/id"}, {"a/b", "/a~1b"}});
}

TEST_CASE("projection: parse errors") {
    CHECK_THROWS_WITH_AS(parse(R"(["x"])"), doctest::Contains("must be an object"), Error);
    CHECK_THROWS_WITH_AS(parse(R"({"x":1})"), doctest::Contains("\"x\" must be a JSON pointer"),
                         Error);
    CHECK_THROWS_WITH_AS(parse(R"({"x":"x"})"), doctest::Contains("must start with \"/\""), Error);
    CHECK_THROWS_WITH_AS(parse(R"({"x":"/a~x"})"), doctest::Contains("followed by 0 or 1"), Error);
    CHECK_THROWS_WITH_AS(parse(R"({"x":""})"), doctest::Contains("whole record"), Error);
    CHECK_THROWS_WITH_AS(parse(R"({"x":"/a","x":"/b"})"), doctest::Contains("listed twice"), Error);
}

TEST_CASE("projection: apply moves fields to their pointers") {
    SUBCASE("nested pointer creation") {
        CHECK(projected(R"({"user_id":7,"name":"n"})", {{"user_id", "/user/id"}}) ==
              R"({"name":"n","user":{"id":7}})");
        CHECK(projected(R"({"d":true})", {{"d", "/x/y/z"}}) == R"({"x":{"y":{"z":true}}})");
    }
    SUBCASE("into an existing object") {
        CHECK(projected(R"({"user":{"name":"a"},"user_id":7})", {{"user_id", "/user/id"}}) ==
              R"({"user":{"id":7,"name":"a"}})");
    }
    SUBCASE("identity projection is a no-op") {
        std::string record = R"({"x":{"deep":[1,2]},"y":2})";
        CHECK(projected(record, {{"x", "/x"}, {"y", "/y"}}) ==
              json::to_canonical_json(json::parse_json_text(record, "r")));
    }
    SUBCASE("fields not named and projections without a field stay put") {
        CHECK(projected(R"({"a":1,"b":2})", {{"a", "/moved"}, {"missing", "/m"}}) ==
              R"({"b":2,"moved":1})");
    }
    SUBCASE("pointer with ~1 and ~0 escaping") {
        CHECK(projected(R"({"f":1})", {{"f", "/a~1b/c~0d"}}) == R"({"a/b":{"c~d":1}})");
        CHECK(projected(R"({"a/b":1})", {{"a/b", "/a~1b"}}) == R"({"a/b":1})");
        CHECK(projected(R"({"a/b":1})", {{"a/b", "/a/b"}}) == R"({"a":{"b":1}})");
    }
    SUBCASE("all fields are taken before any is placed") {
        CHECK(projected(R"({"a":1,"b":2})", {{"a", "/b"}, {"b", "/a"}}) == R"({"a":2,"b":1})");
        CHECK(projected(R"({"user":"u","user_id":7})", {{"user", "/u"}, {"user_id", "/user/id"}}) ==
              R"({"u":"u","user":{"id":7}})");
        CHECK(projected(R"({"a":1})", {{"a", "/a/inner"}}) == R"({"a":{"inner":1}})");
    }
    SUBCASE("a field that cannot be placed stays and is reported") {
        std::vector<std::string> unplaced;
        CHECK(projected(R"({"s":"text","f":1,"g":2})", {{"f", "/s/x"}, {"g", "/h"}}, &unplaced) ==
              R"({"f":1,"h":2,"s":"text"})");
        CHECK(unplaced == std::vector<std::string>{"f"});
        CHECK(projected(R"({"list":[0],"f":1})", {{"f", "/list/0"}}, &unplaced) ==
              R"({"list":[1]})");
        CHECK(unplaced.empty());
    }
    SUBCASE("a non-object record is left alone") {
        CHECK(projected("[1]", {{"a", "/b"}}) == "[1]");
    }
}

TEST_CASE("projection: identity projections from a schema") {
    auto schema =
        json::parse_json_text(R"({"type":"object","properties":{"id":{},"a/b":{},"t~":{},)"
                              R"("user":{"properties":{"x":{}}}}})",
                              "schema");
    CHECK(identity_projections(schema) ==
          Projections{{"id", "/id"}, {"a/b", "/a~1b"}, {"t~", "/t~0"}, {"user", "/user"}});
    CHECK(identity_projections(json::parse_json_text(R"({"type":"object"})", "s")).empty());
    CHECK(identity_projections(json::parse_json_text("true", "s")).empty());
    // Identity projections leave any record unchanged.
    std::string record = R"({"a/b":1,"id":2,"t~":3,"user":{"x":4}})";
    CHECK(projected(record, identity_projections(schema)) == record);
}
