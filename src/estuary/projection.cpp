#include "estuary/projection.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <set>
#include <string_view>

#include "json/pointer.hpp"
#include "json/write.hpp"
#include "util/error.hpp"

namespace conform::estuary {
namespace {

std::string string_of(const rapidjson::Value& value) {
    return {value.GetString(), value.GetStringLength()};
}

bool is_identity(const std::string& field, const std::string& pointer) {
    return pointer == "/" + json::escape_pointer_token(field);
}

rapidjson::Value::MemberIterator find_field(rapidjson::Value& record, const std::string& field) {
    return record.FindMember(rapidjson::Value(rapidjson::StringRef(field.data(), field.size())));
}

struct TakenField {
    const std::string* field;
    const std::string* pointer;
    rapidjson::Value value;
};

}  // namespace

std::vector<std::string> unapplied_projections(const rapidjson::Value& record_data,
                                               const Projections& projections) {
    std::vector<std::string> unapplied;
    if (!record_data.IsObject()) {
        return unapplied;
    }
    for (const auto& [field, pointer] : projections) {
        if (pointer.empty() || is_identity(field, pointer)) {
            continue;
        }
        bool still_flat = record_data.HasMember(
            rapidjson::Value(rapidjson::StringRef(field.data(), field.size())));
        if (still_flat && json::find_value(record_data, pointer) == nullptr) {
            unapplied.push_back(field);
        }
    }
    return unapplied;
}

Projections parse_projections(const rapidjson::Value& json) {
    if (!json.IsObject()) {
        throw_input_error(
            fmt::format("projections must be an object {{\"field\": \"/pointer\"}}, "
                        "not {}",
                        json::to_json(json)));
    }
    Projections projections;
    std::set<std::string> seen;
    for (const auto& member : json.GetObject()) {
        std::string field = string_of(member.name);
        if (!member.value.IsString()) {
            throw_input_error(fmt::format("projection \"{}\" must be a JSON pointer string, not {}",
                                          field, json::to_json(member.value)));
        }
        std::string pointer = string_of(member.value);
        std::string problem = json::pointer_syntax_error(pointer);
        if (pointer.empty()) {
            problem = "the empty pointer is the whole record; a projection points inside it";
        }
        if (!problem.empty()) {
            throw_input_error(fmt::format("projection \"{}\": invalid pointer \"{}\": {}", field,
                                          pointer, problem));
        }
        if (!seen.insert(field).second) {
            throw_input_error(fmt::format("projection \"{}\" is listed twice", field));
        }
        projections.emplace_back(std::move(field), std::move(pointer));
    }
    return projections;
}

std::vector<std::string> apply_projections(rapidjson::Value& record_data,
                                           const Projections& projections,
                                           json::Allocator& allocator) {
    std::vector<std::string> unplaced;
    if (!record_data.IsObject()) {
        return unplaced;
    }
    std::vector<TakenField> taken;
    for (const auto& [field, pointer] : projections) {
        if (pointer.empty() || is_identity(field, pointer)) {
            continue;
        }
        auto member = find_field(record_data, field);
        if (member == record_data.MemberEnd()) {
            continue;
        }
        taken.push_back(TakenField{&field, &pointer, std::move(member->value)});
        record_data.EraseMember(member);
    }
    for (TakenField& item : taken) {
        if (json::set_value(record_data, *item.pointer, item.value, allocator)) {
            continue;
        }
        unplaced.push_back(*item.field);
        record_data.AddMember(
            rapidjson::Value(item.field->data(),
                             static_cast<rapidjson::SizeType>(item.field->size()), allocator),
            item.value, allocator);
    }
    return unplaced;
}

Projections identity_projections(const rapidjson::Value& json_schema) {
    Projections projections;
    if (!json_schema.IsObject()) {
        return projections;
    }
    auto properties = json_schema.FindMember("properties");
    if (properties == json_schema.MemberEnd() || !properties->value.IsObject()) {
        return projections;
    }
    for (const auto& property : properties->value.GetObject()) {
        std::string name = string_of(property.name);
        projections.emplace_back(name, "/" + json::escape_pointer_token(name));
    }
    return projections;
}

}  // namespace conform::estuary
