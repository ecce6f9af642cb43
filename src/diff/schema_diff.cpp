#include "diff/schema_diff.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "json/pointer.hpp"
#include "json/write.hpp"

namespace conform::diff {

namespace {

using Value = rapidjson::Value;

const Value* member(const Value& object, const char* name) {
    if (!object.IsObject()) {
        return nullptr;
    }
    auto found = object.FindMember(name);
    return found == object.MemberEnd() ? nullptr : &found->value;
}

std::string text_of(const Value* value) {
    return value == nullptr ? "absent" : json::to_canonical_json(*value);
}

// The JSON types a schema allows; empty when it does not say (any type).
std::set<std::string> types_of(const Value& schema) {
    std::set<std::string> types;
    const Value* type = member(schema, "type");
    if (type != nullptr && type->IsString()) {
        types.insert(type->GetString());
    } else if (type != nullptr && type->IsArray()) {
        for (const auto& item : type->GetArray()) {
            if (item.IsString()) {
                types.insert(item.GetString());
            }
        }
    }
    return types;
}

bool allows(const std::set<std::string>& types, const std::string& type) {
    return types.empty() || types.count(type) > 0 || (type == "integer" && types.count("number"));
}

bool allows_all(const std::set<std::string>& wider, const std::set<std::string>& narrower) {
    if (wider.empty()) {
        return true;
    }
    if (narrower.empty()) {
        return false;
    }
    return std::all_of(narrower.begin(), narrower.end(),
                       [&](const std::string& type) { return allows(wider, type); });
}

std::string describe_types(const std::set<std::string>& types) {
    return types.empty() ? "any type" : fmt::format("{}", fmt::join(types, "|"));
}

std::set<std::string> canonical_items(const Value& array) {
    std::set<std::string> items;
    for (const auto& item : array.GetArray()) {
        items.insert(json::to_canonical_json(item));
    }
    return items;
}

std::set<std::string> difference(const std::set<std::string>& left,
                                 const std::set<std::string>& right) {
    std::set<std::string> result;
    std::set_difference(left.begin(), left.end(), right.begin(), right.end(),
                        std::inserter(result, result.end()));
    return result;
}

bool is_true(const Value* value) {
    return value != nullptr && value->IsBool() && value->GetBool();
}

// Walks two versions of one schema side by side and records what changed where.
class SchemaWalk {
public:
    SchemaWalk(std::string prefix, std::string stream, std::vector<Change>& out)
        : m_prefix(std::move(prefix)), m_stream(std::move(stream)), m_out(out) {}

    void compare(const Value& control, const Value& target, const std::string& path) {
        if (!control.IsObject() || !target.IsObject()) {
            return;
        }
        compare_types(control, target, path);
        compare_enums(control, target, path);
        compare_formats(control, target, path);
        if (is_spec()) {
            compare_secret(control, target, path);
            compare_required(control, target, path);
            compare_variants(control, target, path);
        }
        compare_properties(control, target, path);
        const Value* control_items = member(control, "items");
        const Value* target_items = member(target, "items");
        if (control_items != nullptr && target_items != nullptr) {
            compare(*control_items, *target_items, path + "/*");
        }
    }

private:
    bool is_spec() const { return m_prefix == "spec"; }

    void add(const std::string& rule, const std::string& path, std::string detail, bool breaking) {
        std::string place = path.empty() ? "/" : path;
        m_out.push_back({m_prefix + "." + rule,
                         m_stream.empty() ? place : m_stream + ":" + place,
                         std::move(detail),
                         breaking,
                         {}});
    }

    void compare_types(const Value& control, const Value& target, const std::string& path) {
        auto before = types_of(control);
        auto after = types_of(target);
        if (before == after) {
            return;
        }
        auto detail = fmt::format("{} -> {}", describe_types(before), describe_types(after));
        if (allows_all(after, before)) {
            add("type_widened", path, detail, false);
        } else if (allows_all(before, after)) {
            add("type_narrowed", path, detail, true);
        } else {
            add("type_changed", path, detail, true);
        }
    }

    void compare_enums(const Value& control, const Value& target, const std::string& path) {
        const Value* before = member(control, "enum");
        const Value* after = member(target, "enum");
        bool had = before != nullptr && before->IsArray();
        bool has = after != nullptr && after->IsArray();
        if (!had && has) {
            add("enum_introduced", path,
                fmt::format("now restricted to {}", json::to_canonical_json(*after)), true);
        }
        if (!had || !has) {
            return;
        }
        auto old_values = canonical_items(*before);
        auto new_values = canonical_items(*after);
        if (auto removed = difference(old_values, new_values); !removed.empty()) {
            add("enum_narrowed", path, fmt::format("values removed: {}", fmt::join(removed, ", ")),
                true);
        }
        if (auto added = difference(new_values, old_values); !added.empty()) {
            add("enum_extended", path, fmt::format("values added: {}", fmt::join(added, ", ")),
                false);
        }
    }

    void compare_formats(const Value& control, const Value& target, const std::string& path) {
        for (const char* keyword : {"format", "airbyte_type"}) {
            const Value* before = member(control, keyword);
            const Value* after = member(target, keyword);
            bool changed = text_of(before) != text_of(after);
            // A spec may drop a format (it accepts more); a catalog's consumers typed the column.
            if (changed && (after != nullptr || !is_spec())) {
                add("format_changed", path,
                    fmt::format("{}: {} -> {}", keyword, text_of(before), text_of(after)), true);
            }
        }
    }

    void compare_secret(const Value& control, const Value& target, const std::string& path) {
        if (is_true(member(control, "airbyte_secret")) &&
            !is_true(member(target, "airbyte_secret"))) {
            add("secret_unmarked", path, "airbyte_secret: true -> not set", true);
        }
    }

    void compare_required(const Value& control, const Value& target, const std::string& path) {
        const Value* after = member(target, "required");
        if (after == nullptr || !after->IsArray()) {
            return;
        }
        const Value* before = member(control, "required");
        auto old_names = before != nullptr && before->IsArray() ? canonical_items(*before)
                                                                : std::set<std::string>{};
        for (const auto& name : after->GetArray()) {
            if (name.IsString() && old_names.count(json::to_canonical_json(name)) == 0) {
                add("newly_required", path + "/" + json::escape_pointer_token(name.GetString()),
                    "a config without it was valid before", true);
            }
        }
    }

    void compare_properties(const Value& control, const Value& target, const std::string& path) {
        const Value* before = member(control, "properties");
        const Value* after = member(target, "properties");
        if (before == nullptr || after == nullptr || !before->IsObject() || !after->IsObject()) {
            return;
        }
        const char* noun = is_spec() ? "property" : "field";
        for (const auto& property : before->GetObject()) {
            auto child = path + "/" + json::escape_pointer_token(property.name.GetString());
            auto found = after->FindMember(property.name);
            if (found == after->MemberEnd()) {
                add(fmt::format("{}_removed", noun), child,
                    fmt::format("was {}", describe_types(types_of(property.value))), true);
            } else {
                compare(property.value, found->value, child);
            }
        }
        for (const auto& property : after->GetObject()) {
            if (!before->HasMember(property.name)) {
                add(fmt::format("{}_added", noun),
                    path + "/" + json::escape_pointer_token(property.name.GetString()),
                    describe_types(types_of(property.value)), false);
            }
        }
    }

    // oneOf variants are told apart by one property with a `const` in every variant.
    static std::optional<std::string> discriminator(const Value& variants) {
        if (!variants.IsArray() || variants.Empty()) {
            return std::nullopt;
        }
        const Value* first = member(variants[0], "properties");
        if (first == nullptr || !first->IsObject()) {
            return std::nullopt;
        }
        for (const auto& candidate : first->GetObject()) {
            bool everywhere =
                std::all_of(variants.Begin(), variants.End(), [&](const Value& variant) {
                    const Value* properties = member(variant, "properties");
                    return properties != nullptr && properties->IsObject() &&
                           properties->HasMember(candidate.name) &&
                           member((*properties)[candidate.name], "const") != nullptr;
                });
            if (everywhere) {
                return candidate.name.GetString();
            }
        }
        return std::nullopt;
    }

    static std::map<std::string, const Value*> variants_by_const(const Value& variants,
                                                                 const std::string& name) {
        std::map<std::string, const Value*> result;
        for (const auto& variant : variants.GetArray()) {
            const Value& property = variant["properties"][name.c_str()];
            result[json::to_canonical_json(property["const"])] = &variant;
        }
        return result;
    }

    void compare_variants(const Value& control, const Value& target, const std::string& path) {
        for (const char* keyword : {"oneOf", "anyOf"}) {
            const Value* before = member(control, keyword);
            const Value* after = member(target, keyword);
            if (before == nullptr || after == nullptr || !before->IsArray() || !after->IsArray()) {
                continue;
            }
            auto old_key = discriminator(*before);
            auto new_key = discriminator(*after);
            if (!old_key && !new_key && before->Size() == after->Size()) {
                for (rapidjson::SizeType i = 0; i < before->Size(); ++i) {
                    compare((*before)[i], (*after)[i], fmt::format("{}[{}]", path, i));
                }
            } else if (!old_key || !new_key || *old_key != *new_key) {
                add("discriminator_changed", path,
                    fmt::format("{} variants told apart by {} -> {}", keyword,
                                old_key.value_or("nothing"), new_key.value_or("nothing")),
                    true);
            } else {
                compare_variant_sets(*before, *after, *old_key, path);
            }
        }
    }

    void compare_variant_sets(const Value& before, const Value& after, const std::string& key,
                              const std::string& path) {
        auto old_variants = variants_by_const(before, key);
        auto new_variants = variants_by_const(after, key);
        for (const auto& [value, variant] : old_variants) {
            auto place = fmt::format("{}[{}={}]", path, key, value);
            auto found = new_variants.find(value);
            if (found == new_variants.end()) {
                add("discriminator_changed", place, "variant removed", true);
            } else {
                compare(*variant, *found->second, place);
            }
        }
        for (const auto& [value, variant] : new_variants) {
            if (old_variants.count(value) == 0) {
                add("variant_added", fmt::format("{}[{}={}]", path, key, value), "new variant",
                    false);
            }
        }
    }

    std::string m_prefix;
    std::string m_stream;
    std::vector<Change>& m_out;
};

std::string stream_name(const Value& stream) {
    const Value* name = member(stream, "name");
    const Value* ns = member(stream, "namespace");
    std::string text = name != nullptr && name->IsString() ? name->GetString() : "";
    if (ns != nullptr && ns->IsString()) {
        return std::string(ns->GetString()) + "." + text;
    }
    return text;
}

std::map<std::string, const Value*> streams_by_name(const Value& catalog) {
    std::map<std::string, const Value*> streams;
    const Value* list = member(catalog, "streams");
    if (list != nullptr && list->IsArray()) {
        for (const auto& stream : list->GetArray()) {
            streams.emplace(stream_name(stream), &stream);
        }
    }
    return streams;
}

std::set<std::string> sync_modes(const Value& stream) {
    const Value* modes = member(stream, "supported_sync_modes");
    return modes != nullptr && modes->IsArray() ? canonical_items(*modes) : std::set<std::string>{};
}

void compare_stream(const std::string& name, const Value& control, const Value& target,
                    std::vector<Change>& out) {
    const Value* old_schema = member(control, "json_schema");
    const Value* new_schema = member(target, "json_schema");
    if (old_schema != nullptr && new_schema != nullptr) {
        SchemaWalk("catalog", name, out).compare(*old_schema, *new_schema, "");
    }
    for (const char* keyword : {"default_cursor_field", "source_defined_primary_key"}) {
        const Value* before = member(control, keyword);
        const Value* after = member(target, keyword);
        if (before == nullptr || text_of(before) == text_of(after)) {
            continue;
        }
        bool cursor = std::string_view(keyword) == "default_cursor_field";
        out.push_back({cursor ? "catalog.cursor_changed" : "catalog.primary_key_changed",
                       name,
                       fmt::format("{}: {} -> {}", keyword, text_of(before), text_of(after)),
                       true,
                       {}});
    }
    auto old_modes = sync_modes(control);
    auto new_modes = sync_modes(target);
    for (const auto& mode : difference(old_modes, new_modes)) {
        out.push_back({"catalog.sync_mode_dropped", name, mode, true, {}});
    }
    for (const auto& mode : difference(new_modes, old_modes)) {
        out.push_back({"catalog.sync_mode_added", name, mode, false, {}});
    }
}

}  // namespace

std::vector<Change> diff_spec(const Value& control, const Value& target) {
    std::vector<Change> changes;
    SchemaWalk("spec", "", changes).compare(control, target, "");
    return changes;
}

std::vector<Change> diff_catalog(const Value& control, const Value& target) {
    std::vector<Change> changes;
    auto before = streams_by_name(control);
    auto after = streams_by_name(target);
    for (const auto& [name, stream] : before) {
        auto found = after.find(name);
        if (found == after.end()) {
            changes.push_back({"catalog.stream_removed", name, "no longer discovered", true, {}});
        } else {
            compare_stream(name, *stream, *found->second, changes);
        }
    }
    for (const auto& [name, stream] : after) {
        if (before.count(name) == 0) {
            changes.push_back({"catalog.stream_added", name, "newly discovered", false, {}});
        }
    }
    return changes;
}

}  // namespace conform::diff
