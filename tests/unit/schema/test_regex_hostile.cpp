// Hostile patterns and inputs: the regex engine must neither crash nor hang (issue 9).
#include <doctest/doctest.h>
#include <pthread.h>

#include <string>

#include "schema/regex.hpp"
#include "schema/schema.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace conform::schema;
using namespace conform::schema::testing;

namespace {

std::string quoted(const std::string& text) {
    return "\"" + text + "\"";
}

}  // namespace

TEST_CASE("regex::deeply nested groups are a compile error, not a crash") {
    std::string pattern = std::string(30000, '(') + "a" + std::string(30000, ')');
    CHECK_THROWS_AS(Regex{pattern}, RegexError);
    std::string schema = R"({"pattern": ")" + pattern + R"("})";
    try {
        Schema::compile_text(schema);
        FAIL("a 30,000-deep pattern compiled");
    } catch (const conform::Error& error) {
        CHECK(error.kind() == conform::ErrorKind::input);
    }
    // format: regex on such a string says "not a regex" instead of crashing.
    Schema format = Schema::compile_text(R"({"format": "regex"})");
    CHECK_FALSE(is_valid(format, quoted(pattern)));
}

TEST_CASE("regex::an over-long pattern is rejected") {
    std::string pattern(RegexLimits::max_pattern_bytes + 1, 'a');
    CHECK_THROWS_AS(Regex{pattern}, RegexError);
}

TEST_CASE("regex::catastrophic backtracking ends with the limit verdict") {
    Schema schema = Schema::compile_text(R"({"pattern": "(a+)+$"})");
    std::string text(32 * 1024, 'a');
    text += "!";
    auto violations = violations_of(schema, quoted(text));
    REQUIRE(violations.size() == 1);
    CHECK(violations[0].keyword_path == "/pattern");
    CHECK(violations[0].message.find("pattern match limit exceeded") != std::string::npos);
    CHECK(Regex("(a+)+$").search(text) == MatchResult::limit_exceeded);
    // The same pattern still answers quickly when it can.
    CHECK(Regex("(a+)+$").search("aaa") == MatchResult::match);
}

TEST_CASE("regex::patternProperties limit is a violation at patternProperties") {
    Schema schema =
        Schema::compile_text(R"({"patternProperties": {"(a+)+$": {"type": "string"}}})");
    std::string key(32 * 1024, 'a');
    key += "!";
    auto violations = violations_of(schema, "{" + quoted(key) + ": 1}");
    REQUIRE(violations.size() == 1);
    CHECK(violations[0].keyword_path == "/patternProperties/(a+)+$");
    CHECK(violations[0].message.find("pattern match limit exceeded") != std::string::npos);
}

TEST_CASE("regex::ECMA-262 translation") {
    CHECK(Regex("^\\u00e9$").search("é") == MatchResult::match);
    CHECK(Regex("^\\ud83d\\udc32$").search("🐲") == MatchResult::match);
    CHECK(Regex("^\\u{1F432}$").search("🐲") == MatchResult::match);
    CHECK(Regex("^.$").search("\n") == MatchResult::no_match);
    CHECK(Regex("^.$").search("\xe2\x80\xa8") == MatchResult::no_match);  // U+2028
    CHECK(Regex("^\\s$").search("\xc2\xa0") == MatchResult::match);       // U+00A0
    CHECK(Regex("^\\S$").search("\xc2\xa0") == MatchResult::no_match);
    CHECK(Regex("^\\d$").search("\xe0\xa7\xaa") == MatchResult::no_match);  // BENGALI DIGIT FOUR
    CHECK(Regex("^abc$").search("abc\n") == MatchResult::no_match);
    CHECK(Regex("^[[:alpha:]]$").search("x]") == MatchResult::no_match);
    CHECK(Regex("^[[:alpha:]]$").search(":]") == MatchResult::match);
    CHECK(Regex("^[^]$").search("x") == MatchResult::match);
    CHECK(Regex("[]").search("x") == MatchResult::no_match);
    CHECK(Regex("^\\v$").search("\v") == MatchResult::match);
    CHECK(Regex("^(?<year>\\d{4})-\\k<year>$").search("2020-2020") == MatchResult::match);
    CHECK(Regex("^a\\.b$").search("a.b") == MatchResult::match);
    CHECK(Regex("^a\\.b$").search("axb") == MatchResult::no_match);
    CHECK(Regex("^\\[x\\]$").search("[x]") == MatchResult::match);
    CHECK(Regex("^[a\\]]+$").search("a]a") == MatchResult::match);
    CHECK(Regex("^\\$\\(é\\)$").search("$(é)") == MatchResult::match);
    CHECK_THROWS_AS(Regex("\\a"), RegexError);
    CHECK_THROWS_AS(Regex("\\Z"), RegexError);
    CHECK_THROWS_AS(Regex("(?i)a"), RegexError);
    CHECK_THROWS_AS(Regex("[a"), RegexError);
    CHECK_THROWS_AS(Regex("a\\"), RegexError);
}

TEST_CASE("regex::invalid UTF-8 in the text is matched safely") {
    CHECK(Regex("b").search("a\xff"
                            "b") == MatchResult::match);
    CHECK(Regex("^a$").search("\xff") == MatchResult::no_match);
}

TEST_CASE("schema::a valid instance nested 3,000 levels deep through a recursive schema") {
    Schema nested = Schema::compile_text(R"({"type": "array", "items": {"$ref": "#"}})");
    constexpr int k_depth = 3000;
    std::string instance = std::string(k_depth, '[') + std::string(k_depth, ']');
    CHECK(is_valid(nested, instance));
    CHECK(violations_of(nested, instance).empty());
    // Two evaluations a level ("items", then "$ref"): 6,000 levels, well within the parser's
    // nesting limit, are more than the validator follows.
    std::string beyond = std::string(6000, '[') + std::string(6000, ']');
    REQUIRE(violations_of(nested, beyond).size() == 1);
    CHECK(violations_of(nested, beyond)[0].message.find("nested too deeply") != std::string::npos);
    // Far deeper input still ends with a verdict instead of a crash.
    constexpr int k_hostile_depth = 200'000;
    std::string hostile = std::string(k_hostile_depth, '[') + std::string(k_hostile_depth, ']');
    auto violations = violations_of(nested, hostile);
    REQUIRE(violations.size() == 1);
    CHECK(violations[0].message.find("nested too deeply") != std::string::npos);
}

namespace {

struct SmallStackCall {
    const Schema* schema;
    const rapidjson::Document* instance;
    bool valid = false;
};

void* validate_on_small_stack(void* argument) {
    auto* call = static_cast<SmallStackCall*>(argument);
    call->valid = call->schema->validate(*call->instance);
    return nullptr;
}

}  // namespace

TEST_CASE("schema::the verdict on a deep instance does not depend on the caller's stack") {
    // 3,000 levels need more than a 256 KiB stack: the validator notices its stack running low
    // and finishes on a thread with a large one, instead of crashing or calling it too deep.
    Schema nested = Schema::compile_text(R"({"type": "array", "items": {"$ref": "#"}})");
    auto instance = parse_json(std::string(3000, '[') + std::string(3000, ']'));
    SmallStackCall call{&nested, &instance};
    pthread_attr_t attributes;
    REQUIRE(pthread_attr_init(&attributes) == 0);
    REQUIRE(pthread_attr_setstacksize(&attributes, 256 * 1024) == 0);
    pthread_t thread;
    REQUIRE(pthread_create(&thread, &attributes, validate_on_small_stack, &call) == 0);
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attributes);
    CHECK(call.valid);
}
