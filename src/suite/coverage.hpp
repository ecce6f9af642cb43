#pragma once

#include <map>
#include <string>
#include <vector>

#include "protocol/catalog.hpp"
#include "protocol/observation.hpp"
#include "report/coverage.hpp"

namespace conform::suite {

// What an Airbyte source's runs showed of its streams, for the report's coverage: the streams a
// discover listed, and per stream and sync mode the reads and records.
class StreamTally {
public:
    // A discover run: the streams of its CATALOG are what the connector offers.
    void add_discovered(const protocol::Observation& discover);
    // A read with `catalog`: its records, counted per stream and the mode the catalog gave it.
    void add_read(const protocol::Catalog& catalog, const protocol::Observation& read);
    // The coverage, with `configured` as the catalog conform reads with.
    report::StreamsCoverage coverage(const protocol::Catalog& configured) const;

private:
    // What discover says of a stream that a configured catalog may contradict.
    struct Discovered {
        std::vector<protocol::FieldPath> primary_key;  // source_defined_primary_key
        protocol::FieldPath source_cursor;  // default_cursor_field, when source_defined_cursor
    };
    std::vector<std::string> differences(const protocol::CatalogStream& configured) const;

    bool m_discovered = false;
    std::map<std::string, Discovered> m_declared;
    std::vector<std::string> m_available;
    std::map<std::string, std::map<std::string, report::SyncModeCount>> m_read;
};

}  // namespace conform::suite
