#include "suite/coverage.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "json/parse.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::suite {

namespace {

std::string display_name(const rapidjson::Value& stream) {
    std::string name = stream.HasMember("name") && stream["name"].IsString()
                           ? stream["name"].GetString()
                           : std::string{};
    if (stream.HasMember("namespace") && stream["namespace"].IsString()) {
        return std::string(stream["namespace"].GetString()) + "." + name;
    }
    return name;
}

report::StreamCoverage& entry_for(std::vector<report::StreamCoverage>& streams,
                                  const std::string& name) {
    auto found = std::find_if(streams.begin(), streams.end(),
                              [&name](const auto& stream) { return stream.stream == name; });
    if (found != streams.end()) {
        return *found;
    }
    streams.push_back({name, false, false, {}, {}, {}});
    return streams.back();
}

// A JSON array of strings as a field path; empty when it is anything else.
protocol::FieldPath field_path(const rapidjson::Value& value) {
    protocol::FieldPath path;
    if (!value.IsArray()) {
        return {};
    }
    for (const auto& part : value.GetArray()) {
        if (!part.IsString()) {
            return {};
        }
        path.emplace_back(part.GetString(), part.GetStringLength());
    }
    return path;
}

std::vector<protocol::FieldPath> key_paths(const rapidjson::Value& stream) {
    std::vector<protocol::FieldPath> paths;
    auto key = stream.FindMember("source_defined_primary_key");
    if (key == stream.MemberEnd() || !key->value.IsArray()) {
        return paths;
    }
    for (const auto& path : key->value.GetArray()) {
        if (auto parsed = field_path(path); !parsed.empty()) {
            paths.push_back(std::move(parsed));
        }
    }
    return paths;
}

protocol::FieldPath source_cursor(const rapidjson::Value& stream) {
    auto defined = stream.FindMember("source_defined_cursor");
    auto cursor = stream.FindMember("default_cursor_field");
    if (defined == stream.MemberEnd() || !defined->value.IsBool() || !defined->value.GetBool() ||
        cursor == stream.MemberEnd()) {
        return {};
    }
    return field_path(cursor->value);
}

// The paths as JSON pointers, cut: a connector's catalog can hold anything.
std::string pointers(const std::vector<protocol::FieldPath>& paths) {
    constexpr std::size_t k_shown_bytes = 200;
    std::vector<std::string> shown;
    for (const auto& path : paths) {
        shown.push_back(protocol::to_pointer(path));
    }
    return excerpt(fmt::format("{}", fmt::join(shown, ", ")), k_shown_bytes);
}

}  // namespace

void StreamTally::add_discovered(const protocol::Observation& discover) {
    const auto* found = discover.first_kept("CATALOG");
    if (found == nullptr) {
        return;
    }
    try {
        auto message = json::parse_json_text(found->json, "CATALOG message");
        const auto& catalog = message["catalog"];
        if (!catalog.IsObject() || !catalog.HasMember("streams") || !catalog["streams"].IsArray()) {
            return;
        }
        m_discovered = true;
        for (const auto& stream : catalog["streams"].GetArray()) {
            if (!stream.IsObject()) {
                continue;
            }
            auto name = display_name(stream);
            if (std::find(m_available.begin(), m_available.end(), name) == m_available.end()) {
                m_available.push_back(name);
            }
            m_declared[name] = Discovered{key_paths(stream), source_cursor(stream)};
        }
    } catch (const Error&) {
        // A CATALOG that is not JSON lists nothing: the discover checks report it.
    }
}

void StreamTally::add_read(const protocol::Catalog& catalog, const protocol::Observation& read) {
    auto held = read.records.per_stream();
    for (std::size_t i = 0; i < catalog.streams.size(); ++i) {
        const auto& stream = catalog.streams[i];
        auto& count = m_read[stream.display_name()][stream.sync_mode];
        count.mode = stream.sync_mode;
        ++count.runs;
        count.records += i < held.size() ? held[i].records : 0;
    }
}

report::StreamsCoverage StreamTally::coverage(const protocol::Catalog& configured) const {
    report::StreamsCoverage coverage;
    coverage.available_known = m_discovered;
    if (!m_discovered) {
        coverage.note = "no discover ran, so the streams the connector offers are not known";
    }
    for (const auto& name : m_available) {
        entry_for(coverage.streams, name).available = true;
    }
    for (const auto& stream : configured.streams) {
        auto& entry = entry_for(coverage.streams, stream.display_name());
        entry.configured = true;
        entry.configured_modes = {stream.sync_mode};
        entry.catalog_differences = differences(stream);
    }
    for (const auto& [name, modes] : m_read) {
        auto& entry = entry_for(coverage.streams, name);
        for (const auto& [mode, count] : modes) {
            entry.modes.push_back(count);
        }
    }
    return coverage;
}

std::vector<std::string> StreamTally::differences(const protocol::CatalogStream& configured) const {
    std::vector<std::string> found;
    auto declared = m_declared.find(configured.display_name());
    if (declared == m_declared.end()) {
        return found;
    }
    const auto& [key, cursor] = declared->second;
    if (!key.empty() && configured.primary_key != key) {
        found.push_back(
            configured.primary_key.empty()
                ? fmt::format("the configured catalog names no primary key; discover declares {}",
                              pointers(key))
                : fmt::format("the configured primary key is {}; discover declares {}",
                              pointers(configured.primary_key), pointers(key)));
    }
    if (configured.incremental() && !cursor.empty() && configured.cursor_field != cursor) {
        found.push_back(
            fmt::format("the configured cursor is {}; discover says the source's own cursor is {}",
                        configured.cursor_field.empty() ? std::string("none")
                                                        : pointers({configured.cursor_field}),
                        pointers({cursor})));
    }
    return found;
}

}  // namespace conform::suite
