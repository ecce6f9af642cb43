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
    bool m_discovered = false;
    std::vector<std::string> m_available;
    std::map<std::string, std::map<std::string, report::SyncModeCount>> m_read;
};

}  // namespace conform::suite
