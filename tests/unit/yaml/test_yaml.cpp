// YAML read as JSON text whose values keep their YAML lines (yaml/yaml.*).
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <algorithm>
#include <string>

#include "json/parse.hpp"
#include "json/write.hpp"
#include "util/error.hpp"
#include "yaml/yaml.hpp"

using namespace conform;

namespace {

std::string canonical(const std::string& yaml_text) {
    auto document = json::parse_json_text(yaml::to_json_text(yaml_text, "t.yml"), "t.yml");
    return json::to_canonical_json(document);
}

// The 1-based line of the first occurrence of `needle` in `text`.
std::size_t line_of(const std::string& text, const std::string& needle) {
    auto at = text.find(needle);
    REQUIRE(at != std::string::npos);
    return static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

}  // namespace

TEST_CASE("plain scalars become numbers, booleans and null; quoted ones stay strings") {
    CHECK(
        canonical("a: 1\nb: -2.5e3\nc: yes\nd: Off\ne: ~\nf:\ng: '1'\nh: \"true\"\ni: 1.0.0\n") ==
        R"({"a":1,"b":-2500,"c":true,"d":false,"e":null,"f":null,"g":"1","h":"true","i":"1.0.0"})");
    CHECK(canonical("- 007\n- 0x1F\n- text with \"quotes\" and \\ slash\n") ==
          R"(["007","0x1F","text with \"quotes\" and \\ slash"])");
}

TEST_CASE("each value starts on its YAML line") {
    auto text = yaml::to_json_text(
        "# comment\nroot:\n  list:\n    - first: 1\n\n      second: two\n  last: [3, 4]\n",
        "t.yml");
    CHECK(line_of(text, "\"root\"") == 2);
    CHECK(line_of(text, "\"list\"") == 3);
    CHECK(line_of(text, "\"first\"") == 4);
    CHECK(line_of(text, "\"second\"") == 6);
    CHECK(line_of(text, "\"last\"") == 7);
}

TEST_CASE("text that is not YAML names the file, line and column") {
    try {
        yaml::to_json_text("a: [1, 2\nb: 3\n", "bad.yml");
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        CHECK(std::string(error.what()).find("bad.yml:") == 0);
        CHECK(std::string(error.what()).find("not YAML") != std::string::npos);
    }
    CHECK_THROWS_AS(yaml::to_json_text("a: 1\n---\nb: 2\n", "two.yml"), Error);
}

TEST_CASE("an empty document is null; .yml and .yaml are YAML paths") {
    CHECK(yaml::to_json_text("", "e.yml") == "null");
    CHECK(yaml::is_yaml_path("a/known.YML"));
    CHECK(yaml::is_yaml_path("known.yaml"));
    CHECK_FALSE(yaml::is_yaml_path("known.json"));
}
