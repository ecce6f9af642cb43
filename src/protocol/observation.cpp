#include "protocol/observation.hpp"

#include <rapidjson/document.h>

#include <algorithm>

#include <fmt/format.h>

#include "json/pointer.hpp"
#include "protocol/instant.hpp"
#include "util/ascii.hpp"

namespace conform::protocol {

namespace {

// Two strings of digits (a time since the epoch as a string, ClickUp's "1764646901000") order as
// the numbers they write; nullopt when either is something else.
std::optional<int> digits_order(std::string_view a, std::string_view b) {
    auto digits = [](std::string_view text) {
        return !text.empty() && std::all_of(text.begin(), text.end(), is_ascii_digit);
    };
    if (!digits(a) || !digits(b)) {
        return std::nullopt;
    }
    a.remove_prefix(std::min(a.find_first_not_of('0'), a.size()));
    b.remove_prefix(std::min(b.find_first_not_of('0'), b.size()));
    if (a.size() != b.size()) {
        return a.size() < b.size() ? -1 : 1;
    }
    int order = a.compare(b);
    return order < 0 ? -1 : (order > 0 ? 1 : 0);
}

// Two cursors written alike (digits at the same places, the same other characters) in UTC or
// without an offset order as their text does: the usual case, on every record of a stream, which
// needs no parse.
bool ordered_as_text(std::string_view a, std::string_view b) {
    if (a.size() != b.size() || a.empty()) {
        return false;
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
        bool digit_a = a[i] >= '0' && a[i] <= '9';
        bool digit_b = b[i] >= '0' && b[i] <= '9';
        if (digit_a != digit_b || (!digit_a && a[i] != b[i])) {
            return false;
        }
    }
    constexpr std::size_t k_date_length = 10;  // an offset's sign comes after YYYY-MM-DD
    return a.back() == 'Z' || a.back() == 'z' ||
           a.find_first_of("+-", k_date_length) == std::string_view::npos;
}

}  // namespace

std::optional<int> CursorValue::compare(const CursorValue& other) const {
    if (number && other.number) {
        return *number < *other.number ? -1 : (*number > *other.number ? 1 : 0);
    }
    if (text && other.text) {
        if (auto order = digits_order(*text, *other.text)) {
            return order;
        }
        auto instant = ordered_as_text(*text, *other.text) ? std::nullopt : parse_instant(*text);
        auto other_instant = instant ? parse_instant(*other.text) : std::nullopt;
        if (instant && other_instant) {
            return *instant < *other_instant ? -1 : (*instant > *other_instant ? 1 : 0);
        }
        int order = text->compare(*other.text);
        return order < 0 ? -1 : (order > 0 ? 1 : 0);
    }
    return std::nullopt;
}

std::string CursorValue::describe() const {
    if (number) {
        return fmt::format("{}", *number);
    }
    return text ? fmt::format("\"{}\"", *text) : "?";
}

std::uint64_t Observation::count(const std::string& type) const {
    auto found = type_counts.find(type);
    return found == type_counts.end() ? 0 : found->second;
}

const Observation::Kept* Observation::first_kept(const std::string& type) const {
    auto found = std::find_if(kept.begin(), kept.end(),
                              [&type](const Kept& message) { return message.type == type; });
    return found == kept.end() ? nullptr : &*found;
}

std::string trace_error_message(const Observation& run) {
    for (const auto& kept : run.kept) {
        if (kept.type != "TRACE" || kept.json.find("\"ERROR\"") == std::string::npos) {
            continue;
        }
        rapidjson::Document message;
        message.Parse<rapidjson::kParseIterativeFlag>(kept.json.data(), kept.json.size());
        const auto* error =
            message.HasParseError() ? nullptr : json::find_value(message, "/trace/error");
        const auto* text = error != nullptr ? json::find_value(*error, "/message") : nullptr;
        if (text == nullptr || !text->IsString()) {
            continue;
        }
        std::string said = text->GetString();
        const auto* internal = json::find_value(*error, "/internal_message");
        if (internal != nullptr && internal->IsString() && internal->GetStringLength() > 0 &&
            said != internal->GetString()) {
            said += fmt::format(" (internal_message: {})", internal->GetString());
        }
        return said;
    }
    return {};
}

}  // namespace conform::protocol
