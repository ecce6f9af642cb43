#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "json/parse.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::json;

namespace {

std::string parse_error(std::string_view text, std::string_view name = "input.json") {
    try {
        parse_json_text(text, name);
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    FAIL("no error for: " << text);
    return {};
}

// A file in the system temp directory, removed at scope exit.
class TempFile {
public:
    TempFile(const std::string& name, const std::string& contents)
        : m_path(std::filesystem::temp_directory_path() /
                 (name + "." + std::to_string(reinterpret_cast<std::uintptr_t>(this)))) {
        std::ofstream(m_path, std::ios::binary) << contents;
    }
    ~TempFile() { std::filesystem::remove(m_path); }
    const std::filesystem::path& path() const { return m_path; }

private:
    std::filesystem::path m_path;
};

}  // namespace

TEST_CASE("parse: valid text with comments") {
    rapidjson::Document document = parse_json_text(R"({
        // a line comment
        "a": 1, /* a block comment */ "b": [true, null]
    })",
                                                   "config.json");
    REQUIRE(document.IsObject());
    CHECK(document["a"].GetInt() == 1);
    CHECK(document["b"].Size() == 2);
}

TEST_CASE("parse: error names origin, line and column and shows a caret") {
    std::string message = parse_error("{\n  \"a\": 1,\n  \"b\": tru\n}\n", "conf.json");
    CHECK(message.find("conf.json:3:") == 0);
    CHECK(message.find("Invalid value") != std::string::npos);
    CHECK(message.find("\n      \"b\": tru\n") != std::string::npos);
    auto caret_line_begin = message.rfind('\n') + 1;
    std::string caret_line = message.substr(caret_line_begin);
    CHECK(caret_line.back() == '^');
    // The caret sits under the column the message names.
    auto column_begin = message.find(':', std::string("conf.json:3").size()) + 1;
    auto column = std::stoul(message.substr(column_begin));
    CHECK(caret_line.size() - 4 == column);
}

TEST_CASE("parse: error positions") {
    SUBCASE("missing comma") {
        std::string message = parse_error(R"({"a":1 "b":2})");
        CHECK(message.find("input.json:1:8: ") == 0);
        CHECK(message.find("\n    {\"a\":1 \"b\":2}\n           ^") != std::string::npos);
    }
    SUBCASE("empty text") {
        std::string message = parse_error("");
        CHECK(message.find("input.json:1:1: ") == 0);
        CHECK(message.find("empty") != std::string::npos);
    }
    SUBCASE("trailing garbage") {
        std::string message = parse_error("{}\n{}");
        CHECK(message.find("input.json:2:1: ") == 0);
    }
    SUBCASE("a long line is shown as a window around the error") {
        std::string text = "[" + std::string(500, ' ') + "x" + std::string(500, ' ') + "]";
        std::string message = parse_error(text);
        CHECK(message.find("input.json:1:502: ") == 0);
        CHECK(message.size() < 400);
        CHECK(message.find("…") != std::string::npos);
        std::string caret_line = message.substr(message.rfind('\n') + 1);
        std::string shown_line = message.substr(0, message.rfind('\n'));
        shown_line = shown_line.substr(shown_line.rfind('\n') + 1);
        CHECK(shown_line[shown_line.find('x')] == 'x');
        // "…" is three bytes but one column; the caret line pads it with one space.
        CHECK(caret_line.size() - 1 == shown_line.find('x') - 2);
    }
}

TEST_CASE("parse: deep nesting does not exhaust the stack") {
    constexpr std::size_t k_depth = 300000;
    std::string text(k_depth, '[');
    text.append(k_depth, ']');
    rapidjson::Document document = parse_json_text(text, "deep");
    CHECK(document.IsArray());
}

TEST_CASE("parse: files") {
    SUBCASE("a valid file") {
        TempFile file("conform-parse-ok.json", R"({"k": "v"})");
        rapidjson::Document document = parse_json_file(file.path());
        CHECK(std::string(document["k"].GetString()) == "v");
    }
    SUBCASE("an invalid file names the file") {
        TempFile file("conform-parse-bad.json", "{\"k\": }");
        try {
            parse_json_file(file.path());
            FAIL("no error");
        } catch (const Error& error) {
            CHECK(std::string(error.what()).find(file.path().string() + ":1:7: ") == 0);
        }
    }
    SUBCASE("a missing file") {
        auto path = std::filesystem::temp_directory_path() / "conform-no-such-file.json";
        try {
            parse_json_file(path);
            FAIL("no error");
        } catch (const Error& error) {
            CHECK(error.kind() == ErrorKind::input);
            CHECK(std::string(error.what()).find(path.string()) == 0);
        }
    }
}
