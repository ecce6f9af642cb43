#pragma once

// Runs files of the JSON Schema Test Suite against conform::schema.

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

namespace conform::schema::testing {

// Suite cases conform is known to get wrong, with the reason (also listed in
// docs/json-schema.md).
struct KnownFailure {
    std::string_view file;                // file name, e.g. "hostname.json"
    std::string_view group;               // the group's "description"
    std::vector<std::string_view> tests;  // the tests' "description"s
    std::string_view reason;
};

struct SuiteTally {
    std::size_t passed = 0;
    std::size_t known = 0;
    std::vector<std::string> failures;           // unexpected failures, one line each
    std::vector<std::string> unexpected_passes;  // known failures that now pass
};

// Returns $CONFORM_TEST_DATA/json-schema-test-suite; fails the test when the variable is unset.
std::filesystem::path suite_root();

// Parses the JSON file at `path`; throws std::runtime_error when unreadable or invalid.
rapidjson::Document read_json_file(const std::filesystem::path& path);

// Serves remotes/ documents for `$ref`s to http://localhost:1234/.
class Remotes {
public:
    explicit Remotes(std::filesystem::path directory) : m_directory(std::move(directory)) {}
    const rapidjson::Value* find(std::string_view uri);

private:
    std::filesystem::path m_directory;
    std::map<std::string, rapidjson::Document, std::less<>> m_documents;
};

// Runs every case of the suite file `path`, counting results into `tally`.
void run_suite_file(const std::filesystem::path& path, const std::vector<KnownFailure>& known,
                    Remotes& remotes, SuiteTally& tally);

// The sorted *.json files directly in `directory`.
std::vector<std::filesystem::path> json_files(const std::filesystem::path& directory);

}  // namespace conform::schema::testing
