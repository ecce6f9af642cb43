#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "json/copy.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"

using namespace conform::json;

TEST_CASE("copy: deep copy owns every string") {
    rapidjson::MemoryPoolAllocator<> allocator;
    rapidjson::Value target;
    {
        std::string buffer = R"({"k":"v","a":[{"x":"y"},"z",1.5,null,true],"o":{}})";
        rapidjson::Document source;
        source.ParseInsitu(buffer.data());
        REQUIRE(!source.HasParseError());
        target = copy_value(source, allocator);
        buffer.assign(buffer.size(), '#');
    }
    CHECK(to_json(target) == R"({"k":"v","a":[{"x":"y"},"z",1.5,null,true],"o":{}})");
}

TEST_CASE("copy: scalars and deep nesting") {
    rapidjson::Document target;
    CHECK(to_json(copy_value(parse_json_text("\"s\"", "t"), target.GetAllocator())) == "\"s\"");
    CHECK(to_json(copy_value(parse_json_text("-3", "t"), target.GetAllocator())) == "-3");
    constexpr std::size_t k_depth = 200000;
    std::string text;
    for (std::size_t i = 0; i < k_depth; ++i) {
        text += i % 2 == 0 ? "[" : "{\"k\":";
    }
    text += "0";
    for (std::size_t i = k_depth; i > 0; --i) {
        text += (i - 1) % 2 == 0 ? "]" : "}";
    }
    rapidjson::Document source = parse_json_text(text, "deep");
    CHECK(to_json(copy_value(source, target.GetAllocator())) == text);
}
