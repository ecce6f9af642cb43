#include "estuary/state.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "json/copy.hpp"
#include "json/member.hpp"
#include "json/merge_patch.hpp"
#include "json/write.hpp"
#include "util/text.hpp"

namespace conform::estuary {
namespace {

constexpr const char* k_clause_shape = "AP-STATE-1";
constexpr const char* k_clause_merge = "X-MERGE-1";
constexpr const char* k_merge_flags[] = {"merge", "estuary.dev/merge", "patch"};
// The reducer's memory pool never frees; it is rebuilt once it holds this much garbage.
constexpr std::size_t k_min_compaction_bytes = std::size_t{1} << 20;
constexpr std::size_t k_excerpt_bytes = 120;

enum class Shape { none, legacy, streams, global };

std::string_view shape_name(Shape shape) {
    switch (shape) {
        case Shape::legacy:
            return "legacy";
        case Shape::streams:
            return "per-stream";
        case Shape::global:
            return "global";
        case Shape::none:
            break;
    }
    return "none";
}

std::string shown(const rapidjson::Value& value) {
    return excerpt(json::to_json(value), k_excerpt_bytes);
}

using json::member;

rapidjson::Value* member(rapidjson::Value& object, const char* name) {
    return const_cast<rapidjson::Value*>(json::member(std::as_const(object), name));
}

// A stream's identity: namespace (absent and null are the same) and name.
struct StreamKey {
    std::optional<std::string> name_space;
    std::string name;

    auto operator<=>(const StreamKey&) const = default;
};

// The key of a validated AirbyteStreamState object {"stream_descriptor":{...}, ...}.
StreamKey key_of(const rapidjson::Value& stream) {
    const rapidjson::Value& descriptor = *member(stream, "stream_descriptor");
    StreamKey key;
    const rapidjson::Value& name = *member(descriptor, "name");
    key.name.assign(name.GetString(), name.GetStringLength());
    const rapidjson::Value* name_space = member(descriptor, "namespace");
    if (name_space != nullptr && name_space->IsString()) {
        key.name_space.emplace(name_space->GetString(), name_space->GetStringLength());
    }
    return key;
}

// One STATE message, checked before anything is applied.
struct ParsedState {
    Shape shape = Shape::none;
    bool merge = false;
    const rapidjson::Value* data = nullptr;
    const rapidjson::Value* shared_state = nullptr;
    std::vector<const rapidjson::Value*> streams;
    std::vector<StateProblem> problems;
    bool malformed = false;

    void problem(const char* clause, std::string message) {
        problems.push_back(StateProblem{clause, std::move(message), false});
    }
    void advise(const char* clause, std::string message) {
        problems.push_back(StateProblem{clause, std::move(message), true});
    }
    void reject(const char* clause, std::string message) {
        problem(clause, std::move(message));
        malformed = true;
    }
};

void read_merge_flags(const rapidjson::Value& state, ParsedState& parsed) {
    for (const char* flag : k_merge_flags) {
        const rapidjson::Value* value = member(state, flag);
        if (value == nullptr) {
            continue;
        }
        if (value->IsBool()) {
            parsed.merge = parsed.merge || value->GetBool();
        } else {
            parsed.problem(k_clause_merge,
                           fmt::format("merge flag \"{}\" must be a boolean, not {}; treated as "
                                       "false",
                                       flag, shown(*value)));
        }
    }
}

Shape shape_from_type(const rapidjson::Value& state, ParsedState& parsed) {
    const rapidjson::Value* type = member(state, "type");
    if (type == nullptr) {
        if (member(state, "data") != nullptr) {
            return Shape::legacy;
        }
        if (member(state, "stream") != nullptr) {
            return Shape::streams;
        }
        if (member(state, "global") != nullptr) {
            return Shape::global;
        }
        if (parsed.merge) {
            return Shape::legacy;  // a merge patch without "data"
        }
        parsed.reject(k_clause_shape,
                      "STATE has no recognizable shape: expected \"data\" (legacy), \"type\":"
                      "\"STREAM\" with \"stream\", or \"type\":\"GLOBAL\" with \"global\"");
        return Shape::none;
    }
    std::string_view name = type->IsString() ? type->GetString() : "";
    if (name == "LEGACY") {
        return Shape::legacy;
    }
    if (name == "STREAM") {
        return Shape::streams;
    }
    if (name == "GLOBAL") {
        return Shape::global;
    }
    parsed.reject(k_clause_shape, fmt::format("STATE \"type\" must be \"LEGACY\", \"STREAM\" or "
                                              "\"GLOBAL\", not {}",
                                              shown(*type)));
    return Shape::none;
}

void check_legacy(const rapidjson::Value& state, ParsedState& parsed) {
    parsed.data = member(state, "data");
    const char* clause = parsed.merge ? k_clause_merge : k_clause_shape;
    const char* kind = parsed.merge ? "merge" : "legacy";
    if (parsed.merge && parsed.data != nullptr && parsed.data->IsNull()) {
        parsed.advise(k_clause_merge,
                      "merge STATE with \"data\": null resets the whole state "
                      "(RFC 7396); if no change was meant, emit no STATE");
    } else if (parsed.data == nullptr) {
        parsed.reject(clause, fmt::format("{} STATE without \"data\"", kind));
    } else if (!parsed.data->IsObject()) {
        parsed.reject(clause, fmt::format("{} STATE \"data\" must be an object, not {}", kind,
                                          shown(*parsed.data)));
    }
}

// Checks one AirbyteStreamState; `where` names it in messages.
void check_stream(const rapidjson::Value* stream, const std::string& where, ParsedState& parsed) {
    if (stream == nullptr || !stream->IsObject()) {
        parsed.reject(k_clause_shape, fmt::format("{} must be an object with "
                                                  "\"stream_descriptor\"",
                                                  where));
        return;
    }
    const rapidjson::Value* descriptor = member(*stream, "stream_descriptor");
    const rapidjson::Value* name = descriptor ? member(*descriptor, "name") : nullptr;
    if (name == nullptr || !name->IsString()) {
        parsed.reject(k_clause_shape, fmt::format("{} has no string stream_descriptor.name: {}",
                                                  where, shown(*stream)));
        return;
    }
    const rapidjson::Value* name_space = member(*descriptor, "namespace");
    if (name_space != nullptr && !name_space->IsString() && !name_space->IsNull()) {
        parsed.reject(k_clause_shape,
                      fmt::format("{}: stream_descriptor.namespace must be a string, not {}", where,
                                  shown(*name_space)));
        return;
    }
    const rapidjson::Value* stream_state = member(*stream, "stream_state");
    if (stream_state == nullptr && parsed.merge) {
        parsed.reject(k_clause_merge, fmt::format("merge STATE without data: {} has no "
                                                  "\"stream_state\"",
                                                  where));
        return;
    }
    if (stream_state != nullptr && stream_state->IsNull() && parsed.merge) {
        parsed.advise(k_clause_merge,
                      fmt::format("{}: a null stream_state patch resets the stream's state (RFC "
                                  "7396); if no change was meant, emit no STATE",
                                  where));
    } else if (stream_state != nullptr && !stream_state->IsObject()) {
        parsed.reject(
            parsed.merge ? k_clause_merge : k_clause_shape,
            fmt::format("{}: stream_state must be an object, not {}", where, shown(*stream_state)));
        return;
    }
    parsed.streams.push_back(stream);
}

void check_global(const rapidjson::Value& state, ParsedState& parsed) {
    const rapidjson::Value* global = member(state, "global");
    if (global == nullptr || !global->IsObject()) {
        parsed.reject(k_clause_shape, "GLOBAL STATE without a \"global\" object");
        return;
    }
    parsed.shared_state = member(*global, "shared_state");
    if (parsed.shared_state != nullptr && !parsed.shared_state->IsObject()) {
        parsed.reject(parsed.merge ? k_clause_merge : k_clause_shape,
                      fmt::format("GLOBAL shared_state must be an object, not {}",
                                  shown(*parsed.shared_state)));
    }
    const rapidjson::Value* stream_states = member(*global, "stream_states");
    if (stream_states == nullptr) {
        return;
    }
    if (!stream_states->IsArray()) {
        parsed.reject(k_clause_shape, fmt::format("GLOBAL stream_states must be an array, not {}",
                                                  shown(*stream_states)));
        return;
    }
    for (rapidjson::SizeType i = 0; i < stream_states->Size(); ++i) {
        check_stream(&(*stream_states)[i], fmt::format("GLOBAL stream_states[{}]", i), parsed);
    }
}

ParsedState parse_state(const rapidjson::Value& state, bool always_merge) {
    ParsedState parsed;
    parsed.merge = always_merge;
    if (!state.IsObject()) {
        parsed.reject(k_clause_shape,
                      fmt::format("STATE \"state\" must be an object, not {}", shown(state)));
        return parsed;
    }
    read_merge_flags(state, parsed);
    parsed.shape = shape_from_type(state, parsed);
    switch (parsed.shape) {
        case Shape::legacy:
            check_legacy(state, parsed);
            break;
        case Shape::streams:
            check_stream(member(state, "stream"), "STREAM \"stream\"", parsed);
            break;
        case Shape::global:
            check_global(state, parsed);
            break;
        case Shape::none:
            break;
    }
    return parsed;
}

}  // namespace

bool has_merge_flag(const rapidjson::Value& state) {
    return std::any_of(std::begin(k_merge_flags), std::end(k_merge_flags),
                       [&state](const char* flag) {
                           const rapidjson::Value* value = member(state, flag);
                           return value != nullptr && value->IsTrue();
                       });
}

// The reduced state lives in `root`: for legacy shape the data itself; otherwise
// {"shared_state"?: {...}, "streams": [AirbyteStreamState, ...]} in first-seen order.
struct StateReducer::Impl {
    bool always_merge = false;
    json::Allocator allocator;
    rapidjson::Value root;
    Shape shape = Shape::none;
    std::size_t messages = 0;
    std::size_t live_bytes = 0;

    std::unique_ptr<Impl> clone() const {
        auto copy = std::make_unique<Impl>();
        copy->always_merge = always_merge;
        copy->root = json::copy_value(root, copy->allocator);
        copy->shape = shape;
        copy->messages = messages;
        copy->live_bytes = copy->allocator.Size();
        return copy;
    }

    void switch_shape(Shape next, ParsedState& parsed) {
        if (shape != Shape::none && shape != next) {
            parsed.problem(k_clause_shape,
                           fmt::format("STATE shape changes from {} to {}; a connector keeps one "
                                       "shape",
                                       shape_name(shape), shape_name(next)));
        }
        bool was_streams = shape == Shape::streams || shape == Shape::global;
        bool is_streams = next == Shape::streams || next == Shape::global;
        if (is_streams && !was_streams) {
            root.SetObject();
            root.AddMember("streams", rapidjson::Value(rapidjson::kArrayType), allocator);
        } else if (!is_streams && shape != Shape::legacy) {
            root.SetObject();  // a merge patch starts from {}
        }
        if (next == Shape::streams && shape == Shape::global) {
            return;  // a STREAM update inside a global state keeps it global
        }
        shape = next;
    }

    void apply_legacy(const ParsedState& parsed) {
        if (parsed.merge && parsed.data->IsNull()) {
            root.SetObject();
        } else if (parsed.merge) {
            json::apply_merge_patch(root, *parsed.data, allocator);
        } else {
            root = json::copy_value(*parsed.data, allocator);
        }
    }

    // Replaces member `name` of `owner` with `source`, or merges `source` into it (or {}).
    void update_object(rapidjson::Value& owner, const char* name, const rapidjson::Value& source,
                       bool merge) {
        rapidjson::Value* target = member(owner, name);
        if (target == nullptr) {
            owner.AddMember(rapidjson::StringRef(name), rapidjson::Value(rapidjson::kObjectType),
                            allocator);
            target = member(owner, name);
        }
        if (merge) {
            json::apply_merge_patch(*target, source, allocator);
        } else {
            *target = json::copy_value(source, allocator);
        }
    }

    rapidjson::Value& stream_entry(const rapidjson::Value& stream) {
        rapidjson::Value& streams = *member(root, "streams");
        StreamKey key = key_of(stream);
        for (auto& entry : streams.GetArray()) {
            if (key_of(entry) == key) {
                return entry;
            }
        }
        rapidjson::Value entry(rapidjson::kObjectType);
        entry.AddMember("stream_descriptor",
                        json::copy_value(*member(stream, "stream_descriptor"), allocator),
                        allocator);
        streams.PushBack(entry, allocator);
        return streams[streams.Size() - 1];
    }

    void apply_stream(const rapidjson::Value& stream, bool merge) {
        rapidjson::Value& entry = stream_entry(stream);
        const rapidjson::Value* stream_state = member(stream, "stream_state");
        if (merge && stream_state->IsNull()) {
            update_object(entry, "stream_state", rapidjson::Value(rapidjson::kObjectType), false);
        } else if (merge) {
            update_object(entry, "stream_state", *stream_state, true);
        } else {
            entry = json::copy_value(stream, allocator);
        }
    }

    void apply_global(const ParsedState& parsed) {
        if (parsed.shared_state != nullptr) {
            update_object(root, "shared_state", *parsed.shared_state, parsed.merge);
        } else if (!parsed.merge) {
            root.RemoveMember("shared_state");
        }
    }

    bool holds_much_garbage() const {
        return allocator.Size() > std::max(k_min_compaction_bytes, 4 * live_bytes);
    }
};

StateReducer::StateReducer(bool always_merge) : m_impl(std::make_unique<Impl>()) {
    m_impl->always_merge = always_merge;
}
StateReducer::~StateReducer() = default;
StateReducer::StateReducer(const StateReducer& other) : m_impl(other.m_impl->clone()) {}
StateReducer& StateReducer::operator=(const StateReducer& other) {
    if (this != &other) {
        m_impl = other.m_impl->clone();
    }
    return *this;
}
StateReducer::StateReducer(StateReducer&&) noexcept = default;
StateReducer& StateReducer::operator=(StateReducer&&) noexcept = default;

std::vector<StateProblem> StateReducer::apply(const rapidjson::Value& state) {
    Impl& impl = *m_impl;
    ++impl.messages;
    ParsedState parsed = parse_state(state, impl.always_merge);
    if (parsed.malformed) {
        return std::move(parsed.problems);
    }
    impl.switch_shape(parsed.shape, parsed);
    if (parsed.shape == Shape::legacy) {
        impl.apply_legacy(parsed);
    } else {
        if (parsed.shape == Shape::global) {
            impl.apply_global(parsed);
        }
        for (const rapidjson::Value* stream : parsed.streams) {
            impl.apply_stream(*stream, parsed.merge);
        }
    }
    if (impl.holds_much_garbage()) {
        m_impl = impl.clone();
    }
    return std::move(parsed.problems);
}

std::size_t StateReducer::count() const {
    return m_impl->messages;
}

std::string StateReducer::state_file_json() const {
    const Impl& impl = *m_impl;
    switch (impl.shape) {
        case Shape::none:
            return {};
        case Shape::legacy:
            return json::to_json(impl.root);
        case Shape::streams:
        case Shape::global:
            break;
    }
    std::string entries;
    for (const auto& entry : member(impl.root, "streams")->GetArray()) {
        if (impl.shape == Shape::streams) {
            entries += entries.empty() ? "" : ",";
            entries += R"({"type":"STREAM","stream":)" + json::to_json(entry) + "}";
        } else {
            entries += (entries.empty() ? "" : ",") + json::to_json(entry);
        }
    }
    if (impl.shape == Shape::streams) {
        return "[" + entries + "]";
    }
    const rapidjson::Value* shared_state = member(impl.root, "shared_state");
    std::string shared =
        shared_state == nullptr ? "" : R"("shared_state":)" + json::to_json(*shared_state) + ",";
    return R"([{"type":"GLOBAL","global":{)" + shared + R"("stream_states":[)" + entries + "]}}]";
}

std::string StateReducer::materialized_json() const {
    const Impl& impl = *m_impl;
    switch (impl.shape) {
        case Shape::none:
            return {};
        case Shape::legacy:
            return json::to_canonical_json(impl.root);
        case Shape::streams:
        case Shape::global:
            break;
    }
    std::vector<std::pair<StreamKey, std::string>> sorted;
    for (const auto& entry : member(impl.root, "streams")->GetArray()) {
        sorted.emplace_back(key_of(entry), json::to_canonical_json(entry));
    }
    std::sort(sorted.begin(), sorted.end());
    std::string entries;
    for (const auto& [key, text] : sorted) {
        entries += entries.empty() ? "" : ",";
        entries +=
            impl.shape == Shape::streams ? R"({"stream":)" + text + R"(,"type":"STREAM"})" : text;
    }
    if (impl.shape == Shape::streams) {
        return "[" + entries + "]";
    }
    const rapidjson::Value* shared_state = member(impl.root, "shared_state");
    std::string shared = shared_state == nullptr
                             ? ""
                             : R"("shared_state":)" + json::to_canonical_json(*shared_state) + ",";
    return R"([{"global":{)" + shared + R"("stream_states":[)" + entries +
           R"(]},"type":"GLOBAL"}])";
}

}  // namespace conform::estuary
