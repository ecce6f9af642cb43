#include "protocol/observation.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "protocol/instant.hpp"

namespace conform::protocol {

std::optional<int> CursorValue::compare(const CursorValue& other) const {
    if (number && other.number) {
        return *number < *other.number ? -1 : (*number > *other.number ? 1 : 0);
    }
    if (text && other.text) {
        auto instant = parse_instant(*text);
        auto other_instant = parse_instant(*other.text);
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

}  // namespace conform::protocol
