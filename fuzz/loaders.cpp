// Fuzz target: the files a user gives conform. The first byte picks the loader: 's' a suite file,
// 't' a test config file, anything else a configured catalog; the rest is the file's text.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "checks/checks.hpp"
#include "config/test_config.hpp"
#include "fuzz_input.hpp"
#include "json/parse.hpp"
#include "process/workdir.hpp"
#include "protocol/catalog.hpp"
#include "suite/scenario.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    std::string_view text = conform::fuzz::as_text(data + 1, size - 1);
    try {
        switch (data[0]) {
            case 's':
                conform::suite::load_suite_text(text, "suite.json",
                                                conform::checks::airbyte_checks());
                break;
            case 't': {
                static conform::process::PrivateDir dir;
                auto path = dir.path() / "conform.json";
                {
                    std::ofstream out(path, std::ios::binary | std::ios::trunc);
                    out.write(text.data(), static_cast<std::streamsize>(text.size()));
                }
                conform::config::load_test_config(path);
                break;
            }
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
