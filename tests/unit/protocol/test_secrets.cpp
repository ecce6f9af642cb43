#include <doctest/doctest.h>

#include <string>

#include <rapidjson/document.h>

#include <algorithm>
#include <vector>

#include "protocol/secrets.hpp"

using conform::protocol::Secrets;

TEST_CASE("secrets: every occurrence is found and masked") {
    Secrets secrets({"s3cr3t-token"});
    CHECK(!secrets.empty());
    CHECK(secrets.found_in("Authorization: s3cr3t-token"));
    CHECK(!secrets.found_in("Authorization: s3cr3t-toke"));
    CHECK(secrets.redact("a s3cr3t-token b s3cr3t-tokens3cr3t-token") ==
          "a ********** b ********************");
    CHECK(secrets.redact("nothing here") == "nothing here");
}

TEST_CASE("secrets: the JSON-escaped form of a secret is found and masked") {
    Secrets secrets({"pa\"ss\\wo\nrd"});
    std::string json_line = R"({"message":"pw=pa\"ss\\wo\nrd"})";
    CHECK(secrets.found_in(json_line));
    CHECK(secrets.redact(json_line) == R"({"message":"pw=**********"})");
    CHECK(secrets.found_in("raw pa\"ss\\wo\nrd"));
    CHECK(secrets.redact("raw pa\"ss\\wo\nrd") == "raw **********");
}

TEST_CASE("secrets: 3-byte values are masked but not reported; shorter ones are ignored") {
    Secrets secrets({"", "abc", "xy"});
    CHECK(!secrets.empty());
    CHECK(!secrets.found_in("abc xy"));
    CHECK(secrets.redact("abc xy") == "********** xy");
    CHECK(Secrets({"", "xy"}).empty());
    Secrets four({"abcd"});
    CHECK(!four.empty());
    CHECK(four.found_in("abcd"));
    CHECK(four.redact("abcd") == "**********");
    CHECK(Secrets().empty());
    CHECK(!Secrets().found_in("anything"));
}

TEST_CASE("secrets::found and masked in any mix of JSON escapes") {
    Secrets secrets({"hunter22"});
    // Every character escaped, as a hostile or unusual serializer may write it.
    std::string all_escaped = R"({"message":"\u0068\u0075\u006e\u0074\u0065\u0072\u0032\u0032"})";
    CHECK(secrets.found_in(all_escaped));
    CHECK(secrets.redact(all_escaped) == R"({"message":"**********"})");
    std::string mixed = R"({"message":"key=hu\u006eter22!"})";
    CHECK(secrets.found_in(mixed));
    CHECK(secrets.redact(mixed) == R"({"message":"key=**********!"})");
    CHECK_FALSE(secrets.found_in(R"({"message":"hu\u006eter2"})"));
    // Python's json.dumps default (ensure_ascii) for a non-ASCII secret.
    Secrets accent({"caf\xC3\xA9-secret"});
    CHECK(accent.found_in(R"({"m":"caf\u00e9-secret"})"));
    CHECK(accent.redact(R"({"m":"caf\u00e9-secret"})") == R"({"m":"**********"})");
}

TEST_CASE("secrets::a number secret is found as text") {
    Secrets pin({"54321"});
    CHECK(pin.found_in(R"({"message":"pin 54321"})"));
}

TEST_CASE("secrets::the stream scanner finds a secret split across chunks and far back") {
    Secrets secrets({"hunter22"});
    conform::protocol::SecretStreamScanner scanner(&secrets);
    scanner.feed("key=hun");
    CHECK_FALSE(scanner.found());
    scanner.feed("ter22\n");
    CHECK(scanner.found());
    conform::protocol::SecretStreamScanner late(&secrets);
    late.feed("hunter22\n");
    late.feed(std::string(200000, 'x'));
    CHECK(late.found());
    conform::protocol::SecretStreamScanner none(&secrets);
    none.feed(std::string(100000, 'y'));
    CHECK_FALSE(none.found());
}

TEST_CASE("secrets: a secret containing another is masked whole") {
    Secrets secrets({"pass", "password123"});
    CHECK(secrets.redact("x password123 y pass z") == "x ********** y ********** z");
}

TEST_CASE("secrets: a secret made of mask characters does not loop") {
    Secrets secrets({"****"});
    CHECK(secrets.redact("a****b") == "a**********b");
}

TEST_CASE("secrets::found in every JSON spelling") {
    conform::protocol::Secrets secrets({"p\xC3\xA4ss/w\"rd\r"});
    CHECK(secrets.found_in("p\xC3\xA4ss/w\\\"rd\\r"));
    CHECK(secrets.found_in("p\xC3\xA4ss\\/w\\\"rd\\r"));
    CHECK(secrets.found_in("p\\u00e4ss\\/w\\\"rd\\r"));
    CHECK(secrets.found_in("p\\u00E4ss\\/w\\\"rd\\r"));
    CHECK_FALSE(secrets.found_in("p\\u00e4ss/w\\\"rd"));
    conform::protocol::Secrets emoji({"key-\xF0\x9F\x94\x91"});
    CHECK(emoji.found_in("key-\\ud83d\\udd11"));
}

namespace {

rapidjson::Document parse_iteratively(const std::string& text) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
    REQUIRE(!document.HasParseError());
    return document;
}

}  // namespace

TEST_CASE("secrets::collect_secrets follows properties, items and combinators") {
    auto spec = parse_iteratively(R"({"properties": {
        "token": {"type": "string", "airbyte_secret": true},
        "port": {"type": "integer", "airbyte_secret": true},
        "plain": {"type": "string"},
        "auth": {"oneOf": [{"properties": {"password": {"airbyte_secret": true}}}]},
        "keys": {"items": {"airbyte_secret": true}}}})");
    auto config = parse_iteratively(R"({"token": "tok-123", "port": 54321, "plain": "visible",
        "auth": {"password": "hunter22"}, "keys": ["k-one", "k-two"]})");
    auto secrets = conform::protocol::collect_secrets(spec, config);
    std::sort(secrets.begin(), secrets.end());
    CHECK(secrets == std::vector<std::string>{"54321", "hunter22", "k-one", "k-two", "tok-123"});
}

TEST_CASE("secrets::collect_secrets survives a spec nested 500,000 oneOf levels deep") {
    constexpr int k_depth = 500'000;
    std::string spec;
    spec.reserve(k_depth * 12 + 64);
    for (int i = 0; i < k_depth; ++i) {
        spec += R"({"oneOf":[)";
    }
    spec += R"({"airbyte_secret":true})";
    for (int i = 0; i < k_depth; ++i) {
        spec += "]}";
    }
    auto document = parse_iteratively(spec);
    auto config = parse_iteratively(R"("deep-secret")");
    CHECK(conform::protocol::collect_secrets(document, config) ==
          std::vector<std::string>{"deep-secret"});
}

TEST_CASE("secrets::collect_secrets follows $ref, additional and pattern properties, branches") {
    auto spec = parse_iteratively(R"({
        "definitions": {"secret": {"type": "string", "airbyte_secret": true},
                        "node": {"properties": {"key": {"$ref": "#/definitions/secret"},
                                                "next": {"$ref": "#/definitions/node"}}}},
        "properties": {
            "auth": {"$ref": "#/definitions/node"},
            "headers": {"additionalProperties": {"airbyte_secret": true},
                        "properties": {"Accept": {"type": "string"}}},
            "tokens": {"patternProperties": {"^tok_": {"airbyte_secret": true}}},
            "tuple": {"items": [{"type": "string"}, {"airbyte_secret": true}],
                      "additionalItems": {"airbyte_secret": true}},
            "mode": {"if": {"properties": {"kind": {"const": "a"}}},
                     "then": {"properties": {"pass": {"airbyte_secret": true}}}},
            "loop": {"$ref": "#/properties/loop"},
            "escaped": {"$ref": "#/definitions/a~1b"}},
        "dependencies": {"user": {"properties": {"pw": {"airbyte_secret": true}}}}})");
    auto config = parse_iteratively(R"({
        "auth": {"key": "ref-one", "next": {"key": "ref-two"}},
        "headers": {"Accept": "json", "X-Key": "header-secret"},
        "tokens": {"tok_a": "tok-secret", "plain": "visible"},
        "tuple": ["first", "second-secret", "third-secret"],
        "mode": {"kind": "a", "pass": "branch-secret"},
        "loop": "not-a-secret", "escaped": "no-target",
        "user": "u", "pw": "dependent-secret"})");
    auto secrets = conform::protocol::collect_secrets(spec, config);
    std::sort(secrets.begin(), secrets.end());
    CHECK(secrets == std::vector<std::string>{"branch-secret", "dependent-secret", "header-secret",
                                              "ref-one", "ref-two", "second-secret", "third-secret",
                                              "tok-secret"});
}

TEST_CASE("secrets: a secret used as a JSON pointer token is masked in that spelling too") {
    Secrets secrets({"k3y/abc~def"});
    CHECK(secrets.redact("at '/record/data/k3y~1abc~0def': not allowed") ==
          "at '/record/data/**********': not allowed");
    CHECK(secrets.found_in("k3y~1abc~0def"));
}

TEST_CASE("secrets: found and masked inside JSON inside JSON strings, up to three levels") {
    Secrets secrets({"cl\xC3\xA9-secret"});
    // A request body logged as a JSON string: json.dumps({"key": secret}) with ensure_ascii.
    std::string twice = R"({"message":"{\"key\": \"cl\\u00e9-secret\"}"})";
    CHECK(secrets.found_in(twice));
    CHECK(secrets.redact(twice).find("secret") == std::string::npos);
    std::string thrice = R"(x cl\\\\u00e9-secret y)";
    CHECK(secrets.found_in(thrice));
    CHECK(secrets.redact(thrice) == "x ********** y");
    CHECK_FALSE(Secrets({"hunter22"}).found_in(R"(hu\\\\\\\\u006eter22)"));  // four levels
}

TEST_CASE("secrets: masking a line with thousands of escaped secrets masks every one") {
    Secrets secrets({"hunter22"});
    std::string escaped = R"(\u0068\u0075\u006e\u0074\u0065\u0072\u0032\u0032)";
    std::string line;
    for (int i = 0; i < 20000; ++i) {
        line += escaped + (i % 2 == 0 ? " " : "hunter22 ");
    }
    auto masked = secrets.redact(line);
    CHECK(masked.find("hunter22") == std::string::npos);
    CHECK(masked.find(R"(\u0068)") == std::string::npos);
    std::size_t masks = 0;
    for (auto at = masked.find("**********"); at != std::string::npos;
         at = masked.find("**********", at + 10)) {
        ++masks;
    }
    CHECK(masks == 30000);
}

TEST_CASE("secrets: without a spec every config string is masked and none is reported") {
    rapidjson::Document config;
    config.Parse(R"({"api_key": "k3y-abcdef", "nested": [{"start": "2024-01-01"}], "n": 12345,
                    "ok": true})");
    auto strings = conform::protocol::config_strings(config);
    std::sort(strings.begin(), strings.end());
    CHECK(strings == std::vector<std::string>{"2024-01-01", "k3y-abcdef"});
    auto secrets = Secrets::without_spec(strings);
    CHECK_FALSE(secrets.from_spec());
    CHECK_FALSE(secrets.empty());
    CHECK(secrets.redact("key k3y-abcdef since 2024-01-01") == "key ********** since **********");
    CHECK(secrets.redact(R"({"k":"k3y\u002dabcdef"})") == R"({"k":"**********"})");
    CHECK_FALSE(secrets.found_in("key k3y-abcdef"));
    CHECK(Secrets({"k3y-abcdef"}).from_spec());
}
