#include "suite/coverage.hpp"

#include <rapidjson/document.h>

#include <algorithm>

#include "json/parse.hpp"
#include "util/error.hpp"

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
    streams.push_back({name, false, false, {}, {}});
    return streams.back();
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
    }
    for (const auto& [name, modes] : m_read) {
        auto& entry = entry_for(coverage.streams, name);
        for (const auto& [mode, count] : modes) {
            entry.modes.push_back(count);
        }
    }
    return coverage;
}

}  // namespace conform::suite
