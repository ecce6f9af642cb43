#include "suite/field_diff.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "json/pointer.hpp"
#include "json/write.hpp"
#include "util/text.hpp"

namespace conform::suite {

namespace {

constexpr std::size_t k_value_excerpt = 60;

// The `data` of the RECORD on line `line` of the run's transcript.
std::optional<rapidjson::Document> record_data(const RecordRef& record) {
    if (record.run->transcript_path.empty()) {
        return std::nullopt;
    }
    std::ifstream in(record.run->transcript_path);
    std::string text;
    for (std::uint64_t number = 1; number <= record.entry.line; ++number) {
        if (!std::getline(in, text)) {
            return std::nullopt;
        }
    }
    rapidjson::Document message;
    message.Parse<rapidjson::kParseIterativeFlag>(text.c_str());
    if (message.HasParseError() || !message.IsObject() || !message.HasMember("record") ||
        !message["record"].IsObject() || !message["record"].HasMember("data")) {
        return std::nullopt;
    }
    rapidjson::Document data;
    data.CopyFrom(message["record"]["data"], data.GetAllocator());
    return data;
}

std::string shown(const rapidjson::Value* value) {
    return value == nullptr ? "absent" : excerpt(json::to_json(*value), k_value_excerpt);
}

struct Pending {
    std::string pointer;
    const rapidjson::Value* before;
    const rapidjson::Value* after;
};

}  // namespace

std::string describe_changes(const RecordRef& before, const RecordRef& after,
                             const std::vector<std::string>& volatile_pointers, std::size_t limit) {
    auto old_data = record_data(before);
    auto new_data = record_data(after);
    if (!old_data || !new_data) {
        return {};
    }
    std::vector<std::string> changes;
    std::vector<Pending> work{{"", &*old_data, &*new_data}};
    while (!work.empty() && changes.size() < limit) {
        auto [pointer, a, b] = work.back();
        work.pop_back();
        if (std::find(volatile_pointers.begin(), volatile_pointers.end(), pointer) !=
            volatile_pointers.end()) {
            continue;
        }
        if (a != nullptr && b != nullptr && *a == *b) {
            continue;
        }
        if (a != nullptr && b != nullptr && a->IsObject() && b->IsObject()) {
            for (const auto& member : b->GetObject()) {
                auto found = a->FindMember(member.name);
                work.push_back({pointer + "/" + json::escape_pointer_token(member.name.GetString()),
                                found == a->MemberEnd() ? nullptr : &found->value, &member.value});
            }
            for (const auto& member : a->GetObject()) {
                if (!b->HasMember(member.name)) {
                    work.push_back(
                        {pointer + "/" + json::escape_pointer_token(member.name.GetString()),
                         &member.value, nullptr});
                }
            }
            continue;
        }
        if (a != nullptr && b != nullptr && a->IsArray() && b->IsArray() &&
            a->Size() == b->Size()) {
            for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
                work.push_back({fmt::format("{}/{}", pointer, i), &(*a)[i], &(*b)[i]});
            }
            continue;
        }
        changes.push_back(
            fmt::format("{}: {} -> {}", pointer.empty() ? "/" : pointer, shown(a), shown(b)));
    }
    return fmt::format("{}", fmt::join(changes, "; "));
}

}  // namespace conform::suite
