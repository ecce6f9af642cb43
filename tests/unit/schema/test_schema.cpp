#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <thread>

#include "schema/schema.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace conform::schema;
using namespace conform::schema::testing;

namespace {

const Violation* find_violation(const std::vector<Violation>& violations,
                                std::string_view keyword_path) {
    auto found = std::find_if(violations.begin(), violations.end(),
                              [&](const Violation& v) { return v.keyword_path == keyword_path; });
    return found == violations.end() ? nullptr : &*found;
}

std::string compile_error(std::string_view schema_text) {
    try {
        Schema::compile_text(schema_text);
    } catch (const conform::Error& error) {
        CHECK(error.kind() == conform::ErrorKind::input);
        return error.what();
    }
    FAIL("schema compiled although it is unusable: " << schema_text);
    return "";
}

}  // namespace

TEST_CASE("schema::integer semantics") {
    Schema integer = Schema::compile_text(R"({"type": "integer"})");
    CHECK(is_valid(integer, "1"));
    CHECK(is_valid(integer, "-5"));
    CHECK(is_valid(integer, "1.0"));
    CHECK(is_valid(integer, "1e3"));
    CHECK(is_valid(integer, "18446744073709551615"));
    CHECK_FALSE(is_valid(integer, "1.5"));
    CHECK_FALSE(is_valid(integer, "\"1\""));
    SUBCASE("booleans are not integers or numbers, unlike in Python") {
        CHECK_FALSE(is_valid(integer, "true"));
        CHECK_FALSE(is_valid(Schema::compile_text(R"({"type": "number"})"), "false"));
        CHECK_FALSE(is_valid(Schema::compile_text(R"({"type": "boolean"})"), "0"));
    }
    SUBCASE("the message names the instance's own type") {
        auto violations = violations_of(integer, "1.5");
        REQUIRE(violations.size() == 1);
        CHECK(violations[0].message == "expected integer, got number");
        CHECK(violations_of(integer, "true")[0].message == "expected integer, got boolean");
        Schema nullable = Schema::compile_text(R"({"type": ["null", "string"]})");
        CHECK(violations_of(nullable, "3")[0].message == "expected null or string, got integer");
    }
}

TEST_CASE("schema::violation paths and messages") {
    Schema schema = Schema::compile_text(R"({
        "type": "object",
        "properties": {
            "a": {"type": "integer"},
            "b": {"type": "array", "items": {"type": "string"}},
            "c": true
        },
        "required": ["a", "c"],
        "additionalProperties": false
    })");
    std::string instance = R"({"a": "x", "b": [1, "y", 2], "d~/": true})";
    auto violations = violations_of(schema, instance);
    REQUIRE(violations.size() == 5);

    const Violation* missing = find_violation(violations, "/required");
    REQUIRE(missing != nullptr);
    CHECK(missing->instance_path == "");
    CHECK(missing->message == "required property \"c\" is missing");

    const Violation* wrong_type = find_violation(violations, "/properties/a/type");
    REQUIRE(wrong_type != nullptr);
    CHECK(wrong_type->instance_path == "/a");
    CHECK(wrong_type->message == "expected integer, got string");

    CHECK(violations[2].instance_path == "/b/0");
    CHECK(violations[2].keyword_path == "/properties/b/items/type");
    CHECK(violations[3].instance_path == "/b/2");

    const Violation* extra = find_violation(violations, "/additionalProperties");
    REQUIRE(extra != nullptr);
    CHECK(extra->instance_path == "/d~0~1");  // the unexpected property itself
    CHECK(extra->message == "property \"d~/\" is not allowed (additionalProperties is false)");
    SUBCASE("an unexpected property names the nearest one the schema describes") {
        auto near = violations_of(schema, R"({"a": 1, "bee": []})");
        const Violation* unexpected = find_violation(near, "/additionalProperties");
        REQUIRE(unexpected != nullptr);
        CHECK(
            unexpected->message ==
            "property \"bee\" is not allowed (additionalProperties is false) (did you mean 'b'?)");
    }

    SUBCASE("max_violations caps the list, and the fast path agrees") {
        CHECK(violations_of(schema, instance, 2).size() == 2);
        CHECK_FALSE(is_valid(schema, instance));
        CHECK(is_valid(schema, R"({"a": 1, "c": null})"));
        CHECK(violations_of(schema, R"({"a": 1, "c": null})").empty());
    }
    SUBCASE("appends after what `out` already holds") {
        std::vector<Violation> out(1);
        CHECK_FALSE(schema.validate(parse_json(instance), &out, 2));
        CHECK(out.size() == 3);
    }
    SUBCASE("member names are escaped in instance paths") {
        Schema strings = Schema::compile_text(R"({"additionalProperties": {"type": "string"}})");
        auto found = violations_of(strings, R"({"x/y~z": 1})");
        REQUIRE(found.size() == 1);
        CHECK(found[0].instance_path == "/x~1y~0z");
        CHECK(found[0].keyword_path == "/additionalProperties/type");
    }
}

TEST_CASE("schema::keyword messages") {
    auto first_message = [](std::string_view schema, std::string_view instance) {
        auto violations = violations_of(Schema::compile_text(schema), instance);
        REQUIRE(!violations.empty());
        return violations.front().message;
    };
    CHECK(first_message(R"({"minimum": 0})", "-1") == "-1 is less than minimum 0");
    CHECK(first_message(R"({"exclusiveMaximum": 2.5})", "2.5") ==
          "2.5 is not less than exclusiveMaximum 2.5");
    CHECK(first_message(R"({"multipleOf": 3})", "10") == "10 is not a multiple of 3");
    CHECK(first_message(R"({"maxLength": 2})", R"("ééé")") ==
          "string of 3 characters is longer than maxLength 2");
    CHECK(first_message(R"({"pattern": "^a"})", R"("ba")") ==
          "\"ba\" does not match pattern \"^a\"");
    CHECK(first_message(R"({"enum": ["a", "b"]})", R"("c")") ==
          "\"c\" is not one of the values the enum allows: \"a\", \"b\"");
    CHECK(first_message(R"({"enum": ["never", "missing", "always"]})", R"("alway")") ==
          "\"alway\" is not one of the values the enum allows: \"never\", \"missing\", "
          "\"always\" (did you mean 'always'?)");
    CHECK(first_message(R"({"enum": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]})", "14") ==
          "14 is not one of the values the enum allows: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 2 "
          "more");
    CHECK(first_message(R"({"const": "a"})", "{}") ==
          "expected \"a\", got an object with 0 properties");
    CHECK(first_message(R"({"format": "date-time"})", R"("2021-13-01T00:00:00Z")") ==
          "\"2021-13-01T00:00:00Z\" is not a valid date-time: there is no month 13");
    CHECK(first_message(R"({"uniqueItems": true})", "[1, 2, 1.0]") ==
          "items 0 and 2 are equal, but uniqueItems is set");
    CHECK(first_message(R"({"contains": {"type": "string"}})", "[1]") ==
          "no item matches the contains schema");
    CHECK(first_message(R"({"not": {"type": "string"}})", R"("x")") ==
          "value matches the schema in \"not\"");
    CHECK(first_message("false", "1") == "no value is allowed here (false schema)");
    CHECK(first_message(R"({"dependencies": {"a": ["b"]}})", R"({"a": 1})") ==
          "required property \"b\" is missing");
}

TEST_CASE("schema::$ref and combinators in keyword paths") {
    SUBCASE("evaluation goes through $ref") {
        Schema schema = Schema::compile_text(R"({
            "definitions": {"positive": {"minimum": 0}},
            "properties": {"n": {"$ref": "#/definitions/positive"}}
        })");
        auto violations = violations_of(schema, R"({"n": -1})");
        REQUIRE(violations.size() == 1);
        CHECK(violations[0].instance_path == "/n");
        CHECK(violations[0].keyword_path == "/properties/n/$ref/minimum");
    }
    SUBCASE("oneOf with no match explains the closest alternative") {
        Schema schema = Schema::compile_text(R"({"oneOf": [
            {"properties": {"kind": {"const": "a"}, "x": {"type": "string"}},
             "required": ["kind", "x"]},
            {"properties": {"kind": {"const": "b"}}, "required": ["kind", "y"]}
        ]})");
        auto violations = violations_of(schema, R"({"kind": "a"})");
        REQUIRE(violations.size() == 2);
        CHECK(violations[0].keyword_path == "/oneOf");
        CHECK(violations[0].message == "value matches none of the 2 oneOf alternatives");
        CHECK(violations[1].keyword_path == "/oneOf/0/required");
        CHECK(violations[1].message == "required property \"x\" is missing");
    }
    SUBCASE("a nullable object's oneOf is explained by the object alternative") {
        // Airbyte's schemas write nullable objects this way (source-flexport's air_shipment): a
        // wrong type inside the object is the mistake, not that the object is not null.
        Schema schema = Schema::compile_text(R"({"properties": {"air": {"oneOf": [
            {"type": "null"},
            {"type": "object", "properties": {"bill": {"type": "string"}}}
        ]}}})");
        auto violations = violations_of(schema, R"({"air": {"bill": null}})");
        REQUIRE(violations.size() == 2);
        CHECK(violations[0].message == "value matches none of the 2 oneOf alternatives");
        CHECK(violations[1].instance_path == "/air/bill");
        CHECK(violations[1].keyword_path == "/properties/air/oneOf/1/properties/bill/type");
        CHECK(violations[1].message == "expected string, got null");
    }
    SUBCASE("oneOf with two matches names them") {
        Schema schema = Schema::compile_text(R"({"oneOf": [{"type": "integer"}, {"minimum": 0}]})");
        auto violations = violations_of(schema, "1");
        REQUIRE(violations.size() == 1);
        CHECK(violations[0].message ==
              "value matches oneOf alternatives 0 and 1; exactly one may match");
    }
    SUBCASE("if/then/else reports under the branch taken") {
        Schema schema = Schema::compile_text(
            R"({"if": {"type": "string"}, "then": {"minLength": 2}, "else": {"minimum": 5}})");
        CHECK(violations_of(schema, R"("a")")[0].keyword_path == "/then/minLength");
        CHECK(violations_of(schema, "1")[0].keyword_path == "/else/minimum");
        CHECK(is_valid(schema, R"("ab")"));
    }
}

TEST_CASE("schema::equality and uniqueness") {
    Schema choices = Schema::compile_text(R"({"enum": [1, {"a": [1.0, null]}, "x"]})");
    CHECK(is_valid(choices, "1.0"));
    CHECK(is_valid(choices, R"({"a": [1, null]})"));
    CHECK_FALSE(is_valid(choices, "true"));
    CHECK_FALSE(is_valid(choices, R"({"a": [1]})"));
    CHECK_FALSE(is_valid(Schema::compile_text(R"({"const": -1})"), "18446744073709551615"));

    SUBCASE("large arrays use hashing and still find 1 == 1.0") {
        Schema unique = Schema::compile_text(R"({"uniqueItems": true})");
        std::string distinct = "[";
        for (int i = 0; i < 100; ++i) {
            distinct += std::to_string(i) + ", {\"k\": " + std::to_string(i) + "}, ";
        }
        CHECK(is_valid(unique, distinct + "\"end\"]"));
        auto violations = violations_of(unique, distinct + "{\"k\": 42.0}]");
        REQUIRE(violations.size() == 1);
        CHECK(violations[0].message == "items 85 and 200 are equal, but uniqueItems is set");
    }
}

TEST_CASE("schema::strings count code points and patterns are not anchored") {
    Schema two = Schema::compile_text(R"({"minLength": 2, "maxLength": 2})");
    CHECK(is_valid(two, R"("éé")"));
    CHECK(is_valid(two, R"("🐲🐲")"));
    CHECK_FALSE(is_valid(two, R"("é")"));
    CHECK(is_valid(Schema::compile_text(R"({"pattern": "b"})"), R"("abc")"));
    CHECK(is_valid(Schema::compile_text(R"({"pattern": "^.{2}$"})"), R"("éé")"));
    CHECK(is_valid(Schema::compile_text(R"({"pattern": "^🐲*$"})"), R"("🐲🐲")"));
    SUBCASE("a long string does not exhaust the stack") {
        Schema base64 = Schema::compile_text(
            R"({"pattern": "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"})");
        std::string blob = "\"" + std::string(200000, 'A') + "\"";
        CHECK(is_valid(base64, blob));
    }
}

TEST_CASE("schema::compile errors name the keyword and its location") {
    CHECK(compile_error(R"({"type": 5})").find("\"type\" at \"#/type\"") != std::string::npos);
    CHECK(compile_error(R"({"properties": {"a": {"type": "strin"}}})")
              .find("\"#/properties/a/type\"") != std::string::npos);
    CHECK(compile_error(R"({"pattern": "("})").find("pattern \"(\" at \"#/pattern\"") !=
          std::string::npos);
    CHECK(compile_error(R"({"patternProperties": {"[": {}}})").find("\"#/patternProperties/[\"") !=
          std::string::npos);
    CHECK(compile_error(R"({"$ref": "#/definitions/missing"})")
              .find("\"#/definitions/missing\", which cannot be resolved") != std::string::npos);
    // A pointer to a value that is no schema (found by fuzzing: it escaped as std::out_of_range).
    CHECK(compile_error(R"({"properties": {"a": {"$ref": "#/required"}}, "required": ["a"]})")
              .find("names \"#/required\", which is no schema") != std::string::npos);
    CHECK(compile_error(R"({"$ref": "http://json-schema.org/draft-07/schema#/type"})")
              .find("which is no schema") != std::string::npos);
    // A repeated name (found by fuzzing: the second "oneOf" was never indexed and escaped as
    // std::out_of_range); in a map of subschemas too.
    CHECK(compile_error(R"({"oneOf": [{}], "if": {}, "oneOf": [{"not": {}}]})")
              .find("at \"#\" has the member \"oneOf\" twice") != std::string::npos);
    CHECK(compile_error(R"({"items": {"properties": {"a": {}, "b": true, "a": false}}})")
              .find("at \"#/items/properties\" has the member \"a\" twice") != std::string::npos);
    CHECK(compile_error(R"({"minLength": -1})").find("non-negative integer") != std::string::npos);
    CHECK(compile_error(R"({"allOf": []})").find("non-empty array") != std::string::npos);
    CHECK(compile_error(R"({"required": "a"})").find("array of strings") != std::string::npos);
    CHECK(compile_error(R"({"items": 3})").find("\"#/items\" must be an object or a boolean") !=
          std::string::npos);
    CHECK(compile_error(R"({"multipleOf": 0})").find("greater than 0") != std::string::npos);
    CHECK(compile_error("42").find("must be an object or a boolean") != std::string::npos);
    CHECK(compile_error("{\"type\": ").find("not valid JSON") != std::string::npos);
    SUBCASE("recursion that never descends into the instance") {
        CHECK(compile_error(R"({"$ref": "#"})").find("refers to itself") != std::string::npos);
        CHECK(compile_error(R"({"anyOf": [{"type": "null"}, {"$ref": "#"}]})")
                  .find("refers to itself") != std::string::npos);
        CHECK_NOTHROW(Schema::compile_text(R"({"items": {"$ref": "#"}})"));
    }
    SUBCASE("schemas nested absurdly deep") {
        std::string deep;
        for (int i = 0; i < 600; ++i) {
            deep += R"({"items": )";
        }
        deep += "true" + std::string(600, '}');
        CHECK(compile_error(deep).find("nests subschemas more than 500 levels") !=
              std::string::npos);
    }
    SUBCASE("a broken definition is reported even when unused") {
        CHECK(compile_error(R"({"definitions": {"x": {"maxItems": "2"}}})")
                  .find("\"#/definitions/x/maxItems\"") != std::string::npos);
    }
}

TEST_CASE("schema::remote documents") {
    rapidjson::Document remote = parse_json(R"({"definitions": {"id": {"type": "integer"}}})");
    int lookups = 0;
    DocumentLookup lookup = [&](std::string_view uri) -> const rapidjson::Value* {
        ++lookups;
        return uri == "https://example.com/defs.json" ? &remote : nullptr;
    };
    Schema schema = Schema::compile_text(R"({"$id": "https://example.com/root.json",
        "properties": {"a": {"$ref": "defs.json#/definitions/id"},
                       "b": {"$ref": "https://example.com/defs.json#/definitions/id"}}})",
                                         lookup);
    CHECK(lookups == 1);
    CHECK(is_valid(schema, R"({"a": 1, "b": 2})"));
    CHECK_FALSE(is_valid(schema, R"({"b": "x"})"));
    CHECK_THROWS_AS(Schema::compile_text(R"({"$ref": "https://example.com/other.json"})", lookup),
                    conform::Error);
    SUBCASE("the draft-07 metaschema is built in") {
        Schema meta =
            Schema::compile_text(R"({"$ref": "http://json-schema.org/draft-07/schema#"})");
        CHECK(is_valid(meta, R"({"type": "string"})"));
        CHECK_FALSE(is_valid(meta, R"({"type": 5})"));
    }
}

TEST_CASE("schema::a compiled schema owns its data") {
    std::optional<Schema> schema;
    {
        rapidjson::Document document =
            parse_json(R"({"properties": {"name": {"enum": ["alpha", "beta"]}}})");
        schema.emplace(Schema::compile(document));
        document.SetNull();
        document.GetAllocator().Clear();
    }
    Schema moved = std::move(*schema);
    CHECK(is_valid(moved, R"({"name": "beta"})"));
    CHECK_FALSE(is_valid(moved, R"({"name": "gamma"})"));
}

TEST_CASE("schema::deep instances are refused, not a crash") {
    Schema nested = Schema::compile_text(R"({"items": {"$ref": "#"}})");
    std::string shallow = std::string(100, '[') + std::string(100, ']');
    CHECK(is_valid(nested, shallow));
    std::string deep = std::string(20000, '[') + std::string(20000, ']');
    auto violations = violations_of(nested, deep);
    REQUIRE(violations.size() == 1);
    CHECK(violations[0].message.find("nested too deeply") != std::string::npos);
    CHECK_FALSE(is_valid(nested, deep));
}

// A leaf that checks only the type is judged without a frame of its own; at the nesting limit it
// must still be "nested too deeply" (inside the anyOf: the instance is refused), as a leaf with one
// more keyword is. The limit falls on a leaf for one of three paddings (a level of the recursion
// costs three evaluations).
TEST_CASE("schema::a type-only leaf counts against the nesting limit like any other node") {
    auto schema = [](int padding, std::string_view leaf) {
        std::string text = R"({"definitions": {"n": {"anyOf": [)" + std::string(leaf) +
                           R"(, {"type": "array", "items": {"$ref": "#/definitions/n"}}]}}, )";
        std::string wrapped = R"({"$ref": "#/definitions/n"})";
        for (int i = 0; i < padding; ++i) {
            wrapped = R"({"allOf": [)" + wrapped + "]}";
        }
        return Schema::compile_text(text + R"("allOf": [)" + wrapped + "]}");
    };
    auto nested = [](int depth, std::string_view leaf) {
        return std::string(depth, '[') + std::string(leaf) + std::string(depth, ']');
    };
    for (int padding = 0; padding < 3; ++padding) {
        CAPTURE(padding);
        Schema type_only = schema(padding, R"({"type": "integer"})");
        Schema with_minimum = schema(padding, R"({"type": "integer", "minimum": 0})");
        // The shallowest nesting the validator refuses, by bisection.
        int valid = 1;
        int refused = 6000;
        while (refused - valid > 1) {
            int middle = (valid + refused) / 2;
            (is_valid(with_minimum, nested(middle, "1")) ? valid : refused) = middle;
        }
        CHECK_FALSE(is_valid(type_only, nested(refused, "1")));
        for (int depth = valid - 1; depth <= refused + 1; ++depth) {
            CAPTURE(depth);
            for (std::string_view leaf : {"1", "\"x\""}) {
                std::string instance = nested(depth, leaf);
                CHECK(is_valid(type_only, instance) == is_valid(with_minimum, instance));
                auto shortcut = violations_of(type_only, instance);
                auto general = violations_of(with_minimum, instance);
                REQUIRE(shortcut.size() == general.size());
                for (std::size_t i = 0; i < shortcut.size(); ++i) {
                    CHECK(shortcut[i].message == general[i].message);
                }
            }
        }
    }
}

TEST_CASE("schema::draft7 metaschema") {
    const Schema& meta = draft7_metaschema();
    CHECK(&meta == &draft7_metaschema());
    CHECK(meta.validate(parse_json(draft7_metaschema_text())));
    CHECK(is_valid(meta, R"({"type": ["string", "null"], "format": "date-time"})"));
    auto violations = violations_of(meta, R"({"properties": {"a": {"minLength": -1}}})");
    REQUIRE(!violations.empty());
    CHECK(violations[0].instance_path == "/properties/a/minLength");
    CHECK_FALSE(is_valid(meta, R"({"pattern": "(unclosed"})"));
    CHECK_FALSE(is_valid(meta, R"({"type": "strin"})"));
}

TEST_CASE("schema::validate is safe from several threads") {
    Schema schema = Schema::compile_text(
        R"({"properties": {"at": {"format": "date-time"}, "p": {"pattern": "^[a-z]+$"}}})");
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (std::size_t t = 0; t < failures.size(); ++t) {
        threads.emplace_back([&, t] {
            rapidjson::Document good;
            good.Parse(R"({"at": "2024-02-29T12:00:00Z", "p": "abc"})");
            rapidjson::Document bad;
            bad.Parse(R"({"at": "2023-02-29T12:00:00Z", "p": "ABC"})");
            for (int i = 0; i < 2000; ++i) {
                failures[t] += schema.validate(good) ? 0 : 1;
                failures[t] += schema.validate(bad) ? 1 : 0;
            }
        });
    }
    for (auto& thread : threads) {
        thread.join();
    }
    CHECK(std::count(failures.begin(), failures.end(), 0) == 4);
}

TEST_CASE("schema::discriminated allOf and property const shortcuts agree with the general rules") {
    // The first schema of each pair has the shapes the evaluator takes a shortcut for (an allOf
    // of {"if": {"properties": {key: {"const": v}}}, "then": ...}, and such an `if` alone in an
    // anyOf); the second adds keywords that change nothing but keep it on the general path.
    const std::pair<const char*, const char*> schemas[] = {
        {R"({"allOf":[
              {"if":{"properties":{"type":{"const":"A"}}},"then":{"required":["a"]}},
              {"if":{"properties":{"type":{"const":"B"}}},"then":{"required":["b"]}},
              {"if":{"properties":{"type":{"const":1}}},"then":{"required":["one"]}},
              {"if":{"properties":{"type":{"const":{"k":[1]}}}}}]})",
         R"({"allOf":[
              {"if":{"properties":{"type":{"const":"A"}},"minProperties":0},
               "then":{"required":["a"]},"else":true},
              {"if":{"properties":{"type":{"const":"B"}},"minProperties":0},
               "then":{"required":["b"]},"else":true},
              {"if":{"properties":{"type":{"const":1}},"minProperties":0},
               "then":{"required":["one"]},"else":true},
              {"if":{"properties":{"type":{"const":{"k":[1]}}},"minProperties":0},
               "else":true}]})"},
        {R"({"anyOf":[{"properties":{"type":{"const":"A"}}},{"properties":{"type":{"const":1}}}],
             "required":["type"]})",
         R"({"anyOf":[{"properties":{"type":{"const":"A"}},"minProperties":0},
                      {"properties":{"type":{"const":1}},"minProperties":0}],
             "required":["type"]})"},
    };
    const char* instances[] = {
        R"({"type":"A","a":1})",
        R"({"type":"A"})",
        R"({"type":"B","a":1})",
        R"({"type":"B","b":1})",
        R"({"type":"C"})",
        R"({})",
        R"({"a":1,"b":1,"one":1})",
        R"("a string")",
        R"([1,2])",
        R"({"type":1.0,"one":1})",
        R"({"type":1.0})",
        R"({"type":{"k":[1]}})",
        R"({"type":{"k":[1.0]}})",
        R"({"type":null})",
        R"({"type":"A","type":"B","a":1})",
        R"(null)",
    };
    for (const auto& [shortcut_text, general_text] : schemas) {
        Schema shortcut = Schema::compile_text(shortcut_text);
        Schema general = Schema::compile_text(general_text);
        for (const char* instance : instances) {
            CAPTURE(std::string(shortcut_text));
            CAPTURE(std::string(instance));
            CHECK(is_valid(shortcut, instance) == is_valid(general, instance));
            CHECK(violations_of(shortcut, instance).empty() ==
                  violations_of(general, instance).empty());
        }
    }
    Schema messages = Schema::compile_text(schemas[0].first);
    CHECK(!is_valid(messages, R"({"type":"A"})"));
    CHECK(is_valid(messages, R"({"type":"C"})"));
    CHECK(!is_valid(messages, R"({})"));  // no key: every `if` holds, every `then` applies
    CHECK(is_valid(messages, R"({"type":1.0,"one":1})"));
    CHECK(!is_valid(messages, R"({"type":1.0})"));
}

TEST_CASE("schema::the shortcuts reach the depth limit where the general rules do") {
    Schema shortcut = Schema::compile_text(R"({"allOf":[
        {"if":{"properties":{"t":{"const":"n"}}},"then":{"properties":{"c":{"$ref":"#"}}}},
        {"if":{"properties":{"t":{"const":"m"}}},"then":{"required":["x"]}}]})");
    Schema general = Schema::compile_text(R"({"allOf":[
        {"if":{"properties":{"t":{"const":"n"}},"minProperties":0},
         "then":{"properties":{"c":{"$ref":"#"}}},"else":true},
        {"if":{"properties":{"t":{"const":"m"}},"minProperties":0},
         "then":{"required":["x"]},"else":true}]})");
    bool saw_valid = false;
    bool saw_too_deep = false;
    for (int depth = 2490; depth <= 2510; ++depth) {
        std::string instance;
        for (int i = 0; i < depth; ++i) {
            instance += R"({"t":"n","c":)";
        }
        instance += R"({"t":"n"})" + std::string(static_cast<std::size_t>(depth), '}');
        CAPTURE(depth);
        bool valid = is_valid(shortcut, instance);
        CHECK(valid == is_valid(general, instance));
        saw_valid = saw_valid || valid;
        saw_too_deep = saw_too_deep || !valid;
    }
    CHECK(saw_valid);  // the window holds the limit: both verdicts occur
    CHECK(saw_too_deep);
}
