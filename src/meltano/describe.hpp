#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace conform::meltano {

// One entry of `describe --format=json`: a CLI the extension ships.
struct DescribedCli {
    std::string name;
    std::vector<std::string> commands;
    bool pass_through = false;
};

// What `describe --format=json` printed, read against MX-DESC-1.
struct DescribeReading {
    // Why stdout is not one JSON object with a "commands" member (MUST); empty when it is.
    std::string not_json;
    // Deviations from the seed's shape {"commands":[{"name","description","commands",
    // "pass_through_cli"}]} (SHOULD); extra members (the EDK's richer shape) are not deviations.
    std::vector<std::string> deviations;
    // The entries that carry at least a string "name".
    std::vector<DescribedCli> clis;
};

// Reads `stdout_text`, which may span several lines (the EDK indents its JSON). `extension` and
// `invoker` are the executables the test config names ("" when there is no invoker): describe is
// expected to list them, the extension with pass_through_cli false and the invoker with true.
DescribeReading read_describe(std::string_view stdout_text, std::string_view extension,
                              std::string_view invoker);

}  // namespace conform::meltano
