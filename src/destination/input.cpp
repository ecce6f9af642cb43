#include "destination/input.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "json/member.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"

namespace conform::destination {

namespace {

using Allocator = rapidjson::Document::AllocatorType;
using Kind = InputMessage::Kind;

constexpr std::int64_t k_base_epoch_ms = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
constexpr std::size_t k_sync_stride = 100'000;               // ordinals of sync n start at n * this
constexpr int k_max_depth = 6;
constexpr std::size_t k_max_padded = 64 * 1024;  // the longest string minLength pads to
constexpr std::string_view k_unconfigured_stream = "conform_unconfigured_stream";

rapidjson::Value text_value(std::string_view text, Allocator& allocator) {
    return rapidjson::Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
}

// "2026-01-01T00:00:00Z" plus `minutes`.
std::string date_time(std::size_t minutes) {
    auto total = static_cast<std::int64_t>(minutes);
    std::int64_t days = total / (24 * 60);
    std::int64_t minute_of_day = total % (24 * 60);
    // Days after 2026-01-01 as a civil date (Howard Hinnant's algorithm from 1970-01-01).
    std::int64_t z = 20454 + days + 719468;
    std::int64_t era = z / 146097;
    std::int64_t doe = z - era * 146097;
    std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    std::int64_t mp = (5 * doy + 2) / 153;
    std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
    std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
    std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:00Z", year, month, day, minute_of_day / 60,
                       minute_of_day % 60);
}

std::string first_type(const rapidjson::Value& schema) {
    if (!schema.HasMember("type")) {
        return schema.HasMember("properties") ? "object" : "string";
    }
    const auto& type = schema["type"];
    if (type.IsString()) {
        return type.GetString();
    }
    if (type.IsArray()) {
        for (const auto& item : type.GetArray()) {
            if (item.IsString() && std::string_view(item.GetString()) != "null") {
                return item.GetString();
            }
        }
        return "null";
    }
    return "string";
}

double bounded(const rapidjson::Value& schema, double value) {
    if (schema.HasMember("maximum") && schema["maximum"].IsNumber()) {
        double low = schema.HasMember("minimum") && schema["minimum"].IsNumber()
                         ? schema["minimum"].GetDouble()
                         : 0;
        double span = schema["maximum"].GetDouble() - low + 1;
        return span > 0 ? low + std::fmod(value, span) : low;
    }
    if (schema.HasMember("minimum") && schema["minimum"].IsNumber()) {
        return schema["minimum"].GetDouble() + value;
    }
    return value;
}

std::string string_member(const rapidjson::Value& schema, const char* name) {
    return schema.HasMember(name) && schema[name].IsString() ? schema[name].GetString() : "";
}

std::string string_for(const rapidjson::Value& schema, std::string_view name, std::size_t n) {
    std::string format = string_member(schema, "format");
    // Values of a type without time zone carry no offset, as sources send them.
    std::string airbyte_type = string_member(schema, "airbyte_type");
    std::string text;
    if (format == "date-time") {
        text = date_time(n);
        if (airbyte_type == "timestamp_without_timezone") {
            text.pop_back();
        }
    } else if (format == "date") {
        text = date_time(n * 24 * 60).substr(0, 10);
    } else if (format == "time") {
        text = fmt::format("{:02}:{:02}:00{}", (n / 60) % 24, n % 60,
                           airbyte_type == "time_without_timezone" ? "" : "Z");
    } else if (format == "email") {
        text = fmt::format("user{}@example.com", n);
    } else if (format == "uri" || format == "url") {
        text = fmt::format("https://example.com/{}", n);
    } else if (format == "uuid") {
        text = fmt::format("00000000-0000-4000-8000-{:012}", n % 1'000'000'000'000);
    } else {
        text = fmt::format("{}-{}", name.empty() ? "value" : name, n);
    }
    if (schema.HasMember("maxLength") && schema["maxLength"].IsUint() &&
        text.size() > schema["maxLength"].GetUint()) {
        text = text.substr(text.size() - schema["maxLength"].GetUint());
    }
    if (schema.HasMember("minLength") && schema["minLength"].IsUint() &&
        text.size() < schema["minLength"].GetUint()) {
        // Longer minimums are not met: the record check then names the stream and the field.
        std::size_t length = std::min<std::size_t>(schema["minLength"].GetUint(), k_max_padded);
        text.append(length - std::min(length, text.size()), 'x');
    }
    return text;
}

// An integer as JSON holds it: a 64-bit one where it fits, else a double without fraction.
rapidjson::Value integer_value(double value) {
    constexpr double k_int64_end = 9'223'372'036'854'775'808.0;  // 2^63
    if (value >= -k_int64_end && value < k_int64_end) {
        return rapidjson::Value(static_cast<std::int64_t>(value));
    }
    return rapidjson::Value(std::floor(value));
}

// A value `schema` accepts, different for each `n` where the type allows it.
rapidjson::Value value_for(const rapidjson::Value& schema, std::string_view name, std::size_t n,
                           Allocator& allocator, int depth = 0) {
    if (!schema.IsObject() || depth > k_max_depth) {
        return rapidjson::Value(rapidjson::kNullType);
    }
    if (schema.HasMember("const")) {
        return rapidjson::Value(schema["const"], allocator);
    }
    if (schema.HasMember("enum") && schema["enum"].IsArray() && !schema["enum"].Empty()) {
        const auto& options = schema["enum"];
        return rapidjson::Value(options[static_cast<rapidjson::SizeType>(n % options.Size())],
                                allocator);
    }
    for (const char* branches : {"oneOf", "anyOf", "allOf"}) {
        if (schema.HasMember(branches) && schema[branches].IsArray() && !schema[branches].Empty()) {
            for (const auto& branch : schema[branches].GetArray()) {
                if (first_type(branch) != "null") {
                    return value_for(branch, name, n, allocator, depth + 1);
                }
            }
        }
    }
    auto type = first_type(schema);
    if (type == "object") {
        rapidjson::Value object(rapidjson::kObjectType);
        if (schema.HasMember("properties") && schema["properties"].IsObject()) {
            for (const auto& property : schema["properties"].GetObject()) {
                object.AddMember(
                    rapidjson::Value(property.name, allocator),
                    value_for(property.value, property.name.GetString(), n, allocator, depth + 1),
                    allocator);
            }
        }
        return object;
    }
    if (type == "array") {
        rapidjson::Value array(rapidjson::kArrayType);
        const rapidjson::Value* items = schema.HasMember("items") ? &schema["items"] : nullptr;
        if (items != nullptr && items->IsArray()) {
            items = items->Empty() ? nullptr : &(*items)[0];
        }
        if (items != nullptr) {
            for (std::size_t i = 0; i < 2; ++i) {
                array.PushBack(value_for(*items, name, n + i, allocator, depth + 1), allocator);
            }
        }
        return array;
    }
    if (type == "integer") {
        return integer_value(bounded(schema, static_cast<double>(n)));
    }
    if (type == "number") {
        return rapidjson::Value(bounded(schema, static_cast<double>(n) + 0.5));
    }
    if (type == "boolean") {
        return rapidjson::Value(n % 2 == 0);
    }
    if (type == "null") {
        return rapidjson::Value(rapidjson::kNullType);
    }
    return text_value(string_for(schema, name, n), allocator);
}

// The schema of the top-level property `name`; null when the schema does not declare it.
const rapidjson::Value* property_schema(const rapidjson::Value& schema, const std::string& name) {
    if (!schema.HasMember("properties") || !schema["properties"].IsObject() ||
        !schema["properties"].HasMember(name.c_str())) {
        return nullptr;
    }
    return &schema["properties"][name.c_str()];
}

void set_path(rapidjson::Value& data, const protocol::FieldPath& path, rapidjson::Value value,
              Allocator& allocator) {
    rapidjson::Value* current = &data;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
        if (!current->HasMember(path[i].c_str())) {
            current->AddMember(text_value(path[i], allocator),
                               rapidjson::Value(rapidjson::kObjectType), allocator);
        }
        current = &(*current)[path[i].c_str()];
        if (!current->IsObject()) {
            current->SetObject();
        }
    }
    if (current->HasMember(path.back().c_str())) {
        (*current)[path.back().c_str()] = std::move(value);
    } else {
        current->AddMember(text_value(path.back(), allocator), std::move(value), allocator);
    }
}

// A key or cursor field's value for ordinal `n`, generated from the field's own schema.
rapidjson::Value field_value(const rapidjson::Value& schema, const protocol::FieldPath& path,
                             std::size_t n, Allocator& allocator) {
    const rapidjson::Value* field = &schema;
    for (const auto& part : path) {
        field = field != nullptr ? property_schema(*field, part) : nullptr;
    }
    static const rapidjson::Document k_integer = json::parse_json_text(R"({"type":"integer"})", "");
    return value_for(field != nullptr ? *field : k_integer, path.back(), n, allocator);
}

std::string stream_descriptor_json(const protocol::CatalogStream& stream) {
    rapidjson::Document descriptor(rapidjson::kObjectType);
    auto& allocator = descriptor.GetAllocator();
    descriptor.AddMember("name", text_value(stream.name, allocator), allocator);
    if (stream.name_space) {
        descriptor.AddMember("namespace", text_value(*stream.name_space, allocator), allocator);
    }
    return json::to_json(descriptor);
}

std::string record_line(const protocol::CatalogStream& stream, std::string_view stream_name,
                        const rapidjson::Value& data, std::size_t n) {
    rapidjson::Document message(rapidjson::kObjectType);
    auto& allocator = message.GetAllocator();
    rapidjson::Value record(rapidjson::kObjectType);
    record.AddMember("stream", text_value(stream_name, allocator), allocator);
    if (stream.name_space) {
        record.AddMember("namespace", text_value(*stream.name_space, allocator), allocator);
    }
    record.AddMember("data", rapidjson::Value(data, allocator), allocator);
    record.AddMember("emitted_at", rapidjson::Value(k_base_epoch_ms + static_cast<std::int64_t>(n)),
                     allocator);
    message.AddMember("type", "RECORD", allocator);
    message.AddMember("record", record, allocator);
    return json::to_json(message);
}

std::string status_line(const protocol::CatalogStream& stream, std::string_view status) {
    return fmt::format(
        R"({{"type":"TRACE","trace":{{"type":"STREAM_STATUS","emitted_at":{}.0,"stream_status":{{"stream_descriptor":{},"status":"{}"}}}}}})",
        k_base_epoch_ms, stream_descriptor_json(stream), status);
}

// Builds an input message by message, keeping what the checks need of each.
class Builder {
public:
    Builder(const Catalog& catalog, const InputSettings& settings, std::string label)
        : m_catalog(catalog), m_identity(catalog), m_since(catalog.streams().size(), 0) {
        m_input.label = std::move(label);
        m_input.per_stream_states = settings.state_type == "STREAM";
        m_state_type = settings.state_type;
    }

    void record(std::size_t stream, const rapidjson::Value& data, std::string line) {
        InputMessage message;
        message.kind = Kind::record;
        message.stream = stream;
        message.line = std::move(line);
        message.content = m_identity.content(stream, data);
        message.key = m_identity.key(stream, data);
        message.key_text = m_identity.key_text(stream, data);
        message.cursor = m_identity.cursor(stream, data);
        ++m_since[stream];
        ++m_since_all;
        m_input.messages.push_back(std::move(message));
    }

    // A record the catalog does not allow, sent as given.
    void bad_record(std::optional<std::size_t> stream, const rapidjson::Value& data,
                    std::string line, bool unconfigured) {
        InputMessage message;
        message.kind = Kind::record;
        message.line = std::move(line);
        message.unconfigured = unconfigured;
        message.breaks_schema = !unconfigured;
        if (stream) {
            message.stream = stream;
            message.content = m_identity.content(*stream, data);
            message.key = m_identity.key(*stream, data);
            message.key_text = m_identity.key_text(*stream, data);
        }
        m_input.messages.push_back(std::move(message));
    }

    // A STATE conform makes for `stream` (for every stream with GLOBAL or LEGACY states).
    void state(std::size_t stream, int sync, std::size_t position) {
        const auto& streams = m_catalog.streams();
        std::string marker =
            fmt::format(R"({{"conform_sync":{},"conform_position":{}}})", sync, position);
        std::string body;
        if (m_state_type == "STREAM") {
            body = fmt::format(
                R"({{"type":"STREAM","stream":{{"stream_descriptor":{},"stream_state":{}}},"sourceStats":{{"recordCount":{}.0}}}})",
                stream_descriptor_json(streams[stream].airbyte), marker, m_since[stream]);
        } else if (m_state_type == "GLOBAL") {
            std::vector<std::string> parts;
            for (const auto& each : streams) {
                parts.push_back(fmt::format(R"({{"stream_descriptor":{},"stream_state":{}}})",
                                            stream_descriptor_json(each.airbyte), marker));
            }
            body = fmt::format(
                R"({{"type":"GLOBAL","global":{{"shared_state":{},"stream_states":[{}]}},"sourceStats":{{"recordCount":{}.0}}}})",
                marker, fmt::join(parts, ","), m_since_all);
        } else {
            body = fmt::format(R"({{"type":"LEGACY","data":{}}})", marker);
        }
        add_state(fmt::format(R"({{"type":"STATE","state":{}}})", body));
    }

    // A STATE line as recorded.
    void add_state(std::string line) {
        auto document = json::parse_json_text(line, "STATE");
        const auto& state = document["state"];
        InputMessage message;
        message.kind = Kind::state;
        message.state_number = ++m_states;
        message.state_identity = state_identity(state);
        message.stream = stream_of_state(state);
        std::string type = state.HasMember("type") && state["type"].IsString()
                               ? state["type"].GetString()
                               : (state.HasMember("stream") ? "STREAM" : "LEGACY");
        message.all_streams = type != "STREAM";
        if (message.stream) {
            message.records_since = m_since[*message.stream];
            m_since[*message.stream] = 0;
        } else if (message.all_streams) {
            message.records_since = m_since_all;
            m_since_all = 0;
            std::fill(m_since.begin(), m_since.end(), 0);
        }
        message.line = std::move(line);
        m_input.messages.push_back(std::move(message));
    }

    void trace(std::optional<std::size_t> stream, std::string line) {
        InputMessage message;
        message.kind = Kind::trace;
        message.stream = stream;
        message.line = std::move(line);
        m_input.messages.push_back(std::move(message));
    }

    Input take() {
        for (std::size_t i = 0; i < m_input.messages.size(); ++i) {
            m_input.messages[i].number = i + 1;
        }
        return std::move(m_input);
    }

private:
    std::optional<std::size_t> stream_of_state(const rapidjson::Value& state) const {
        if (!state.HasMember("stream") || !state["stream"].IsObject()) {
            return std::nullopt;
        }
        const auto& stream = state["stream"];
        if (!stream.HasMember("stream_descriptor") || !stream["stream_descriptor"].IsObject()) {
            return std::nullopt;
        }
        const auto& descriptor = stream["stream_descriptor"];
        if (!descriptor.HasMember("name") || !descriptor["name"].IsString()) {
            return std::nullopt;
        }
        std::optional<std::string_view> name_space;
        if (descriptor.HasMember("namespace") && descriptor["namespace"].IsString()) {
            name_space = descriptor["namespace"].GetString();
        }
        return m_catalog.find(descriptor["name"].GetString(), name_space);
    }

    const Catalog& m_catalog;
    Identity m_identity;
    Input m_input;
    std::string m_state_type;
    std::vector<std::uint64_t> m_since;
    std::uint64_t m_since_all = 0;
    std::size_t m_states = 0;
};

// The key number of record `i` of sync `sync`: sync 1 has keys 1..R; sync 2 updates the upper
// half of them, adds as many new ones, and every fifth record updates a key of its own sync.
std::size_t key_number(int sync, std::size_t i, std::size_t per_stream) {
    if (sync <= 1) {
        return i + 1;
    }
    if (i % 5 == 4) {
        return key_number(sync, i - 2, per_stream);
    }
    return per_stream / 2 + 1 + i + static_cast<std::size_t>(sync - 2) * per_stream;
}

// One generated record of `stream` for sync `sync`, checked against the stream's schema.
rapidjson::Value generated_record(const Stream& stream, int sync, std::size_t i,
                                  std::size_t per_stream, Allocator& allocator) {
    auto schema = json::parse_json_text(stream.airbyte.json_schema, "json_schema");
    std::size_t ordinal = static_cast<std::size_t>(sync) * k_sync_stride + i;
    auto data = value_for(schema, "", ordinal, allocator);
    if (!data.IsObject()) {
        data.SetObject();
    }
    for (const auto& path : stream.airbyte.primary_key) {
        set_path(data, path, field_value(schema, path, key_number(sync, i, per_stream), allocator),
                 allocator);
    }
    if (!stream.airbyte.cursor_field.empty()) {
        set_path(data, stream.airbyte.cursor_field,
                 field_value(schema, stream.airbyte.cursor_field, ordinal, allocator), allocator);
    }
    std::vector<schema::Violation> violations;
    if (!stream.airbyte.schema->validate(data, &violations, 1)) {
        throw_input_error(fmt::format(
            "cannot generate records for stream '{}': the generated record breaks its schema at "
            "'{}' ({}); name a recorded source read in the test config (input.recorded)",
            stream.airbyte.display_name(), violations.empty() ? "" : violations[0].instance_path,
            violations.empty() ? "" : violations[0].message));
    }
    return data;
}

Input generated_input(const Catalog& catalog, const InputSettings& settings, int sync) {
    const auto& streams = catalog.streams();
    Builder builder(catalog, settings, fmt::format("sync {}", sync));
    rapidjson::Document scratch;
    auto& allocator = scratch.GetAllocator();
    std::size_t per_stream = settings.records_per_stream;
    std::size_t chunk = std::max<std::size_t>(settings.state_every, 1);
    std::size_t position = 0;
    for (std::size_t start = 0; start < per_stream; start += chunk) {
        for (std::size_t s = 0; s < streams.size(); ++s) {
            if (start == 0 && settings.stream_status) {
                builder.trace(s, status_line(streams[s].airbyte, "STARTED"));
            }
            for (std::size_t i = start; i < std::min(per_stream, start + chunk); ++i) {
                auto data = generated_record(streams[s], sync, i, per_stream, allocator);
                builder.record(
                    s, data,
                    record_line(streams[s].airbyte, streams[s].airbyte.name, data, ++position));
            }
            if (settings.state_type == "STREAM") {
                builder.state(s, sync, ++position);
            }
        }
        if (settings.state_type != "STREAM") {
            builder.state(0, sync, ++position);
        }
    }
    if (settings.stream_status) {
        for (std::size_t s = 0; s < streams.size(); ++s) {
            builder.trace(s, status_line(streams[s].airbyte, "COMPLETE"));
        }
    }
    return builder.take();
}

std::optional<std::size_t> trace_stream(const Catalog& catalog, const rapidjson::Value& trace) {
    if (!trace.IsObject() || !trace.HasMember("stream_status") ||
        !trace["stream_status"].IsObject() ||
        !trace["stream_status"].HasMember("stream_descriptor")) {
        return std::nullopt;
    }
    const auto& descriptor = trace["stream_status"]["stream_descriptor"];
    if (!descriptor.IsObject() || !descriptor.HasMember("name") || !descriptor["name"].IsString()) {
        return std::nullopt;
    }
    return catalog.find(descriptor["name"].GetString(), std::nullopt);
}

Input recorded_input(const Catalog& catalog, const InputSettings& settings, const std::string& text,
                     const std::string& origin, int sync) {
    Builder builder(catalog, settings, fmt::format("sync {} (recorded)", sync));
    std::istringstream lines(text);
    std::string line;
    std::size_t number = 0;
    bool per_stream = true;
    while (std::getline(lines, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        auto where = fmt::format("{}:{}", origin, number);
        auto message = json::parse_json_text(line, where);
        if (!message.IsObject() || !message.HasMember("type") || !message["type"].IsString()) {
            throw_input_error(fmt::format("{}: expected an AirbyteMessage", where));
        }
        std::string_view type = message["type"].GetString();
        if (type == "RECORD") {
            const auto* record = json::member(message, "record");
            const auto* stream_name = record != nullptr ? json::member(*record, "stream") : nullptr;
            const auto* data = record != nullptr ? json::member(*record, "data") : nullptr;
            if (stream_name == nullptr || !stream_name->IsString() || data == nullptr ||
                !data->IsObject()) {
                throw_input_error(fmt::format("{}: a RECORD without stream or data", where));
            }
            std::optional<std::string_view> name_space;
            if (const auto* given = json::member(*record, "namespace");
                given != nullptr && given->IsString()) {
                name_space = given->GetString();
            }
            auto stream = catalog.find(stream_name->GetString(), name_space);
            if (!stream) {
                throw_input_error(fmt::format("{}: stream '{}' is not in the catalog {}", where,
                                              stream_name->GetString(), catalog.origin()));
            }
            builder.record(*stream, *data, json::to_json(message));
        } else if (type == "STATE") {
            const auto* state = json::member(message, "state");
            if (state == nullptr || !state->IsObject()) {
                throw_input_error(fmt::format("{}: a STATE without a state object", where));
            }
            per_stream = per_stream && state->HasMember("stream");
            builder.add_state(json::to_json(message));
        } else if (type == "TRACE") {
            const auto* trace = json::member(message, "trace");
            builder.trace(trace != nullptr ? trace_stream(catalog, *trace) : std::nullopt,
                          json::to_json(message));
        }
    }
    auto input = builder.take();
    input.per_stream_states = per_stream;
    return input;
}

// A generated record of the first stream, sent as a record of another stream or broken.
rapidjson::Value base_record(const Catalog& catalog, std::size_t i, Allocator& allocator) {
    return generated_record(catalog.streams().front(), 1, i, 10, allocator);
}

// The short write around one bad record: three good records, a STATE, the bad one, three more
// and a STATE, as a source would send them.
template <typename AddBad>
Input around_bad_record(const Catalog& catalog, const InputSettings& settings, std::string label,
                        AddBad add_bad) {
    InputSettings small = settings;
    small.state_type = "STREAM";
    Builder builder(catalog, small, std::move(label));
    rapidjson::Document scratch;
    auto& allocator = scratch.GetAllocator();
    const auto& stream = catalog.streams().front().airbyte;
    std::size_t position = 0;
    auto good = [&](std::size_t i) {
        auto data = base_record(catalog, i, allocator);
        builder.record(0, data, record_line(stream, stream.name, data, ++position));
    };
    for (std::size_t i = 0; i < 3; ++i) {
        good(i);
    }
    builder.state(0, 1, ++position);
    add_bad(builder, allocator, ++position);
    for (std::size_t i = 4; i < 7; ++i) {
        good(i);
    }
    builder.state(0, 1, ++position);
    return builder.take();
}

// A value of a JSON type `schema` does not allow, when there is one.
std::optional<rapidjson::Value> wrong_value(const rapidjson::Value& schema, Allocator& allocator) {
    if (!schema.IsObject() || !schema.HasMember("type")) {
        return std::nullopt;
    }
    std::string types = json::to_json(schema["type"]);
    if (types.find("\"string\"") == std::string::npos) {
        return text_value("conform: a string where the schema allows none", allocator);
    }
    if (types.find("\"object\"") == std::string::npos) {
        rapidjson::Value object(rapidjson::kObjectType);
        object.AddMember("conform", "an object where the schema allows none", allocator);
        return object;
    }
    return std::nullopt;
}

}  // namespace

std::string state_identity(const rapidjson::Value& state) {
    rapidjson::Document copy;
    copy.CopyFrom(state, copy.GetAllocator());
    if (copy.IsObject()) {
        copy.RemoveMember("sourceStats");
        copy.RemoveMember("destinationStats");
    }
    return json::to_canonical_json(copy);
}

std::string Input::text() const {
    std::string text;
    for (const auto& message : messages) {
        text += message.line;
        text += '\n';
    }
    return text;
}

std::size_t Input::count(InputMessage::Kind kind) const {
    return static_cast<std::size_t>(
        std::count_if(messages.begin(), messages.end(),
                      [kind](const auto& message) { return message.kind == kind; }));
}

std::size_t Input::message_at(std::uint64_t offset) const {
    std::uint64_t end = 0;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        end += messages[i].line.size() + 1;
        if (offset < end) {
            return i;
        }
    }
    return messages.empty() ? 0 : messages.size() - 1;
}

Input sync_input(const Catalog& catalog, const InputSettings& settings, int sync) {
    if (settings.recorded_text) {
        bool second = sync > 1 && settings.recorded_second_text;
        return recorded_input(
            catalog, settings, second ? *settings.recorded_second_text : *settings.recorded_text,
            second ? settings.recorded_second_origin : settings.recorded_origin, sync);
    }
    return generated_input(catalog, settings, sync);
}

Input resumed_input(const Input& killed,
                    const std::vector<std::optional<std::size_t>>& resume_after,
                    std::optional<std::size_t> resume_after_all) {
    Input resumed;
    resumed.label = killed.label + " (resumed)";
    resumed.per_stream_states = killed.per_stream_states;
    for (std::size_t i = 0; i < killed.messages.size(); ++i) {
        const auto& message = killed.messages[i];
        std::optional<std::size_t> after = resume_after_all;
        if (message.stream && *message.stream < resume_after.size()) {
            after = resume_after[*message.stream];
        }
        if (!after || i > *after) {
            resumed.messages.push_back(message);
            resumed.messages.back().number = resumed.messages.size();
        }
    }
    return resumed;
}

std::optional<Input> unknown_stream_input(const Catalog& catalog, const InputSettings& settings) {
    return around_bad_record(
        catalog, settings, "a record of an unconfigured stream",
        [&catalog](Builder& builder, Allocator& allocator, std::size_t position) {
            auto data = base_record(catalog, 3, allocator);
            builder.bad_record(std::nullopt, data,
                               record_line(catalog.streams().front().airbyte, k_unconfigured_stream,
                                           data, position),
                               true);
        });
}

std::optional<Input> schema_violation_input(const Catalog& catalog, const InputSettings& settings) {
    const auto& stream = catalog.streams().front();
    auto schema = json::parse_json_text(stream.airbyte.json_schema, "json_schema");
    rapidjson::Document scratch;
    auto data = base_record(catalog, 3, scratch.GetAllocator());
    bool broken = false;
    for (auto& member : data.GetObject()) {
        std::string name = member.name.GetString();
        bool in_key =
            std::any_of(stream.airbyte.primary_key.begin(), stream.airbyte.primary_key.end(),
                        [&name](const auto& path) { return path.front() == name; });
        const auto* field = property_schema(schema, name);
        bool is_cursor =
            !stream.airbyte.cursor_field.empty() && stream.airbyte.cursor_field.front() == name;
        if (in_key || is_cursor || field == nullptr) {
            continue;
        }
        if (auto wrong = wrong_value(*field, scratch.GetAllocator())) {
            member.value = std::move(*wrong);
            broken = !stream.airbyte.schema->validate(data, nullptr, 1);
            break;
        }
    }
    if (!broken) {
        return std::nullopt;
    }
    std::string line = record_line(stream.airbyte, stream.airbyte.name, data, 4);
    return around_bad_record(catalog, settings, "a record that breaks its stream's schema",
                             [&](Builder& builder, Allocator&, std::size_t) {
                                 builder.bad_record(0, data, line, false);
                             });
}

}  // namespace conform::destination
