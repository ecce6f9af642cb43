#include "suite/field_diff.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "json/bounded_parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "protocol/spill.hpp"
#include "util/text.hpp"

namespace conform::suite {

namespace {

constexpr std::size_t k_value_excerpt = 60;

constexpr std::size_t k_max_line_bytes = 16 * 1024 * 1024;

// The `data` of the RECORD on line `line` of the run's transcript, read back through the
// descriptor conform wrote it with (or from the file `conform validate` checked).
std::optional<rapidjson::Document> record_data(const RecordRef& record) {
    std::optional<std::string> text;
    auto visit = [&](std::uint64_t number, std::string_view line) {
        if (number == record.entry.line) {
            text.emplace(line);
            return false;
        }
        return true;
    };
    if (record.run->transcript) {
        record.run->transcript->for_each_line(visit, k_max_line_bytes);
    } else if (!record.run->transcript_path.empty()) {
        protocol::for_each_line_of_file(record.run->transcript_path, visit, k_max_line_bytes);
    }
    if (!text) {
        return std::nullopt;
    }
    rapidjson::Document message;
    auto parse = json::parse_bounded(message, *text);
    if (parse.failed() || !message.IsObject() || !message.HasMember("record") ||
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

std::string changes_between(const rapidjson::Value& old_data, const rapidjson::Value& new_data,
                            const std::vector<std::string>& volatile_pointers, std::size_t limit) {
    std::vector<std::string> changes;
    std::vector<Pending> work{{"", &old_data, &new_data}};
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

}  // namespace

std::string describe_changes(const RecordRef& before, const RecordRef& after,
                             const std::vector<std::string>& volatile_pointers, std::size_t limit) {
    auto old_data = record_data(before);
    auto new_data = record_data(after);
    if (!old_data || !new_data) {
        return {};
    }
    return changes_between(*old_data, *new_data, volatile_pointers, limit);
}

std::string describe_changes(const rapidjson::Value& before, const RecordRef& after,
                             const std::vector<std::string>& volatile_pointers, std::size_t limit) {
    auto new_data = record_data(after);
    return new_data ? changes_between(before, *new_data, volatile_pointers, limit) : "";
}

}  // namespace conform::suite
