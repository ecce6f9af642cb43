#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "json/merge_patch.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"

using namespace conform::json;

namespace {

std::string merged(const std::string& target_text, const std::string& patch_text) {
    rapidjson::Document target = parse_json_text(target_text, "target");
    rapidjson::Document patch = parse_json_text(patch_text, "patch");
    apply_merge_patch(target, patch, target.GetAllocator());
    return to_canonical_json(target);
}

std::string canonical(const std::string& text) {
    return to_canonical_json(parse_json_text(text, "expected"));
}

struct Vector {
    const char* target;
    const char* patch;
    const char* result;
};

}  // namespace

TEST_CASE("merge_patch: RFC 7396 Appendix A vectors") {
    const Vector vectors[] = {
        {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
        {R"({"a":"b"})", R"({"a":null})", R"({})"},
        {R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
        {R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
        {R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
        {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
        {R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
        {R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
        {R"({"a":"b"})", R"(["c"])", R"(["c"])"},
        {R"({"a":"foo"})", R"(null)", R"(null)"},
        {R"({"a":"foo"})", R"("bar")", R"("bar")"},
        {R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
        {R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
        {R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"},
    };
    int number = 0;
    for (const Vector& vector : vectors) {
        ++number;
        CAPTURE(number);
        CHECK(merged(vector.target, vector.patch) == canonical(vector.result));
    }
}

TEST_CASE("merge_patch: traps") {
    SUBCASE("nulls inside a new subtree are stripped at every depth") {
        CHECK(merged(R"({"x":1})", R"({"a":{"b":null,"c":{"d":null,"e":2}}})") ==
              R"({"a":{"c":{"e":2}},"x":1})");
    }
    SUBCASE("arrays are replaced whole, nulls inside them kept") {
        CHECK(merged(R"({"a":[1,2,3]})", R"({"a":[null,{"b":null}]})") ==
              R"({"a":[null,{"b":null}]})");
    }
    SUBCASE("a non-object patch replaces") {
        CHECK(merged(R"({"a":1})", R"(42)") == "42");
        CHECK(merged(R"({"a":1})", R"(true)") == "true");
        CHECK(merged(R"({"a":1})", R"([])") == "[]");
    }
    SUBCASE("an object patch onto null or an array starts from {}") {
        CHECK(merged("null", R"({"a":1,"b":null})") == R"({"a":1})");
        CHECK(merged("[1]", R"({"a":1})") == R"({"a":1})");
        CHECK(merged(R"({"a":5})", R"({"a":{"b":1}})") == R"({"a":{"b":1}})");
    }
    SUBCASE("a top-level null patch yields null") {
        CHECK(merged(R"({"a":{"b":1}})", "null") == "null");
    }
    SUBCASE("an empty object patch changes nothing") {
        CHECK(merged(R"({"a":{"b":1}})", "{}") == R"({"a":{"b":1}})");
    }
    SUBCASE("deep existing objects are merged, siblings kept") {
        CHECK(merged(R"({"a":{"b":{"c":1,"d":2},"e":3}})", R"({"a":{"b":{"c":9}},"f":4})") ==
              R"({"a":{"b":{"c":9,"d":2},"e":3},"f":4})");
    }
    SUBCASE("many members added at one level keep earlier nested merges valid") {
        std::string patch = R"({"a":{"x":{"y":1}})";
        for (int i = 0; i < 50; ++i) {
            patch += ",\"k" + std::to_string(i) + "\":" + std::to_string(i);
        }
        patch += "}";
        std::string result = merged("{}", patch);
        CHECK(result.find(R"("a":{"x":{"y":1}})") != std::string::npos);
        CHECK(result.find(R"("k49":49)") != std::string::npos);
    }
}

TEST_CASE("merge_patch: sequential application differs from composition") {
    rapidjson::Document state = parse_json_text(R"({"a":{"b":5,"c":6}})", "x");
    rapidjson::Document p1 = parse_json_text(R"({"a":1})", "p1");
    rapidjson::Document p2 = parse_json_text(R"({"a":{"b":null}})", "p2");
    apply_merge_patch(state, p1, state.GetAllocator());
    apply_merge_patch(state, p2, state.GetAllocator());
    CHECK(to_canonical_json(state) == R"({"a":{}})");

    // Key-wise composition of p1 then p2 would be {"a":{"b":null}}, which gives a different state.
    rapidjson::Document composed_result = parse_json_text(R"({"a":{"b":5,"c":6}})", "x");
    rapidjson::Document composed = parse_json_text(R"({"a":{"b":null}})", "composed");
    apply_merge_patch(composed_result, composed, composed_result.GetAllocator());
    CHECK(to_canonical_json(composed_result) == R"({"a":{"c":6}})");
    CHECK(to_canonical_json(composed_result) != to_canonical_json(state));
}

TEST_CASE("merge_patch: the patch is copied, not referenced") {
    rapidjson::Document target(rapidjson::kObjectType);
    {
        std::string buffer = R"({"name":"value","nested":{"k":"v"}})";
        rapidjson::Document patch;
        patch.ParseInsitu(buffer.data());
        REQUIRE(!patch.HasParseError());
        apply_merge_patch(target, patch, target.GetAllocator());
        buffer.assign(buffer.size(), 'X');
    }
    CHECK(to_canonical_json(target) == R"({"name":"value","nested":{"k":"v"}})");
}

TEST_CASE("merge_patch: deep nesting does not exhaust the stack") {
    constexpr int k_depth = 200000;
    std::string patch_text;
    for (int i = 0; i < k_depth; ++i) {
        patch_text += "{\"a\":";
    }
    patch_text += "null";
    patch_text.append(k_depth, '}');
    rapidjson::Document patch = parse_json_text(patch_text, "deep");
    rapidjson::Document target(rapidjson::kObjectType);
    apply_merge_patch(target, patch, target.GetAllocator());
    std::string expected;
    for (int i = 0; i < k_depth - 1; ++i) {
        expected += "{\"a\":";
    }
    expected += "{}";
    expected.append(k_depth - 1, '}');
    CHECK(to_canonical_json(target) == expected);
}
