#include "protocol/line_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "json/packed_name.hpp"

namespace conform::protocol {

namespace {

constexpr std::uint64_t k_high_bits = 0x8080808080808080ULL;

bool is_continuation(unsigned char byte, unsigned char low = 0x80, unsigned char high = 0xBF) {
    return byte >= low && byte <= high;
}

// The length of the well-formed sequence that starts at `at` (a byte >= 0x80), or 0.
std::size_t sequence_length(const unsigned char* at, std::size_t room) {
    unsigned char lead = at[0];
    if (lead >= 0xC2 && lead <= 0xDF) {
        return room >= 2 && is_continuation(at[1]) ? 2 : 0;
    }
    if (lead >= 0xE0 && lead <= 0xEF) {
        unsigned char low = lead == 0xE0 ? 0xA0 : 0x80;   // overlong
        unsigned char high = lead == 0xED ? 0x9F : 0xBF;  // surrogates
        return room >= 3 && is_continuation(at[1], low, high) && is_continuation(at[2]) ? 3 : 0;
    }
    if (lead >= 0xF0 && lead <= 0xF4) {
        unsigned char low = lead == 0xF0 ? 0x90 : 0x80;   // overlong
        unsigned char high = lead == 0xF4 ? 0x8F : 0xBF;  // above U+10FFFF
        return room >= 4 && is_continuation(at[1], low, high) && is_continuation(at[2]) &&
                       is_continuation(at[3])
                   ? 4
                   : 0;
    }
    return 0;
}

}  // namespace

bool is_utf8(std::string_view text) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    std::size_t size = text.size();
    std::size_t at = 0;
    while (at < size) {
        if (size - at >= 4 * sizeof(std::uint64_t)) {
            std::uint64_t words[4];
            std::memcpy(words, bytes + at, sizeof words);
            if (((words[0] | words[1] | words[2] | words[3]) & k_high_bits) == 0) {
                at += sizeof words;
                continue;
            }
        }
        std::uint64_t word = 0;
        if (size - at >= sizeof word) {
            std::memcpy(&word, bytes + at, sizeof word);
            if ((word & k_high_bits) == 0) {
                at += sizeof word;
                continue;
            }
        }
        if (bytes[at] < 0x80) {
            ++at;
            continue;
        }
        std::size_t length = sequence_length(bytes + at, size - at);
        if (length == 0) {
            return false;
        }
        at += length;
    }
    return true;
}

json::BoundedParse parse_untrusted_line(rapidjson::Document& document, std::string_view line,
                                        char* line_in_place) {
    constexpr unsigned k_without_utf8_check =
        k_line_parse_flags & ~static_cast<unsigned>(rapidjson::kParseValidateEncodingFlag);
    constexpr unsigned k_recursive =
        k_without_utf8_check & ~static_cast<unsigned>(rapidjson::kParseIterativeFlag);
    if (!is_utf8(line)) {
        return json::parse_bounded_in_place<k_line_parse_flags>(document, line_in_place,
                                                                line.size());
    }
    json::BoundedParse shallow =
        json::parse_shallow_in_place<k_recursive>(document, line_in_place, line.size());
    if (!shallow.failed()) {
        return shallow;
    }
    // Too deep for the shortcut, or no JSON: the in-place parse overwrote the copy.
    std::memcpy(line_in_place, line.data(), line.size());
    line_in_place[line.size()] = '\0';
    return json::parse_bounded_in_place<k_without_utf8_check>(document, line_in_place, line.size());
}

std::optional<LineProblem> classify_parse_error(const json::BoundedParse& parse) {
    if (parse.too_deep) {
        return LineProblem{true, fmt::format("not parsed: {}", json::reason_of(parse))};
    }
    std::size_t offset = parse.offset;
    switch (parse.code) {
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

constexpr std::size_t k_tiny_object = 4;  // compared pair by pair
constexpr std::size_t k_small_object = 32;

std::string_view name_of(const rapidjson::Value& name) {
    return {name.GetString(), name.GetStringLength()};
}

// Small objects, the common case: names go into a small open-addressing set by a hash of their
// packed words; names are compared byte by byte only where hashes match.
std::optional<std::string> duplicate_in_small(const rapidjson::Value& object) {
    constexpr std::size_t k_slots = 2 * k_small_object;  // at most half full
    std::array<std::uint8_t, k_slots> slots{};           // member index + 1; 0: empty
    std::array<std::uint32_t, k_small_object> hashes{};
    std::size_t count = object.MemberCount();
    auto members = object.MemberBegin();
    for (std::size_t i = 0; i < count; ++i) {
        std::string_view name = name_of(members[i].name);
        std::uint32_t hash = json::PackedName::of(name).hash();
        std::size_t slot = hash & (k_slots - 1);
        for (; slots[slot] != 0; slot = (slot + 1) & (k_slots - 1)) {
            std::size_t other = slots[slot] - 1U;
            if (hashes[other] == hash && name_of(members[other].name) == name) {
                return std::string(name);
            }
        }
        slots[slot] = static_cast<std::uint8_t>(i + 1);
        hashes[i] = hash;
    }
    return std::nullopt;
}

std::optional<std::string> duplicate_in(const rapidjson::Value& object,
                                        std::vector<std::string_view>& names) {
    std::size_t count = object.MemberCount();
    if (count < 2) {
        return std::nullopt;
    }
    if (count <= k_tiny_object) {
        auto members = object.MemberBegin();
        for (std::size_t i = 1; i < count; ++i) {
            for (std::size_t j = 0; j < i; ++j) {
                if (name_of(members[i].name) == name_of(members[j].name)) {
                    return std::string(name_of(members[i].name));
                }
            }
        }
        return std::nullopt;
    }
    if (count <= k_small_object) {
        return duplicate_in_small(object);
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

std::optional<std::string> find_duplicate_key(const rapidjson::Value& root,
                                              const rapidjson::Value* checked) {
    thread_local std::vector<const rapidjson::Value*> pending;
    thread_local std::vector<std::string_view> names;
    pending.assign(1, &root);
    while (!pending.empty()) {
        const rapidjson::Value* value = pending.back();
        pending.pop_back();
        if (value == checked) {
            continue;
        }
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
