#include "suite/probes.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <string>

#include "json/member.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "protocol/future_cursor.hpp"
#include "protocol/instant.hpp"
#include "protocol/packed_state.hpp"
#include "util/ascii.hpp"

namespace conform::suite {

namespace {

using protocol::epoch_unit_of;
using protocol::epoch_unit_of_text;
using protocol::is_time_text;
using protocol::move_to_future;

std::vector<std::string> required_names(const rapidjson::Value& spec) {
    std::vector<std::string> names;
    if (!spec.IsObject() || !spec.HasMember("required") || !spec["required"].IsArray()) {
        return names;
    }
    for (const auto& name : spec["required"].GetArray()) {
        if (name.IsString()) {
            names.emplace_back(name.GetString());
        }
    }
    return names;
}

// The configured streams of a catalog document, or null when it lists none.
rapidjson::Value* configured_streams(rapidjson::Document& catalog) {
    if (!catalog.IsObject() || !catalog.HasMember("streams") || !catalog["streams"].IsArray() ||
        catalog["streams"].Empty()) {
        return nullptr;
    }
    return &catalog["streams"];
}

void set_member(rapidjson::Value& object, const char* name, std::string_view text,
                rapidjson::Document::AllocatorType& allocator) {
    rapidjson::Value value(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
    if (object.HasMember(name)) {
        object[name] = value;
    } else {
        object.AddMember(rapidjson::StringRef(name), value, allocator);
    }
}

// What a run's newest cursors and the incremental streams' cursor field names say a cursor is.
struct CursorsOf {
    std::vector<protocol::CursorValue> newest;
    std::set<std::string> field_names;

    bool matches(const rapidjson::Value& value, std::string_view key) const {
        if (!key.empty() && field_names.count(std::string(key)) > 0) {
            return true;
        }
        return std::any_of(newest.begin(), newest.end(), [&value](const auto& cursor) {
            return (value.IsString() && cursor.text == std::string(value.GetString())) ||
                   (value.IsNumber() && cursor.number == value.GetDouble());
        });
    }
};

CursorsOf cursors_of(const protocol::Observation& run, const protocol::Catalog& catalog) {
    CursorsOf cursors;
    for (std::size_t s = 0; s < catalog.streams.size(); ++s) {
        const auto& stream = catalog.streams[s];
        if (!stream.incremental()) {
            continue;
        }
        if (!stream.cursor_field.empty()) {
            cursors.field_names.insert(stream.cursor_field.back());
        }
        if (s < run.max_cursor.size() && run.max_cursor[s]) {
            cursors.newest.push_back(*run.max_cursor[s]);
        }
    }
    return cursors;
}

// Adds to `cursors.field_names` each name under which `value` holds one of the newest cursors, a
// date or a time since the epoch (a small number may equal a cursor by chance): a state kept per
// partition under its own names ({"page": {"lastUpdatedAt": V}}) holds the newest in one partition
// only, and the others' cursors under that same name.
void learn_cursor_names(const rapidjson::Value& value, std::string_view key, CursorsOf& cursors) {
    if (value.IsObject()) {
        for (const auto& member : value.GetObject()) {
            learn_cursor_names(member.value, member.name.GetString(), cursors);
        }
    } else if (value.IsArray()) {
        for (const auto& item : value.GetArray()) {
            learn_cursor_names(item, "", cursors);
        }
    } else if (!key.empty() && cursors.matches(value, key) &&
               ((value.IsString() && is_time_text(value.GetString())) ||
                (value.IsNumber() && epoch_unit_of(value.GetDouble()) != nullptr))) {
        cursors.field_names.insert(std::string(key));
    }
}

std::size_t move_cursors(rapidjson::Value& value, std::string_view key, const CursorsOf& cursors,
                         rapidjson::Document::AllocatorType& allocator) {
    if (value.IsObject()) {
        std::size_t moved = 0;
        for (auto& member : value.GetObject()) {
            moved += move_cursors(member.value, member.name.GetString(), cursors, allocator);
        }
        return moved;
    }
    if (value.IsArray()) {
        std::size_t moved = 0;
        for (auto& item : value.GetArray()) {
            moved += move_cursors(item, "", cursors, allocator);
        }
        return moved;
    }
    return cursors.matches(value, key) && move_to_future(value, allocator) ? 1 : 0;
}

}  // namespace

std::string required_only_config(const rapidjson::Value& spec, const rapidjson::Value& config) {
    rapidjson::Document required(rapidjson::kObjectType);
    auto& allocator = required.GetAllocator();
    for (const auto& name : required_names(spec)) {
        if (config.IsObject() && config.HasMember(name.c_str())) {
            required.AddMember(rapidjson::Value(name.c_str(), allocator),
                               rapidjson::Value(config[name.c_str()], allocator), allocator);
        }
    }
    return json::to_json(required);
}

std::vector<ConfigWithout> configs_without_each_required(const rapidjson::Value& spec,
                                                         const rapidjson::Value& config) {
    std::vector<ConfigWithout> configs;
    for (const auto& name : required_names(spec)) {
        if (!config.IsObject() || !config.HasMember(name.c_str())) {
            continue;
        }
        rapidjson::Document without;
        without.CopyFrom(config, without.GetAllocator());
        without.EraseMember(name.c_str());  // keeps the order of the others
        configs.push_back({name, json::to_json(without)});
    }
    return configs;
}

std::optional<std::string> catalog_with_unknown_stream(std::string_view catalog_json) {
    auto catalog = json::parse_json_text(catalog_json, "configured catalog");
    auto* streams = configured_streams(catalog);
    if (streams == nullptr) {
        return std::nullopt;
    }
    auto& allocator = catalog.GetAllocator();
    rapidjson::Value unknown((*streams)[0], allocator);
    if (unknown.IsObject() && unknown.HasMember("stream") && unknown["stream"].IsObject()) {
        set_member(unknown["stream"], "name", k_unknown_stream, allocator);
    }
    streams->PushBack(unknown, allocator);
    return json::to_json(catalog);
}

std::optional<std::string> catalog_with_invalid_sync_modes(std::string_view catalog_json) {
    auto catalog = json::parse_json_text(catalog_json, "configured catalog");
    auto* streams = configured_streams(catalog);
    if (streams == nullptr) {
        return std::nullopt;
    }
    auto& allocator = catalog.GetAllocator();
    for (auto& stream : streams->GetArray()) {
        if (stream.IsObject()) {
            set_member(stream, "sync_mode", "INVALID", allocator);
            set_member(stream, "destination_sync_mode", "INVALID", allocator);
        }
    }
    return json::to_json(catalog);
}

namespace {

// The catalog index of the stream a STREAM state's descriptor names, if any.
std::optional<std::size_t> stream_index(const rapidjson::Value& descriptor,
                                        const protocol::Catalog& catalog) {
    const auto* name = json::member(descriptor, "name");
    if (name == nullptr || !name->IsString()) {
        return std::nullopt;
    }
    const auto* name_space = json::member(descriptor, "namespace");
    for (std::size_t s = 0; s < catalog.streams.size(); ++s) {
        const auto& stream = catalog.streams[s];
        bool same_space = name_space == nullptr || name_space->IsNull()
                              ? !stream.name_space
                              : name_space->IsString() && stream.name_space &&
                                    *stream.name_space == name_space->GetString();
        if (stream.name == name->GetString() && same_space) {
            return s;
        }
    }
    return std::nullopt;
}

std::optional<protocol::CursorValue> cursor_value(const rapidjson::Value* value) {
    if (value != nullptr && value->IsNumber()) {
        return protocol::CursorValue{value->GetDouble(), std::nullopt};
    }
    if (value != nullptr && value->IsString()) {
        return protocol::CursorValue{std::nullopt, value->GetString()};
    }
    return std::nullopt;
}

// The oldest cursor of a per-partition stream state ({"states": [...]}): nullopt when there is no
// partition, or a partition's cursor cannot be read or compared.
std::optional<protocol::CursorValue> oldest_partition_cursor(
    const rapidjson::Value& states, const protocol::CatalogStream& stream) {
    std::optional<protocol::CursorValue> oldest;
    for (const auto& partition : states.GetArray()) {
        const auto* cursor = json::member(partition, "cursor");
        auto read = cursor_value(cursor != nullptr
                                     ? json::member(*cursor, stream.cursor_field.front().c_str())
                                     : nullptr);
        if (!read || (oldest && !read->compare(*oldest))) {
            return std::nullopt;
        }
        if (!oldest || read->compare(*oldest).value_or(0) < 0) {
            oldest = read;
        }
    }
    return oldest;
}

// A stream state kept per parent under the parent's id, each holding its own cursor under the
// cursor field's name (source-gitlab 3.0.0: {"2001": {"updated_at": ...}, ...}): whether it has
// that shape, and the oldest of those cursors (nullopt when one cannot be read or compared).
struct KeyedPartitions {
    bool shaped = false;
    std::optional<protocol::CursorValue> oldest;
};

KeyedPartitions keyed_partition_cursors(const rapidjson::Value& stream_state,
                                        const protocol::CatalogStream& stream) {
    KeyedPartitions found;
    if (stream_state.ObjectEmpty()) {
        return found;
    }
    for (const auto& member : stream_state.GetObject()) {
        const auto* cursor = member.value.IsObject()
                                 ? json::member(member.value, stream.cursor_field.front().c_str())
                                 : nullptr;
        if (cursor == nullptr) {
            return found;
        }
    }
    found.shaped = true;
    for (const auto& member : stream_state.GetObject()) {
        auto read = cursor_value(json::member(member.value, stream.cursor_field.front().c_str()));
        if (!read || (found.oldest && !read->compare(*found.oldest))) {
            found.oldest.reset();
            return found;
        }
        if (!found.oldest || read->compare(*found.oldest).value_or(0) < 0) {
            found.oldest = read;
        }
    }
    return found;
}

// The one scalar member of `object` that is a time: a date-time (protocol::parse_instant) or a time
// since the epoch in a string of digits (Faros's clickup source: {"lastUpdatedDate":
// "1764646901000"}); null when it holds none or several.
const rapidjson::Value* only_date_time(const rapidjson::Value& object) {
    const rapidjson::Value* found = nullptr;
    for (const auto& member : object.GetObject()) {
        if (member.value.IsString() && (protocol::parse_instant(member.value.GetString()) ||
                                        epoch_unit_of_text(member.value.GetString()) != nullptr)) {
            if (found != nullptr) {
                return nullptr;
            }
            found = &member.value;
        }
    }
    return found;
}

// A stream state's floor guessed from its date-times: its one date-time, or, when every member
// is an object holding one, the oldest of those (per partition); nullopt for another shape.
std::optional<StateFloor> guessed_floor(const rapidjson::Value& stream_state) {
    if (const auto* value = only_date_time(stream_state)) {
        return StateFloor{cursor_value(value), false, true};
    }
    std::optional<protocol::CursorValue> oldest;
    for (const auto& member : stream_state.GetObject()) {
        const auto* value = member.value.IsObject() ? only_date_time(member.value) : nullptr;
        if (value == nullptr) {
            return std::nullopt;
        }
        auto read = cursor_value(value);
        if (!oldest || read->compare(*oldest).value_or(0) < 0) {
            oldest = read;
        }
    }
    return StateFloor{oldest, true, true};
}

// Calls `visit(stream index, stream_state, shared)` for each stream of `catalog` a state names:
// the STREAM messages and a GLOBAL message's stream states of the array form, or the members of
// the legacy object form; `shared` is a GLOBAL message's shared_state (or null). False when the
// state is not JSON of either form.
template <typename Visit>
bool for_each_stream_state(std::string_view state_json, const protocol::Catalog& catalog,
                           Visit visit) {
    rapidjson::Document state;
    state.Parse(state_json.data(), state_json.size());
    if (state.HasParseError() || !(state.IsArray() || state.IsObject())) {
        return false;
    }
    protocol::unpack_states(state, state.GetAllocator());
    if (state.IsObject()) {
        for (const auto& member : state.GetObject()) {
            rapidjson::Value descriptor(rapidjson::kObjectType);
            descriptor.AddMember("name", rapidjson::Value(member.name, state.GetAllocator()),
                                 state.GetAllocator());
            if (auto index = stream_index(descriptor, catalog)) {
                visit(*index, member.value, nullptr);
            }
        }
        return true;
    }
    auto add = [&](const rapidjson::Value& stream_state_message, const rapidjson::Value* shared) {
        const auto* descriptor = json::member(stream_state_message, "stream_descriptor");
        const auto* stream_state = json::member(stream_state_message, "stream_state");
        static const rapidjson::Value k_empty(rapidjson::kObjectType);
        if (descriptor == nullptr) {
            return;
        }
        if (auto index = stream_index(*descriptor, catalog)) {
            visit(*index, stream_state != nullptr ? *stream_state : k_empty, shared);
        }
    };
    for (const auto& message : state.GetArray()) {
        if (const auto* stream = json::member(message, "stream"); stream != nullptr) {
            add(*stream, nullptr);
        }
        const auto* streams = json::find_value(message, "/global/stream_states");
        if (streams != nullptr && streams->IsArray()) {
            const auto* shared = json::find_value(message, "/global/shared_state");
            for (const auto& stream_state : streams->GetArray()) {
                add(stream_state, shared);
            }
        }
    }
    return true;
}

bool holds_a_value(const rapidjson::Value& value) {
    if (value.IsObject()) {
        return std::any_of(value.MemberBegin(), value.MemberEnd(),
                           [](const auto& member) { return holds_a_value(member.value); });
    }
    if (value.IsArray()) {
        return std::any_of(value.Begin(), value.End(),
                           [](const auto& item) { return holds_a_value(item); });
    }
    return value.IsString() || value.IsNumber() || value.IsBool();
}

}  // namespace

std::map<std::size_t, StateFloor> state_cursor_floors(std::string_view state_json,
                                                      const protocol::Catalog& catalog) {
    std::map<std::size_t, StateFloor> floors;
    for_each_stream_state(
        state_json, catalog,
        [&](std::size_t index, const rapidjson::Value& stream_state, const rapidjson::Value*) {
            const auto& stream = catalog.streams[index];
            if (!stream.incremental() || stream.cursor_field.size() != 1 ||
                !stream_state.IsObject()) {
                return;
            }
            const auto* states = json::member(stream_state, "states");
            const auto* own = json::member(stream_state, stream.cursor_field.front().c_str());
            if (states != nullptr && states->IsArray()) {
                floors[index] = {oldest_partition_cursor(*states, stream), true};
            } else if (own != nullptr) {
                floors[index] = {cursor_value(own), false};
            } else if (stream_state.ObjectEmpty()) {
                floors[index] = {std::nullopt, false};
            } else if (auto keyed = keyed_partition_cursors(stream_state, stream); keyed.shaped) {
                floors[index] = {keyed.oldest, true};
            } else if (auto guessed = guessed_floor(stream_state)) {
                floors[index] = *guessed;
            }
        });
    return floors;
}

std::optional<std::set<std::size_t>> streams_with_state_values(std::string_view state_json,
                                                               const protocol::Catalog& catalog) {
    std::set<std::size_t> streams;
    bool read = for_each_stream_state(
        state_json, catalog,
        [&](std::size_t index, const rapidjson::Value& stream_state,
            const rapidjson::Value* shared) {
            if (holds_a_value(stream_state) || (shared != nullptr && holds_a_value(*shared))) {
                streams.insert(index);
            }
        });
    return read ? std::optional(streams) : std::nullopt;
}

std::optional<std::string> state_with_future_cursors(std::string_view state_json,
                                                     const protocol::Observation& run,
                                                     const protocol::Catalog& catalog) {
    auto state = json::parse_json_text(state_json, "state");
    // A packed state is given back unpacked: the CDKs that pack read either (packed_state.hpp).
    protocol::unpack_states(state, state.GetAllocator());
    auto cursors = cursors_of(run, catalog);
    learn_cursor_names(state, "", cursors);
    auto moved = move_cursors(state, "", cursors, state.GetAllocator());
    if (moved == 0) {
        return std::nullopt;
    }
    return json::to_json(state);
}

}  // namespace conform::suite
