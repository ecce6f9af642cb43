#pragma once

#include <string>
#include <vector>

#include "json/parse.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"

namespace conform::report::testing {

// The violations of a JSON report against schemas/report.schema.json, one per line ("" when valid).
inline std::string report_schema_violations(const std::string& json) {
    static const auto k_schema =
        schema::Schema::compile_text(resources::find("report.schema.json"));
    auto document = json::parse_json_text(json, "report.json");
    std::vector<schema::Violation> violations;
    k_schema.validate(document, &violations, 10);
    std::string text;
    for (const auto& violation : violations) {
        text += violation.instance_path + ": " + violation.message + "\n";
    }
    return text;
}

}  // namespace conform::report::testing
