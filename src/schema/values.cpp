#include "schema/values.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "schema/compiled.hpp"
#include "util/text.hpp"

namespace conform::schema {

namespace {

// Below this size a pairwise comparison is cheaper than hashing.
constexpr std::size_t k_pairwise_limit = 16;
constexpr std::size_t k_describe_limit = 60;

bool numbers_equal(const rapidjson::Value& a, const rapidjson::Value& b) {
    if (a.IsDouble() || b.IsDouble()) {
        return a.GetDouble() == b.GetDouble();
    }
    if (a.IsUint64() && b.IsUint64()) {
        return a.GetUint64() == b.GetUint64();
    }
    if (a.IsInt64() && b.IsInt64()) {
        return a.GetInt64() == b.GetInt64();
    }
    return false;
}

bool objects_equal(const rapidjson::Value& a, const rapidjson::Value& b) {
    if (a.MemberCount() != b.MemberCount()) {
        return false;
    }
    for (const auto& member : a.GetObject()) {
        auto other = b.FindMember(member.name);
        if (other == b.MemberEnd() || !json_equal(member.value, other->value)) {
            return false;
        }
    }
    return true;
}

bool arrays_equal(const rapidjson::Value& a, const rapidjson::Value& b) {
    if (a.Size() != b.Size()) {
        return false;
    }
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i) {
        if (!json_equal(a[i], b[i])) {
            return false;
        }
    }
    return true;
}

std::size_t mix(std::size_t seed, std::size_t value) {
    return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

// Consistent with json_equal: equal values hash equally.
std::size_t hash_value(const rapidjson::Value& value) {
    switch (value.GetType()) {
        case rapidjson::kNullType:
            return 1;
        case rapidjson::kFalseType:
            return 2;
        case rapidjson::kTrueType:
            return 3;
        case rapidjson::kNumberType:
            // Every pair json_equal calls equal has the same double value; +0.0 == -0.0.
            return std::hash<double>{}(value.GetDouble() + 0.0);
        case rapidjson::kStringType:
            return std::hash<std::string_view>{}(view_of(value));
        case rapidjson::kArrayType: {
            std::size_t seed = 4;
            for (const auto& element : value.GetArray()) {
                seed = mix(seed, hash_value(element));
            }
            return seed;
        }
        case rapidjson::kObjectType: {
            std::size_t sum = 5;
            for (const auto& member : value.GetObject()) {
                sum += mix(std::hash<std::string_view>{}(view_of(member.name)),
                           hash_value(member.value));
            }
            return sum;
        }
    }
    return 0;
}

bool find_duplicate_pairwise(const rapidjson::Value& array, std::size_t& first,
                             std::size_t& second) {
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
        for (rapidjson::SizeType j = i + 1; j < array.Size(); ++j) {
            if (json_equal(array[i], array[j])) {
                first = i;
                second = j;
                return true;
            }
        }
    }
    return false;
}

}  // namespace

bool is_integer(const rapidjson::Value& value) {
    if (value.IsInt64() || value.IsUint64()) {
        return true;
    }
    if (!value.IsDouble()) {
        return false;
    }
    double number = value.GetDouble();
    return std::isfinite(number) && std::floor(number) == number;
}

std::string_view type_name_of(const rapidjson::Value& value) {
    switch (value.GetType()) {
        case rapidjson::kNullType:
            return "null";
        case rapidjson::kFalseType:
        case rapidjson::kTrueType:
            return "boolean";
        case rapidjson::kObjectType:
            return "object";
        case rapidjson::kArrayType:
            return "array";
        case rapidjson::kStringType:
            return "string";
        case rapidjson::kNumberType:
            return is_integer(value) ? "integer" : "number";
    }
    return "";
}

std::string type_names(std::uint8_t bits) {
    constexpr std::array<std::pair<std::uint8_t, std::string_view>, 7> k_names{{
        {k_type_null, "null"},
        {k_type_boolean, "boolean"},
        {k_type_object, "object"},
        {k_type_array, "array"},
        {k_type_number, "number"},
        {k_type_string, "string"},
        {k_type_integer, "integer"},
    }};
    std::string names;
    for (const auto& [bit, name] : k_names) {
        if (bits & bit) {
            names.append(names.empty() ? "" : " or ").append(name);
        }
    }
    return names;
}

bool json_equal(const rapidjson::Value& a, const rapidjson::Value& b) {
    if (a.GetType() != b.GetType()) {
        return false;
    }
    switch (a.GetType()) {
        case rapidjson::kNumberType:
            return numbers_equal(a, b);
        case rapidjson::kStringType:
            return view_of(a) == view_of(b);
        case rapidjson::kArrayType:
            return arrays_equal(a, b);
        case rapidjson::kObjectType:
            return objects_equal(a, b);
        default:
            return true;
    }
}

bool find_duplicate(const rapidjson::Value& array, std::size_t& first, std::size_t& second) {
    if (array.Size() <= k_pairwise_limit) {
        return find_duplicate_pairwise(array, first, second);
    }
    std::vector<std::pair<std::size_t, rapidjson::SizeType>> hashes;
    hashes.reserve(array.Size());
    for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
        hashes.emplace_back(hash_value(array[i]), i);
    }
    std::sort(hashes.begin(), hashes.end());
    for (std::size_t run = 0; run < hashes.size(); ++run) {
        for (std::size_t other = run + 1;
             other < hashes.size() && hashes[other].first == hashes[run].first; ++other) {
            if (json_equal(array[hashes[run].second], array[hashes[other].second])) {
                first = hashes[run].second;
                second = hashes[other].second;
                return true;
            }
        }
    }
    return false;
}

std::size_t count_code_points(std::string_view text) {
    return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
        return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    }));
}

std::string describe_value(const rapidjson::Value& value) {
    switch (value.GetType()) {
        case rapidjson::kNullType:
            return "null";
        case rapidjson::kFalseType:
            return "false";
        case rapidjson::kTrueType:
            return "true";
        case rapidjson::kNumberType:
            if (value.IsInt64()) {
                return std::to_string(value.GetInt64());
            }
            if (value.IsUint64()) {
                return std::to_string(value.GetUint64());
            }
            return fmt::format("{}", value.GetDouble());
        case rapidjson::kStringType:
            return fmt::format("\"{}\"", excerpt(view_of(value), k_describe_limit));
        case rapidjson::kArrayType:
            return fmt::format("an array of {} items", value.Size());
        case rapidjson::kObjectType:
            return fmt::format("an object with {} properties", value.MemberCount());
    }
    return "";
}

}  // namespace conform::schema
