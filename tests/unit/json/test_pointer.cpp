#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::json;

TEST_CASE("pointer: syntax") {
    CHECK(pointer_syntax_error("").empty());
    CHECK(pointer_syntax_error("/").empty());
    CHECK(pointer_syntax_error("/a/0/~0~1").empty());
    CHECK(pointer_syntax_error("a/b").find("must start with \"/\"") != std::string::npos);
    CHECK(pointer_syntax_error("/a~").find("offset 2") != std::string::npos);
    CHECK(pointer_syntax_error("/a~2").find("followed by 0 or 1") != std::string::npos);
    CHECK_THROWS_WITH_AS(validate_pointer("#/a"), doctest::Contains("\"#/a\""), Error);
}

TEST_CASE("pointer: tokens and escaping") {
    CHECK(pointer_tokens("").empty());
    CHECK(pointer_tokens("/") == std::vector<std::string>{""});
    CHECK(pointer_tokens("/a~1b/~01/0") == std::vector<std::string>{"a/b", "~1", "0"});
    CHECK(escape_pointer_token("a/b~c") == "a~1b~0c");
    CHECK(pointer_tokens("/" + escape_pointer_token("~1/")) == std::vector<std::string>{"~1/"});
}

TEST_CASE("pointer: find") {
    rapidjson::Document document =
        parse_json_text(R"({"a":{"b":[10,{"c":true}]},"x/y":1,"m~n":2,"":3})", "doc");
    CHECK(find_value(document, "") == &document);
    CHECK(find_value(document, "/a/b/0")->GetInt() == 10);
    CHECK(find_value(document, "/a/b/1/c")->GetBool());
    CHECK(find_value(document, "/x~1y")->GetInt() == 1);
    CHECK(find_value(document, "/m~0n")->GetInt() == 2);
    CHECK(find_value(document, "/")->GetInt() == 3);
    CHECK(find_value(document, "/a/b/2") == nullptr);
    CHECK(find_value(document, "/a/b/01") == nullptr);
    CHECK(find_value(document, "/a/b/-") == nullptr);
    CHECK(find_value(document, "/a/b/0/c") == nullptr);
    CHECK(find_value(document, "/missing") == nullptr);
    const rapidjson::Value& constant = document;
    CHECK(find_value(constant, "/a/b/0")->GetInt() == 10);
}

TEST_CASE("pointer: set") {
    rapidjson::Document document = parse_json_text(R"({"a":{"list":[1]},"s":"text"})", "doc");
    auto& allocator = document.GetAllocator();
    auto set = [&](std::string_view pointer, int number) {
        rapidjson::Value value(number);
        return set_value(document, pointer, value, allocator);
    };
    SUBCASE("creates intermediate objects") {
        CHECK(set("/new/deep/er", 1));
        CHECK(set("/a/x~1y", 2));
        CHECK(to_canonical_json(document) ==
              R"({"a":{"list":[1],"x/y":2},"new":{"deep":{"er":1}},"s":"text"})");
    }
    SUBCASE("replaces and appends array elements") {
        CHECK(set("/a/list/0", 5));
        CHECK(set("/a/list/-", 6));
        CHECK(set("/a/list/2", 7));
        CHECK(to_canonical_json(document) == R"({"a":{"list":[5,6,7]},"s":"text"})");
    }
    SUBCASE("replaces the root") {
        CHECK(set("", 9));
        CHECK(to_canonical_json(document) == "9");
    }
    SUBCASE("fails without change through scalars or missing elements") {
        std::string before = to_canonical_json(document);
        CHECK_FALSE(set("/s/x", 1));
        CHECK_FALSE(set("/a/list/5", 1));
        CHECK_FALSE(set("/a/list/3/x", 1));
        CHECK_FALSE(set("/a/list/x", 1));
        CHECK(to_canonical_json(document) == before);
    }
    SUBCASE("invalid pointer throws") {
        CHECK_THROWS_AS(set("a", 1), Error);
    }
}

TEST_CASE("pointer: remove") {
    rapidjson::Document document = parse_json_text(R"({"a":{"b":1,"c":2},"l":[1,2,3]})", "doc");
    CHECK(remove_value(document, "/a/b"));
    CHECK(remove_value(document, "/l/1"));
    CHECK_FALSE(remove_value(document, "/a/b"));
    CHECK_FALSE(remove_value(document, "/l/7"));
    CHECK_FALSE(remove_value(document, "/x/y"));
    CHECK_FALSE(remove_value(document, ""));
    CHECK(to_json(document) == R"({"a":{"c":2},"l":[1,3]})");
}
