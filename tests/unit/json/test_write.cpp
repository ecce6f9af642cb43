#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "json/parse.hpp"
#include "json/write.hpp"

using namespace conform::json;

namespace {

std::string canonical(std::string_view text) {
    return to_canonical_json(parse_json_text(text, "test"));
}

std::string compact(std::string_view text) {
    return to_json(parse_json_text(text, "test"));
}

}  // namespace

TEST_CASE("write: canonical JSON sorts keys by bytes at every level") {
    CHECK(canonical(R"({"b":1,"a":{"z":[{"y":1,"x":2}],"B":null},"ä":0,"A":true})") ==
          R"({"A":true,"a":{"B":null,"z":[{"x":2,"y":1}]},"b":1,"ä":0})");
    CHECK(canonical(R"({"ab":1,"a":2,"":3})") == R"({"":3,"a":2,"ab":1})");
    CHECK(canonical(" [ 1 , { } , [ ] , \"s\" ] ") == R"([1,{},[],"s"])");
}

TEST_CASE("write: canonical numbers") {
    CHECK(canonical("1.0") == "1");
    CHECK(canonical("-0.0") == "0");
    CHECK(canonical("1e2") == "100");
    CHECK(canonical("-5") == "-5");
    CHECK(canonical("0.1") == "0.1");
    CHECK(canonical("2.5e-3") == "0.0025");
    CHECK(canonical("1.5e300") == "1.5e+300");
    CHECK(canonical("18446744073709551615") == "18446744073709551615");
    CHECK(canonical("-9223372036854775808") == "-9223372036854775808");
    CHECK(canonical("9223372036854775808.0") == "9223372036854775808");
    CHECK(canonical("0.30000000000000004") == "0.30000000000000004");
}

TEST_CASE("write: canonical strings use minimal escapes") {
    CHECK(canonical(R"("a\"b\\c\/d\u0001\n\t\u00e9")") == "\"a\\\"b\\\\c/d\\u0001\\n\\t\xC3\xA9\"");
    CHECK(canonical(R"({"\n":1})") == R"({"\n":1})");
}

TEST_CASE("write: compact JSON keeps document order and double-ness") {
    CHECK(compact(R"({ "b" : 1.0, "a" : [ 2, -0.0, 1e20 ] })") ==
          R"({"b":1.0,"a":[2,-0.0,1e+20]})");
    CHECK(compact("\"x\"") == "\"x\"");
    rapidjson::Document nan_holder;
    nan_holder.SetDouble(std::numeric_limits<double>::quiet_NaN());
    CHECK(to_json(nan_holder) == "null");
}

TEST_CASE("write: compact output reads back equal") {
    const char* text = R"({"s":"line\nbreak \"q\"","n":[1,-2,3.25,1e-7],"o":{"t":true,"f":false}})";
    rapidjson::Document original = parse_json_text(text, "original");
    rapidjson::Document reread = parse_json_text(to_json(original), "reread");
    CHECK(original == reread);
}

TEST_CASE("write: deep nesting does not exhaust the stack") {
    constexpr std::size_t k_depth = 300000;
    std::string text(k_depth, '[');
    text.append(k_depth, ']');
    rapidjson::Document document = parse_json_text(text, "deep");
    CHECK(to_canonical_json(document) == text);
    CHECK(to_json(document) == text);
}
