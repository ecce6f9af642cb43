#include "diff/identity.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "diff/records.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"

namespace conform::diff {

namespace {

using Value = rapidjson::Value;

// Per field, the canonical text of its value in each record; a field missing from a record (or
// null in it, or not a scalar) is not a candidate.
struct FieldValues {
    std::vector<std::string> control;
    std::vector<std::string> target;
    bool scalar = true;
};

bool is_scalar(const Value& value) {
    return value.IsString() || value.IsNumber() || value.IsBool();
}

// The top-level fields of every record of both sides, with their values in order.
std::map<std::string, FieldValues> common_fields(const std::vector<CapturedRecord>& control,
                                                 const std::vector<CapturedRecord>& target) {
    std::map<std::string, FieldValues> fields;
    bool first = true;
    for (bool is_control : {true, false}) {
        for (const auto& record : is_control ? control : target) {
            rapidjson::Document data;
            data.Parse(record.data.c_str(), record.data.size());
            if (!data.IsObject()) {
                return {};
            }
            std::set<std::string> seen;
            for (const auto& member : data.GetObject()) {
                std::string name = member.name.GetString();
                if (first) {
                    fields[name];
                }
                auto found = fields.find(name);
                if (found == fields.end() || member.value.IsNull()) {
                    continue;
                }
                seen.insert(name);
                found->second.scalar = found->second.scalar && is_scalar(member.value);
                auto& values = is_control ? found->second.control : found->second.target;
                values.push_back(json::to_canonical_json(member.value));
            }
            first = false;
            std::erase_if(fields, [&](const auto& entry) { return seen.count(entry.first) == 0; });
        }
    }
    return fields;
}

bool unique(const std::vector<std::string>& values) {
    return std::set<std::string>(values.begin(), values.end()).size() == values.size();
}

// How many values the two sides share, counting repeated values as often as both have them.
std::size_t shared_values(std::vector<std::string> left, std::vector<std::string> right) {
    std::sort(left.begin(), left.end());
    std::sort(right.begin(), right.end());
    std::vector<std::string> both;
    std::set_intersection(left.begin(), left.end(), right.begin(), right.end(),
                          std::back_inserter(both));
    return both.size();
}

// Names a key would have first: "id", then names ending in "id", then the rest by name.
int name_rank(const std::string& name) {
    if (name == "id") {
        return 0;
    }
    bool ends_in_id = name.size() > 2 && (name.ends_with("id") || name.ends_with("Id"));
    return ends_in_id ? 1 : 2;
}

std::string pointer_to(const std::string& name) {
    return "/" + json::escape_pointer_token(name);
}

std::optional<std::string> best_single_field(const std::map<std::string, FieldValues>& fields,
                                             std::size_t smaller) {
    std::optional<std::string> best;
    std::size_t best_shared = 0;
    for (const auto& [name, values] : fields) {
        if (!values.scalar || !unique(values.control) || !unique(values.target)) {
            continue;
        }
        auto shared = shared_values(values.control, values.target);
        if (shared * 2 < smaller || shared == 0) {
            continue;
        }
        if (!best || shared > best_shared ||
            (shared == best_shared && name_rank(name) < name_rank(*best))) {
            best = name;
            best_shared = shared;
        }
    }
    return best;
}

bool unique_together(const std::vector<CapturedRecord>& records,
                     const std::vector<std::string>& pointers) {
    StreamIdentity identity{StreamIdentity::Kind::fields, pointers};
    std::set<std::string> seen;
    for (std::size_t i = 0; i < records.size(); ++i) {
        if (!seen.insert(identity_of(identity, records[i], i)).second) {
            return false;
        }
    }
    return true;
}

}  // namespace

std::string StreamIdentity::describe() const {
    auto fields = fmt::format("{}", fmt::join(pointers, ", "));
    switch (kind) {
        case Kind::configured_key:
            return "the configured primary key " + fields;
        case Kind::source_key:
            return "the source-defined primary key " + fields;
        case Kind::target_key:
            return "the target's source-defined primary key " + fields + " (the control has none)";
        case Kind::fields:
            return fields +
                   " (no primary key: present in every record of both versions, with equal values)";
        case Kind::order:
            break;
    }
    return "the order within the stream (no primary key, and no field identifies a record in "
           "both versions)";
}

StreamIdentity infer_identity(const std::vector<CapturedRecord>& control,
                              const std::vector<CapturedRecord>& target) {
    StreamIdentity identity;
    if (control.empty() || target.empty()) {
        return identity;
    }
    auto fields = common_fields(control, target);
    auto smaller = std::min(control.size(), target.size());
    if (auto single = best_single_field(fields, smaller)) {
        identity.kind = StreamIdentity::Kind::fields;
        identity.pointers = {pointer_to(*single)};
        return identity;
    }
    std::vector<std::string> agreeing;
    for (const auto& [name, values] : fields) {
        if (values.control.size() == control.size() && values.target.size() == target.size() &&
            shared_values(values.control, values.target) == smaller) {
            agreeing.push_back(pointer_to(name));
        }
    }
    if (!agreeing.empty() && unique_together(control, agreeing) &&
        unique_together(target, agreeing)) {
        identity.kind = StreamIdentity::Kind::fields;
        identity.pointers = std::move(agreeing);
    }
    return identity;
}

std::string identity_of(const StreamIdentity& identity, const CapturedRecord& record,
                        std::size_t position) {
    if (identity.kind == StreamIdentity::Kind::order) {
        return fmt::format("#{}", position + 1);
    }
    rapidjson::Document document;
    document.Parse(record.data.c_str(), record.data.size());
    std::string text = "[";
    for (const auto& pointer : identity.pointers) {
        const Value* part =
            document.HasParseError() ? nullptr : json::find_value(document, pointer);
        text += (text.size() > 1 ? "," : "") +
                (part == nullptr ? std::string("null") : json::to_canonical_json(*part));
    }
    return text + "]";
}

RecordGroups group_by_identity(const std::vector<CapturedRecord>& records,
                               const StreamIdentity& identity) {
    RecordGroups groups;
    for (std::size_t i = 0; i < records.size(); ++i) {
        groups[identity_of(identity, records[i], i)].push_back(&records[i]);
    }
    return groups;
}

const StreamIdentity& identity_for(const StreamIdentities& identities, const std::string& stream) {
    static const StreamIdentity order;
    auto found = identities.find(stream);
    return found == identities.end() ? order : found->second;
}

}  // namespace conform::diff
