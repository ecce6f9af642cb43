#include "protocol/future_cursor.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "util/ascii.hpp"

namespace conform::protocol {

bool looks_like_date(std::string_view text) {
    return text.size() >= 10 && text[4] == '-' &&
           std::all_of(text.begin(), text.begin() + 4,
                       [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
}

namespace {

constexpr EpochUnit k_epoch_units[] = {
    {1e8, 1e10, 253'402'300'799},
    {1e11, 1e13, 253'402'300'799'999},
    {1e14, 1e16, 253'402'300'799'999'999},
};

void set_text(rapidjson::Value& value, const std::string& text,
              rapidjson::Document::AllocatorType& allocator) {
    value.SetString(text.c_str(), static_cast<rapidjson::SizeType>(text.size()), allocator);
}

}  // namespace

const EpochUnit* epoch_unit_of(double number) {
    for (const auto& unit : k_epoch_units) {
        if (number >= unit.from && number < unit.to) {
            return &unit;
        }
    }
    return nullptr;
}

const EpochUnit* epoch_unit_of_text(std::string_view text) {
    constexpr std::size_t k_most_digits = 16;
    if (text.empty() || text.size() > k_most_digits ||
        !std::all_of(text.begin(), text.end(), is_ascii_digit)) {
        return nullptr;
    }
    return epoch_unit_of(std::stod(std::string(text)));
}

bool is_time_text(std::string_view text) {
    return looks_like_date(text) || epoch_unit_of_text(text) != nullptr;
}

bool move_to_future(rapidjson::Value& value, rapidjson::Document::AllocatorType& allocator) {
    if (value.IsString() && looks_like_date(value.GetString())) {
        std::string text = value.GetString();
        text.replace(0, 4, "9999");
        set_text(value, text, allocator);
        return true;
    }
    if (value.IsString()) {
        const auto* unit = epoch_unit_of_text(value.GetString());
        if (unit != nullptr) {
            set_text(value, std::to_string(unit->year_9999_end), allocator);
        }
        return unit != nullptr;
    }
    if (!value.IsNumber()) {
        return false;
    }
    if (const auto* unit = epoch_unit_of(value.GetDouble())) {
        if (value.IsDouble()) {
            value.SetDouble(static_cast<double>(unit->year_9999_end));
        } else {
            value.SetInt64(unit->year_9999_end);
        }
        return true;
    }
    constexpr double k_factor = 1e6;
    constexpr double k_largest_exact = 9e15;
    if (value.IsInt64() || value.IsUint64()) {
        double moved = std::min(std::max(value.GetDouble(), 1.0) * k_factor, k_largest_exact);
        value.SetInt64(static_cast<std::int64_t>(moved));
        return true;
    }
    value.SetDouble(std::max(value.GetDouble(), 1.0) * k_factor);
    return true;
}

std::optional<CursorValue> far_future(const CursorValue& cursor) {
    rapidjson::Document value;
    if (cursor.number) {
        value.SetDouble(*cursor.number);
        if (*cursor.number == static_cast<double>(static_cast<std::int64_t>(*cursor.number))) {
            value.SetInt64(static_cast<std::int64_t>(*cursor.number));
        }
    } else if (cursor.text) {
        value.SetString(cursor.text->c_str(), value.GetAllocator());
    }
    if (!move_to_future(value, value.GetAllocator())) {
        return std::nullopt;
    }
    if (value.IsNumber()) {
        return CursorValue{value.GetDouble(), std::nullopt};
    }
    return CursorValue{std::nullopt, std::string(value.GetString())};
}

}  // namespace conform::protocol
