#pragma once

#include <filesystem>

#include "report/model.hpp"

namespace conform::report {

// A saved JSON report (version 1 or 2) back as a RunReport. Throws conform::Error (input) that
// names the file and the field when it is not a conform report.
RunReport read_json_report(const std::filesystem::path& path);

// Several reports as one: the shards of one run (same connector and test config) become the
// report of the whole run, in suite order. Throws conform::Error (input) naming the files when
// they are not the shards of one run: different connectors, a shard missing or given twice.
RunReport merge_reports(const std::vector<RunReport>& reports,
                        const std::vector<std::string>& names);

}  // namespace conform::report
