#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "json/fwd.hpp"
#include "suite/compare.hpp"

namespace conform::suite {

// Which fields of two versions of a record differ, read back from their runs' kept transcripts:
// "/price: 2869 -> 2870; /model: absent -> \"MX-5\"", at most `limit` fields, volatile pointers
// ignored. Empty when a transcript was not kept or the lines cannot be read.
std::string describe_changes(const RecordRef& before, const RecordRef& after,
                             const std::vector<std::string>& volatile_pointers,
                             std::size_t limit = 3);
// The same, from a record's data held in memory (an expected record of the test config) to a
// record read back from its run.
std::string describe_changes(const rapidjson::Value& before, const RecordRef& after,
                             const std::vector<std::string>& volatile_pointers,
                             std::size_t limit = 3);

}  // namespace conform::suite
