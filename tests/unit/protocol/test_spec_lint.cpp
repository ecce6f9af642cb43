// AP-SPEC-5 / DST-SPEC-3: secret marks read as Airbyte's test_secret_is_properly_marked reads them.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <string>

#include "protocol/spec_lint.hpp"

using namespace conform;

namespace {

std::vector<protocol::SecretMarkProblem> problems_of(const std::string& text) {
    rapidjson::Document spec;
    spec.Parse(text.c_str());
    REQUIRE(!spec.HasParseError());
    return protocol::secret_mark_problems(spec);
}

}  // namespace

TEST_CASE("spec lint: a property named as a secret and holding a value is marked") {
    auto problems = problems_of(R"({"type": "object", "properties": {
        "password": {"type": "string"},
        "Token": {"type": ["null", "integer"]},
        "api_key": {"type": "string"},
        "secret_key": {"type": "string"},
        "client_secret": {"type": "string", "airbyte_secret": true},
        "key": {"type": "string", "const": "fixed"},
        "credentials": {"title": "Auth", "type": "object", "oneOf": [
            {"type": "object", "properties": {"auth_type": {"type": "string", "const": "oauth"},
                                              "refresh_token": {"type": "string"}}},
            {"type": "object", "properties": {"access_token": {"type": "string",
                                                               "airbyte_secret": true}}}]},
        "tokens": {"type": "array", "items": {"type": "string"}}}})");
    REQUIRE(problems.size() == 3);
    CHECK(problems[0].pointer == "/properties/Token");
    CHECK(problems[1].pointer == "/properties/credentials/oneOf/0/properties/refresh_token");
    CHECK(problems[1].message.find("'refresh_token' is named as a secret but not marked") !=
          std::string::npos);
    CHECK(problems[2].pointer == "/properties/password");
}

TEST_CASE("spec lint: a secret-named property that holds no value is not marked") {
    auto problems = problems_of(R"({"type": "object", "properties": {
        "credentials": {"type": "object", "airbyte_secret": true,
                        "properties": {"user": {"type": "string"}}},
        "secret": {"type": "boolean", "airbyte_secret": true},
        "flag": {"type": "boolean", "airbyte_secret": true}}})");
    REQUIRE(problems.size() == 2);
    CHECK(problems[0].message ==
          "property 'credentials' is marked airbyte_secret but holds no secret value (type "
          "object)");
    CHECK(problems[1].pointer == "/properties/secret");
}

TEST_CASE("spec lint: a deep specification is walked without recursion") {
    std::string text = R"({"type": "object", "properties": {"password": {"type": "string"}}})";
    for (int i = 0; i < 20000; ++i) {
        text = R"({"type": "object", "properties": {"nested": )" + text + "}}";
    }
    rapidjson::Document spec;
    spec.Parse<rapidjson::kParseIterativeFlag>(text.c_str());
    REQUIRE(!spec.HasParseError());
    CHECK(protocol::secret_mark_problems(spec).size() == 1);
}
