#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/model.hpp"

namespace conform::report {

// One report file format: the flags that name its file and how it is drawn from a run report.
// The command line adds a flag per row; a new format is a new row.
struct Format {
    std::string_view name;         // "json", "junit", "html", "markdown", "badge"
    std::string_view run_flag;     // its flag on `run`, `validate` and `diff`
    std::string_view report_flag;  // its flag on `conform report`
    std::string_view help;
    std::string (*render)(const RunReport&);
    // Drawn from the report model alone: conform diff and run --baseline add their differences
    // to the model, where JSON and JUnit carry them as members of their own.
    bool from_model;
};

const std::vector<Format>& formats();

}  // namespace conform::report
