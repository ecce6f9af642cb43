#include <doctest/doctest.h>

#include "meltano/describe.hpp"

using namespace conform::meltano;

namespace {

// What the EDK prints (dataclasses.asdict, indent=2), with its extra commands.
constexpr const char* k_edk = R"({
  "commands": [
    {
      "name": "airflow_extension",
      "description": "extension commands",
      "commands": ["describe", "invoke", "pre_invoke", "post_invoke", "initialize"],
      "pass_through_cli": false
    },
    {
      "name": "airflow_invoker",
      "description": "pass through invoker",
      "commands": [":splat"],
      "pass_through_cli": true
    }
  ]
}
)";

}  // namespace

TEST_CASE("describe: the EDK's multi-line document has the seed's shape") {
    auto reading = read_describe(k_edk, "airflow_extension", "airflow_invoker");
    CHECK(reading.not_json.empty());
    CHECK(reading.deviations.empty());
    REQUIRE(reading.clis.size() == 2);
    CHECK(reading.clis[0].commands.size() == 5);
    CHECK_FALSE(reading.clis[0].pass_through);
    CHECK(reading.clis[1].pass_through);
}

TEST_CASE("describe: text, two documents and a missing commands member are not JSON") {
    CHECK_FALSE(
        read_describe("airflow_extension: describe invoke", "a_extension", "").not_json.empty());
    CHECK_FALSE(read_describe("{\"commands\": []}\n{\"commands\": []}", "a_extension", "")
                    .not_json.empty());
    CHECK_FALSE(read_describe("{\"cmds\": []}", "a_extension", "").not_json.empty());
    CHECK_FALSE(read_describe("[]", "a_extension", "").not_json.empty());
}

TEST_CASE("describe: deviations from the seed's shape are listed") {
    auto reading = read_describe(
        R"({"commands": [{"name": "a_extension", "commands": ["describe", 3]}], "extra": 1})",
        "a_extension", "a_invoker");
    CHECK(reading.not_json.empty());
    // No description, a command that is not a string, no pass_through_cli, no invoker entry.
    CHECK(reading.deviations.size() == 4);
    REQUIRE(reading.clis.size() == 1);
    CHECK(reading.clis[0].commands == std::vector<std::string>{"describe"});
}

TEST_CASE("describe: the extension and the invoker must be named with the right flag") {
    auto reading = read_describe(
        R"({"commands": [{"name": "a_extension", "description": "", "commands": [],
            "pass_through_cli": true}]})",
        "a_extension", "a_invoker");
    REQUIRE(reading.deviations.size() == 2);
    CHECK(reading.deviations[0].find("pass_through_cli true") != std::string::npos);
    CHECK(reading.deviations[1].find("no entry names the invoker") != std::string::npos);
}
