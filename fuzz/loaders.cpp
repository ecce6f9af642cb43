// Fuzz target: the files a user gives conform. The first byte picks the loader: 's' a suite file,
// 't' a test config file, 'd', 'g', 'm' the test config of a destination, a Singer tap, a Meltano
// extension, 'a' an acceptance-test-config.yml, 'f' a manifest-only connector's manifest.yaml
// (then put in a config), 'y' any YAML file read as JSON, 'k' a known-failures list (YAML), 'b' a
// baseline report for `conform diff`, anything else a configured catalog; the rest is the file's
// text.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "checks/checks.hpp"
#include "config/test_config.hpp"
#include "destination/test_config.hpp"
#include "diff/baseline.hpp"
#include "engine/known_failures.hpp"
#include "fuzz_input.hpp"
#include "json/parse.hpp"
#include "meltano/test_config.hpp"
#include "process/workdir.hpp"
#include "protocol/catalog.hpp"
#include "singer/test_config.hpp"
#include "suite/scenario.hpp"
#include "util/error.hpp"
#include "yaml/yaml.hpp"

namespace {

// The path of a file holding `text`, named `name`, in a folder of the process's own.
std::filesystem::path written(std::string_view text, const char* name) {
    static conform::process::PrivateDir dir;
    auto path = dir.path() / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    return path;
}

// The files the seeds' test configs name, so that a loader reads past them.
void write_named_files() {
    static const bool written_once = [] {
        written("{}", "config.json");
        written("{\"api_key\": 1}", "invalid_config.json");
        written(R"({"streams": [{"stream": {"name": "s", "json_schema": {"type": "object",
            "properties": {"id": {"type": "integer"}}}}, "destination_sync_mode": "append_dedup",
            "primary_key": [["id"]]}]})",
                "configured_catalog.json");
        return true;
    }();
    (void)written_once;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    std::string_view text = conform::fuzz::as_text(data + 1, size - 1);
    write_named_files();
    try {
        switch (data[0]) {
            case 's':
                conform::suite::load_suite_text(text, "suite.json",
                                                conform::checks::airbyte_checks());
                break;
            case 't':
                conform::config::load_test_config(written(text, "conform.json"));
                break;
            case 'd':
                conform::destination::load_test_config(written(text, "conform.json"));
                break;
            case 'g':
                conform::singer::load_test_config(written(text, "conform.json"));
                break;
            case 'm':
                conform::meltano::load_test_config(written(text, "conform.json"));
                break;
            case 'a':
                conform::config::load_acceptance_test_config(
                    written(text, "acceptance-test-config.yml"));
                break;
            case 'k':
                conform::engine::load_known_failures(
                    written(text, "known-failures.yml"),
                    {{"read.expected_records", "io.json_lines"}, {"read", "spec"}});
                break;
            case 'b':
                conform::diff::load_baseline(written(text, "baseline.json").string());
                break;
            case 'f': {
                auto manifest =
                    conform::config::read_manifest(written(text, "manifest.yaml"), "manifest.yaml");
                conform::config::with_manifest(manifest, R"({"api_key": "k"})");
                break;
            }
            case 'y':
                conform::json::parse_json_text(
                    conform::yaml::to_json_text(std::string(text), "file.yml"), "file.yml");
                break;
            default: {
                auto document = conform::json::parse_json_text(text, "catalog.json");
                conform::protocol::load_catalog(document, "catalog.json", {});
                break;
            }
        }
    } catch (const conform::Error&) {
        // Bad input, named: the documented outcome.
    }
    return 0;
}
