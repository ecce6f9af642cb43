#include "estuary/range.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <string_view>

#include "json/write.hpp"
#include "util/ascii.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::estuary {
namespace {

constexpr std::size_t k_hex_digits = 8;

std::uint32_t parse_bound(const rapidjson::Value& range, const char* name) {
    auto member = range.FindMember(name);
    if (member == range.MemberEnd()) {
        throw_input_error(fmt::format("key range: \"{}\" is missing", name));
    }
    if (!member->value.IsString()) {
        throw_input_error(fmt::format("key range: \"{}\" must be a string of 8 hex digits, not {}",
                                      name, json::to_json(member->value)));
    }
    std::string_view text(member->value.GetString(), member->value.GetStringLength());
    if (text.size() != k_hex_digits) {
        throw_input_error(
            fmt::format("key range: \"{}\" must be exactly 8 hex digits, \"{}\" has {} characters",
                        name, text, text.size()));
    }
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        int digit = hex_value(text[i]);
        if (digit < 0) {
            throw_input_error(fmt::format(
                "key range: \"{}\" must be exactly 8 hex digits, \"{}\" has '{}' at position {}",
                name, text, text[i], i + 1));
        }
        value = (value << 4) | static_cast<std::uint32_t>(digit);
    }
    return value;
}

void reject_unknown_members(const rapidjson::Value& range) {
    for (const auto& member : range.GetObject()) {
        std::string name(member.name.GetString(), member.name.GetStringLength());
        if (name != "begin" && name != "end") {
            std::string suggestion = nearest_name(name, {"begin", "end"});
            throw_input_error(fmt::format(
                "key range: unknown member \"{}\"{}", name,
                suggestion.empty() ? std::string()
                                   : fmt::format(" (did you mean \"{}\"?)", suggestion)));
        }
    }
}

KeyRange span(std::uint64_t begin, std::uint64_t end) {
    return KeyRange{static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end)};
}

}  // namespace

std::string KeyRange::to_string() const {
    return fmt::format("{:08x}-{:08x}", begin, end);
}

std::string KeyRange::to_json() const {
    return fmt::format(R"({{"begin":"{:08x}","end":"{:08x}"}})", begin, end);
}

std::pair<KeyRange, KeyRange> KeyRange::split_halves() const {
    if (begin == end) {
        throw_input_error(
            fmt::format("key range {} holds a single key and cannot be split", to_string()));
    }
    std::uint64_t pivot = (std::uint64_t{begin} + end + 1) / 2;
    return {span(begin, pivot - 1), span(pivot, end)};
}

std::vector<KeyRange> KeyRange::split_equal(std::uint32_t parts) const {
    if (parts == 0 || parts > key_count()) {
        throw_input_error(fmt::format("key range {} ({} keys) cannot be split into {} parts",
                                      to_string(), key_count(), parts));
    }
    std::vector<KeyRange> result;
    result.reserve(parts);
    for (std::uint64_t p = 0; p < parts; ++p) {
        std::uint64_t part_begin = begin + key_count() * p / parts;
        std::uint64_t part_end = begin + key_count() * (p + 1) / parts - 1;
        result.push_back(span(part_begin, part_end));
    }
    return result;
}

std::vector<KeyRange> KeyRange::split_at(const std::vector<std::uint32_t>& cut_points) const {
    std::vector<KeyRange> result;
    std::uint64_t part_begin = begin;
    for (std::uint32_t cut : cut_points) {
        if (cut <= part_begin || cut > end) {
            throw_input_error(fmt::format(
                "cut point {:08x} for key range {} must be above {:08x} and at most {:08x} "
                "(cut points increase strictly and a part starts at each)",
                cut, to_string(), static_cast<std::uint32_t>(part_begin), end));
        }
        result.push_back(span(part_begin, cut - 1));
        part_begin = cut;
    }
    result.push_back(span(part_begin, end));
    return result;
}

KeyRange parse_key_range(const rapidjson::Value& json) {
    if (!json.IsObject()) {
        throw_input_error(fmt::format(
            "key range must be an object {{\"begin\":\"%08x\",\"end\":\"%08x\"}}, not {}",
            json::to_json(json)));
    }
    reject_unknown_members(json);
    KeyRange range{parse_bound(json, "begin"), parse_bound(json, "end")};
    if (range.begin > range.end) {
        throw_input_error(fmt::format("key range: begin {:08x} is greater than end {:08x}",
                                      range.begin, range.end));
    }
    return range;
}

}  // namespace conform::estuary
