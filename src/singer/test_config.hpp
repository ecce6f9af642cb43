#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "container/launcher.hpp"

namespace conform::singer {

// The test config of a Singer tap (`"protocol": "singer"`, docs/singer.md).
struct TestConfig {
    std::filesystem::path origin;
    std::filesystem::path base_dir;

    std::vector<std::string> command;               // a native tap's argv
    std::optional<container::ImageSettings> image;  // or an image
    std::map<std::string, std::string> env;
    std::filesystem::path working_dir;

    std::string config_text;
    std::optional<std::string> invalid_config_text;
    std::optional<std::string> batch_config_text;
    std::vector<std::string> secret_pointers;             // into the config
    std::vector<std::string> streams;                     // empty: every discovered stream
    std::map<std::string, std::string> replication_keys;  // by tap_stream_id, over the catalog's
    std::vector<std::string> log_based;                   // tap_stream_ids selected LOG_BASED
    std::vector<std::string> empty_streams;               // tap_stream_ids with no data to sync

    std::optional<bool> about;  // unset: tried, skipped when not offered
    bool properties = false;
    bool activate_version = false;
    bool currently_syncing = true;
    std::string start_date_key = "start_date";
    std::optional<std::string> later_start_date;
    std::size_t max_resumed_states = 10;

    std::chrono::milliseconds about_timeout{30'000};
    std::chrono::milliseconds discover_timeout{60'000};
    std::chrono::milliseconds sync_timeout{300'000};
    std::chrono::milliseconds grace{5'000};
    // The known-failures file the test config names (docs/known-failures.md); empty: none.
    std::filesystem::path known_failures;
};

// True when the JSON file at `path` says "protocol": "singer". False for any other file, including
// one that cannot be read or parsed (another loader then reports the problem).
bool is_singer_test_config(const std::filesystem::path& path);

// Loads and checks a Singer tap's test config (schemas/singer-test-config.schema.json). Throws
// conform::Error (input) listing every problem with its line.
TestConfig load_test_config(const std::filesystem::path& path);

}  // namespace conform::singer
