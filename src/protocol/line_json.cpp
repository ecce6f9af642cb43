#include "protocol/line_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace conform::protocol {

std::optional<LineProblem> classify_parse_error(const rapidjson::Document& document) {
    std::size_t offset = document.GetErrorOffset();
    switch (document.GetParseError()) {
        case rapidjson::kParseErrorStringInvalidEncoding:
            return LineProblem{
                true, fmt::format("not valid JSON: invalid UTF-8 at byte {}: not an AirbyteMessage",
                                  offset)};
        case rapidjson::kParseErrorNumberTooBig:
            return LineProblem{
                false,
                fmt::format("valid JSON, but the number at byte {} is beyond the range of a 64-bit "
                            "float (about 1.8e308): conform, like most JSON readers, cannot read "
                            "this message",
                            offset)};
        case rapidjson::kParseErrorStringUnicodeSurrogateInvalid:
            return LineProblem{
                false,
                fmt::format("valid JSON syntax, but the \\u escape at byte {} is a lone UTF-16 "
                            "surrogate, which is no Unicode character: conform cannot read this "
                            "message",
                            offset)};
        default:
            return std::nullopt;
    }
}

namespace {

std::string_view name_of(const rapidjson::Value& name) {
    return {name.GetString(), name.GetStringLength()};
}

std::optional<std::string> duplicate_in(const rapidjson::Value& object,
                                        std::vector<std::string_view>& names) {
    std::size_t count = object.MemberCount();
    if (count < 2) {
        return std::nullopt;
    }
    if (count <= 16) {
        for (auto a = object.MemberBegin(); a != object.MemberEnd(); ++a) {
            for (auto b = a + 1; b != object.MemberEnd(); ++b) {
                if (name_of(a->name) == name_of(b->name)) {
                    return std::string(name_of(a->name));
                }
            }
        }
        return std::nullopt;
    }
    names.clear();
    for (const auto& member : object.GetObject()) {
        names.push_back(name_of(member.name));
    }
    std::sort(names.begin(), names.end());
    auto found = std::adjacent_find(names.begin(), names.end());
    if (found != names.end()) {
        return std::string(*found);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> find_duplicate_key(const rapidjson::Value& root) {
    std::vector<const rapidjson::Value*> pending{&root};
    std::vector<std::string_view> names;
    while (!pending.empty()) {
        const rapidjson::Value* value = pending.back();
        pending.pop_back();
        if (value->IsObject()) {
            if (auto duplicate = duplicate_in(*value, names)) {
                return duplicate;
            }
            for (const auto& member : value->GetObject()) {
                if (member.value.IsObject() || member.value.IsArray()) {
                    pending.push_back(&member.value);
                }
            }
        } else if (value->IsArray()) {
            for (const auto& element : value->GetArray()) {
                if (element.IsObject() || element.IsArray()) {
                    pending.push_back(&element);
                }
            }
        }
    }
    return std::nullopt;
}

}  // namespace conform::protocol
