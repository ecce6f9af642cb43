#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "schema/uri.hpp"

using namespace conform::schema;

TEST_CASE("uri::resolve_uri follows RFC 3986 section 5.4") {
    const std::string base = "http://a/b/c/d;p?q";
    const std::vector<std::pair<std::string, std::string>> examples = {
        {"g:h", "g:h"},
        {"g", "http://a/b/c/g"},
        {"./g", "http://a/b/c/g"},
        {"g/", "http://a/b/c/g/"},
        {"/g", "http://a/g"},
        {"//g", "http://g"},
        {"?y", "http://a/b/c/d;p?y"},
        {"g?y", "http://a/b/c/g?y"},
        {"#s", "http://a/b/c/d;p?q#s"},
        {"g?y#s", "http://a/b/c/g?y#s"},
        {";x", "http://a/b/c/;x"},
        {"", "http://a/b/c/d;p?q"},
        {".", "http://a/b/c/"},
        {"..", "http://a/b/"},
        {"../g", "http://a/b/g"},
        {"../..", "http://a/"},
        {"../../g", "http://a/g"},
        {"../../../g", "http://a/g"},
        {"/./g", "http://a/g"},
        {"/../g", "http://a/g"},
        {"g.", "http://a/b/c/g."},
        {"..g", "http://a/b/c/..g"},
        {"./../g", "http://a/b/g"},
        {"./g/.", "http://a/b/c/g/"},
        {"g/./h", "http://a/b/c/g/h"},
        {"g/../h", "http://a/b/c/h"},
        {"g;x=1/../y", "http://a/b/c/y"},
    };
    for (const auto& [reference, expected] : examples) {
        CAPTURE(reference);
        CHECK(resolve_uri(base, reference) == expected);
    }
}

TEST_CASE("uri::resolve_uri for schema identifiers") {
    CHECK(resolve_uri("", "#foo") == "#foo");
    CHECK(resolve_uri("", "node") == "node");
    CHECK(resolve_uri("urn:uuid:deadbeef", "#/definitions/a") ==
          "urn:uuid:deadbeef#/definitions/a");
    CHECK(resolve_uri("http://localhost:1234/tree", "node") == "http://localhost:1234/node");
    CHECK(resolve_uri("http://x.org/a/b.json", "#") == "http://x.org/a/b.json#");
}

TEST_CASE("uri::fragments and pointers") {
    auto [document, fragment] = split_fragment("http://x.org/s.json#/definitions/a");
    CHECK(document == "http://x.org/s.json");
    CHECK(fragment == "/definitions/a");
    CHECK(split_fragment("s.json").fragment.empty());
    CHECK(percent_decode("a%25b%22c%zz") == "a%b\"c%zz");

    auto tokens = parse_json_pointer("/a~1b/~0c//0");
    REQUIRE(tokens.has_value());
    CHECK(*tokens == std::vector<std::string>{"a/b", "~c", "", "0"});
    CHECK(parse_json_pointer("")->empty());
    CHECK_FALSE(parse_json_pointer("a").has_value());
    CHECK_FALSE(parse_json_pointer("/~2").has_value());

    std::string pointer;
    append_pointer_token(pointer, "a/b~c");
    CHECK(pointer == "/a~1b~0c");
}
