#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "schema/user_document.hpp"
#include "util/files.hpp"

// What the test configs of the protocols whose scenarios are built in (Meltano extensions, Singer
// taps, Airbyte destinations) read alike, once their schema has validated the document.
namespace conform::engine {

// The seconds of `object[name]`; `fallback` when `object` is no object or lacks `name`.
std::chrono::milliseconds seconds_or(const rapidjson::Value& object, const char* name,
                                     std::chrono::milliseconds fallback);

// The strings of the array `object[name]`; none when `object` lacks `name`.
std::vector<std::string> strings_of(const rapidjson::Value& object, const char* name);

// A test config's `text` (a mapped file's) read into `config`, whose origin and base_dir are set,
// as load_test_config reads a file.
template <typename TestConfigT, typename Read>
TestConfigT read_test_config(std::string text, TestConfigT config, const schema::Schema& schema,
                             schema::UserDocument::Kind kind, Read read) {
    schema::UserDocument file(std::move(text), config.origin.string(), schema, kind);
    const auto& document = file.root();
    std::vector<schema::Problem> problems;
    read(document, config, problems);
    if (document.HasMember("known_failures")) {
        config.known_failures =
            resolve_under(config.base_dir, document["known_failures"].GetString());
    }
    config.grace = seconds_or(document, "grace_seconds", config.grace);
    if (!problems.empty()) {
        file.fail(problems);
    }
    return config;
}

// Loads the test config at `path`, checked against `schema` (`kind` names it in errors). What
// every one says alike is read here: where it is, the folder its paths are under, its
// "known_failures" and "grace_seconds"; `read(document, config, problems)` reads the rest and adds
// the problems the schema cannot express. Throws conform::Error (input) listing every problem
// with its line.
template <typename TestConfigT, typename Read>
TestConfigT load_test_config(const std::filesystem::path& path, const schema::Schema& schema,
                             schema::UserDocument::Kind kind, Read read) {
    TestConfigT config;
    config.origin = path;
    config.base_dir = std::filesystem::absolute(path).parent_path();
    return read_test_config(read_text_file(path), std::move(config), schema, kind, read);
}

}  // namespace conform::engine
