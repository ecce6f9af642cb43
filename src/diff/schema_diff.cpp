#include "diff/schema_diff.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
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
            compare_default(control, target, path);
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

    // A config that leaves the property out gets another value: the UI writes defaults into the
    // configs it saves, so existing connections keep theirs; reported, not breaking.
    void compare_default(const Value& control, const Value& target, const std::string& path) {
        const Value* before = member(control, "default");
        const Value* after = member(target, "default");
        if (text_of(before) != text_of(after)) {
            add("default_changed", path,
                fmt::format("default: {} -> {}", text_of(before), text_of(after)), false);
        }
    }

    static std::set<std::string> required_names(const Value& schema) {
        const Value* names = member(schema, "required");
        return names != nullptr && names->IsArray() ? canonical_items(*names)
                                                    : std::set<std::string>{};
    }

    void compare_required(const Value& control, const Value& target, const std::string& path) {
        auto before = required_names(control);
        auto after = required_names(target);
        auto place = [&](const std::string& name) {
            rapidjson::Document text;
            text.Parse(name.c_str(), name.size());
            return path + "/" + json::escape_pointer_token(text.IsString() ? text.GetString() : "");
        };
        for (const auto& name : difference(after, before)) {
            add("newly_required", place(name), "a config without it was valid before", true);
        }
        for (const auto& name : difference(before, after)) {
            add("no_longer_required", place(name), "every config that had to set it still may",
                false);
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

// A key or cursor field list; absent, null and [] all mean none.
std::optional<std::string> fields_of(const Value& stream, const char* keyword) {
    const Value* fields = member(stream, keyword);
    if (fields == nullptr || !fields->IsArray() || fields->Empty()) {
        return std::nullopt;
    }
    return json::to_canonical_json(*fields);
}

std::string describe_change(const char* keyword, const std::optional<std::string>& before,
                            const std::optional<std::string>& after) {
    auto verb = !before ? "gained" : !after ? "lost" : "changed";
    return fmt::format("{} {}: {} -> {}", verb, keyword, before.value_or("none"),
                       after.value_or("none"));
}

// Destinations that deduplicate key on the primary key: gaining, losing or changing one changes
// how they merge (Airbyte lists a key gained as a breaking change).
void compare_key(const std::string& name, const Value& control, const Value& target,
                 std::vector<Change>& out) {
    auto before = fields_of(control, "source_defined_primary_key");
    auto after = fields_of(target, "source_defined_primary_key");
    if (before != after) {
        out.push_back({"catalog.primary_key_changed",
                       name,
                       describe_change("source_defined_primary_key", before, after),
                       true,
                       {}});
    }
}

// A cursor lost or changed moves incremental syncs; one gained matters only where incremental
// syncs already ran on a cursor the user chose.
void compare_cursor(const std::string& name, const Value& control, const Value& target,
                    std::vector<Change>& out) {
    auto before = fields_of(control, "default_cursor_field");
    auto after = fields_of(target, "default_cursor_field");
    if (before == after) {
        return;
    }
    bool incremental_before = sync_modes(control).count("\"incremental\"") > 0;
    bool breaking = before.has_value() || incremental_before;
    auto detail = describe_change("default_cursor_field", before, after);
    if (!breaking) {
        detail += " (the stream had no incremental sync to move)";
    }
    out.push_back({"catalog.cursor_changed", name, detail, breaking, {}});
}

void compare_stream(const std::string& name, const Value& control, const Value& target,
                    std::vector<Change>& out) {
    const Value* old_schema = member(control, "json_schema");
    const Value* new_schema = member(target, "json_schema");
    if (old_schema != nullptr && new_schema != nullptr) {
        SchemaWalk("catalog", name, out).compare(*old_schema, *new_schema, "");
    }
    compare_key(name, control, target, out);
    compare_cursor(name, control, target, out);
    auto old_modes = sync_modes(control);
    auto new_modes = sync_modes(target);
    for (const auto& mode : difference(old_modes, new_modes)) {
        out.push_back({"catalog.sync_mode_dropped", name, mode, true, {}});
    }
    for (const auto& mode : difference(new_modes, old_modes)) {
        out.push_back({"catalog.sync_mode_added", name, mode, false, {}});
    }
}

// "Users" and "users", "purchase_orders" and "PurchaseOrders" fold to the same name.
std::string folded_name(const std::string& name) {
    std::string folded;
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
            folded += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    return folded;
}

std::set<std::string> field_names(const Value& stream) {
    std::set<std::string> names;
    const Value* schema = member(stream, "json_schema");
    const Value* properties = schema == nullptr ? nullptr : member(*schema, "properties");
    if (properties != nullptr && properties->IsObject()) {
        for (const auto& property : properties->GetObject()) {
            names.insert(property.name.GetString());
        }
    }
    return names;
}

// The share of fields two streams have in common (Jaccard), 0 for streams of fewer than three.
double field_similarity(const Value& left, const Value& right) {
    constexpr std::size_t k_min_fields = 3;
    auto a = field_names(left);
    auto b = field_names(right);
    if (a.size() < k_min_fields || b.size() < k_min_fields) {
        return 0;
    }
    std::set<std::string> both;
    std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::inserter(both, both.end()));
    return static_cast<double>(both.size()) /
           static_cast<double>(a.size() + b.size() - both.size());
}

constexpr double k_rename_similarity = 0.8;

// What else changed between the old and the new stream of a rename, one text.
std::string renamed_stream_changes(const std::string& name, const Value& control,
                                   const Value& target) {
    std::vector<Change> inner;
    compare_stream(name, control, target, inner);
    if (inner.empty()) {
        return "nothing else changed";
    }
    std::vector<std::string> parts;
    for (const auto& change : inner) {
        auto where = change.where.starts_with(name + ":") ? change.where.substr(name.size() + 1)
                                                          : std::string();
        parts.push_back(fmt::format("{} {}{}{}: {}", change.breaking ? "breaking" : "harmless",
                                    change.rule, where.empty() ? "" : " ", where, change.detail));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

}  // namespace

std::vector<Change> diff_spec(const Value& control, const Value& target) {
    std::vector<Change> changes;
    SchemaWalk("spec", "", changes).compare(control, target, "");
    return changes;
}

std::vector<StreamRename> likely_renames(const Value& control, const Value& target) {
    auto before = streams_by_name(control);
    auto after = streams_by_name(target);
    struct Candidate {
        double score;
        std::string from;
        std::string to;
        std::string why;
    };
    std::vector<Candidate> candidates;
    for (const auto& [old_name, old_stream] : before) {
        if (after.count(old_name) != 0) {
            continue;
        }
        for (const auto& [new_name, new_stream] : after) {
            if (before.count(new_name) != 0) {
                continue;
            }
            auto similarity = field_similarity(*old_stream, *new_stream);
            if (folded_name(old_name) == folded_name(new_name)) {
                candidates.push_back({2.0 + similarity, old_name, new_name,
                                      "the names differ only in case or punctuation"});
            } else if (similarity >= k_rename_similarity) {
                candidates.push_back(
                    {similarity, old_name, new_name,
                     fmt::format("{:.0f}% of the fields are the same", similarity * 100)});
            }
        }
    }
    std::stable_sort(
        candidates.begin(), candidates.end(),
        [](const Candidate& left, const Candidate& right) { return left.score > right.score; });
    std::vector<StreamRename> renames;
    std::set<std::string> taken;
    for (const auto& candidate : candidates) {
        if (taken.count(candidate.from) == 0 && taken.count(candidate.to) == 0) {
            taken.insert(candidate.from);
            taken.insert(candidate.to);
            renames.push_back({candidate.from, candidate.to, candidate.why});
        }
    }
    return renames;
}

std::vector<Change> diff_catalog(const Value& control, const Value& target) {
    std::vector<Change> changes;
    auto before = streams_by_name(control);
    auto after = streams_by_name(target);
    std::map<std::string, const StreamRename*> renamed_from;
    std::set<std::string> renamed_to;
    auto renames = likely_renames(control, target);
    for (const auto& rename : renames) {
        renamed_from[rename.from] = &rename;
        renamed_to.insert(rename.to);
    }
    for (const auto& [name, stream] : before) {
        auto found = after.find(name);
        if (auto rename = renamed_from.find(name); rename != renamed_from.end()) {
            const auto& to = rename->second->to;
            changes.push_back({"catalog.stream_renamed",
                               name,
                               fmt::format("now {} ({}): {}", to, rename->second->why,
                                           renamed_stream_changes(name, *stream, *after.at(to))),
                               true,
                               {}});
        } else if (found == after.end()) {
            changes.push_back({"catalog.stream_removed", name, "no longer discovered", true, {}});
        } else {
            compare_stream(name, *stream, *found->second, changes);
        }
    }
    for (const auto& [name, stream] : after) {
        if (before.count(name) == 0 && renamed_to.count(name) == 0) {
            changes.push_back({"catalog.stream_added", name, "newly discovered", false, {}});
        }
    }
    return changes;
}

}  // namespace conform::diff
