#include "suite_runner.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <rapidjson/error/en.h>

#include "schema/schema.hpp"
#include "util/error.hpp"

namespace conform::schema::testing {

namespace {

constexpr std::string_view k_remote_prefix = "http://localhost:1234/";

std::string_view view_of(const rapidjson::Value& string) {
    return {string.GetString(), string.GetStringLength()};
}

const KnownFailure* find_known(const std::vector<KnownFailure>& known, std::string_view file,
                               std::string_view group, std::string_view test) {
    for (const KnownFailure& failure : known) {
        if (failure.file == file && failure.group == group &&
            std::find(failure.tests.begin(), failure.tests.end(), test) != failure.tests.end()) {
            return &failure;
        }
    }
    return nullptr;
}

// Runs one case both ways (fast and collecting) and returns a problem, or "" when it passes.
std::string run_case(const Schema& schema, const rapidjson::Value& test) {
    bool expected = test["valid"].GetBool();
    bool fast = schema.validate(test["data"]);
    std::vector<Violation> violations;
    bool collected = schema.validate(test["data"], &violations);
    if (fast != collected) {
        return "fast and collecting validation disagree";
    }
    if (!collected && violations.empty()) {
        return "invalid without any violation";
    }
    if (fast != expected) {
        std::string problem = expected ? "rejected a valid instance" : "accepted an invalid one";
        if (!violations.empty()) {
            problem += ": " + violations.front().keyword_path + ": " + violations.front().message;
        }
        return problem;
    }
    return "";
}

}  // namespace

std::filesystem::path suite_root() {
    const char* data = std::getenv("CONFORM_TEST_DATA");
    REQUIRE_MESSAGE(data != nullptr, "CONFORM_TEST_DATA is not set (run the test through ctest)");
    return std::filesystem::path(data) / "json-schema-test-suite";
}

rapidjson::Document read_json_file(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) {
        throw std::runtime_error("cannot open " + path.string());
    }
    std::stringstream text;
    text << stream.rdbuf();
    rapidjson::Document document;
    std::string content = text.str();
    document.Parse(content.data(), content.size());
    if (document.HasParseError()) {
        throw std::runtime_error(path.string() + ": " +
                                 rapidjson::GetParseError_En(document.GetParseError()));
    }
    return document;
}

const rapidjson::Value* Remotes::find(std::string_view uri) {
    if (!uri.starts_with(k_remote_prefix)) {
        return nullptr;
    }
    std::string relative(uri.substr(k_remote_prefix.size()));
    if (auto found = m_documents.find(relative); found != m_documents.end()) {
        return &found->second;
    }
    std::filesystem::path path = m_directory / relative;
    if (!std::filesystem::is_regular_file(path)) {
        return nullptr;
    }
    return &m_documents.emplace(relative, read_json_file(path)).first->second;
}

void run_suite_file(const std::filesystem::path& path, const std::vector<KnownFailure>& known,
                    Remotes& remotes, SuiteTally& tally) {
    std::string file = path.filename().string();
    rapidjson::Document groups = read_json_file(path);
    DocumentLookup lookup = [&](std::string_view uri) { return remotes.find(uri); };
    for (const auto& group : groups.GetArray()) {
        std::string_view group_name = view_of(group["description"]);
        std::optional<Schema> schema;
        std::string compile_error;
        try {
            schema.emplace(Schema::compile(group["schema"], lookup));
        } catch (const conform::Error& error) {
            compile_error = std::string("compile error: ") + error.what();
        }
        for (const auto& test : group["tests"].GetArray()) {
            std::string_view test_name = view_of(test["description"]);
            std::string problem = schema ? run_case(*schema, test) : compile_error;
            const KnownFailure* known_failure = find_known(known, file, group_name, test_name);
            std::string label =
                file + " | " + std::string(group_name) + " | " + std::string(test_name);
            if (problem.empty() && known_failure) {
                tally.unexpected_passes.push_back(label);
            } else if (problem.empty()) {
                ++tally.passed;
            } else if (known_failure) {
                ++tally.known;
            } else {
                tally.failures.push_back(label + ": " + problem);
            }
        }
    }
}

std::vector<std::filesystem::path> json_files(const std::filesystem::path& directory) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        if (entry.is_regular_file() && entry.path().extension() == ".json") {
            files.push_back(entry.path());
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

}  // namespace conform::schema::testing
