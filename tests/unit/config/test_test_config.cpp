#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <unistd.h>
#include <algorithm>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <string>

#include "config/test_config.hpp"
#include "json/parse.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::config;
namespace fs = std::filesystem;

namespace {

// A fresh folder under the system temp dir, removed at the end of the test.
class TempDir {
public:
    TempDir() {
        static int counter = 0;
        m_path = fs::temp_directory_path() / ("conform-test-config-" + std::to_string(::getpid()) +
                                              "-" + std::to_string(counter++));
        fs::remove_all(m_path);
        fs::create_directories(m_path);
    }
    ~TempDir() {
        std::error_code ignored;
        fs::remove_all(m_path, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const fs::path& path() const { return m_path; }

    fs::path write(const std::string& name, const std::string& content) const {
        auto file = m_path / name;
        fs::create_directories(file.parent_path());
        std::ofstream(file, std::ios::binary) << content;
        return file;
    }

private:
    fs::path m_path;
};

std::string load_error(const fs::path& path) {
    try {
        load_test_config(path);
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    FAIL("load_test_config accepted an invalid config: " << path);
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("test config: a YAML file given as a test config says where YAML goes") {
    TempDir dir;
    auto message = load_error(
        dir.write("conform.yml", "connector_image: airbyte/source-x:dev\nacceptance_tests: {}\n"));
    CHECK(contains(message, "conform.yml: a test config is JSON (comments allowed)"));
    CHECK(contains(message, "--acceptance-test-config"));
    auto json_named_yml =
        dir.write("json.yml", R"({"connector": {"command": ["x"]}, "config": 3})");
    CHECK_FALSE(contains(load_error(json_named_yml), "a test config is JSON"));
}

TEST_CASE("test config: a minimal config with a command array loads") {
    TempDir dir;
    dir.write("secrets/config.json", R"({"api_key":"k"})");
    auto path = dir.write("conform.json", R"({
  "connector": {"command": ["python3", "-m", "source"]},
  "config": "secrets/config.json"
})");
    auto config = load_test_config(path);
    CHECK(config.command == std::vector<std::string>{"python3", "-m", "source"});
    CHECK(!config.image);
    CHECK(config.config_text == R"({"api_key":"k"})");
    CHECK(config.origin == path);
    CHECK(config.base_dir == fs::absolute(dir.path()));
    CHECK(!config.catalog_text);
    CHECK(!config.invalid_config_text);
    CHECK(config.extensions.empty());
    CHECK(config.read_timeout == std::chrono::milliseconds(300'000));
    CHECK(config.resume.max == 20);
    CHECK(!config.resume.sample);
}

TEST_CASE("test config: comments are allowed and optional sections are read") {
    TempDir dir;
    dir.write("config.json", "{}");
    dir.write("invalid.json", R"({"bad":true})");
    dir.write("catalogs/configured.json", R"({"streams":[]})");
    dir.write("merge.json", R"({"merge":1})");
    dir.write("expected.jsonl",
              "{\"stream\":\"users\",\"data\":{\"id\":1}}\n\n"
              "{\"stream\":\"users\",\"data\":{\"id\":2}}\n");
    auto path = dir.write("conform.json", R"({
  // how to run it
  "connector": {"command": "./bin/source --verbose 'two words'", "env": {"A": "1"}},
  "config": "config.json", /* block comment */
  "invalid_config": "invalid.json",
  "catalog": "catalogs/configured.json",
  "extensions": ["tail", "merge"],
  "volatile_fields": {"users": ["/updated_at"]},
  "expected_records": {"path": "expected.jsonl", "mode": "exact", "in_order": true},
  "timeouts": {"read": 1.5},
  "grace_seconds": 0.25,
  "resume": {"sample": 4, "max": 7},
  "merge": {"config": "merge.json"},
  "tail": {"inject_command": ["touch", "x"], "observe_seconds": 3},
  "projections": {"users": {"uid": "/id"}}
})");
    auto config = load_test_config(path);
    REQUIRE(config.command.size() == 3);
    // A relative argv[0] with a slash is relative to the config's folder.
    CHECK(config.command[0] == (fs::absolute(dir.path()) / "./bin/source").string());
    CHECK(config.command[1] == "--verbose");
    CHECK(config.command[2] == "two words");
    CHECK(config.env == std::map<std::string, std::string>{{"A", "1"}});
    CHECK(config.invalid_config_text == R"({"bad":true})");
    CHECK(config.catalog_text == R"({"streams":[]})");
    CHECK(config.claims("tail"));
    CHECK(config.claims("merge"));
    CHECK(!config.claims("range"));
    CHECK(config.volatile_fields.at("users") == std::vector<std::string>{"/updated_at"});
    REQUIRE(config.expected_records.size() == 2);
    CHECK(config.expected_records[0].stream == "users");
    CHECK(config.expected_records[0].data_json == R"({"id":1})");
    CHECK(config.expected_records[0].line == 1);
    CHECK(config.expected_records[1].line == 3);
    CHECK(config.expected_exact);
    CHECK(config.expected_in_order);
    CHECK(config.read_timeout == std::chrono::milliseconds(1500));
    CHECK(config.spec_timeout == std::chrono::milliseconds(30'000));
    CHECK(config.grace == std::chrono::milliseconds(250));
    CHECK(config.resume.sample == 4u);
    CHECK(config.resume.max == 7);
    CHECK(config.merge_config_text == R"({"merge":1})");
    CHECK(!config.full_state_config_text);
    CHECK(config.inject_command == std::vector<std::string>{"touch", "x"});
    CHECK(config.observe == std::chrono::milliseconds(3000));
    REQUIRE(config.projections.count("users") == 1);
    CHECK(config.projections.at("users") == Projections{{"uid", "/id"}});
}

TEST_CASE("test config: a future state is read from its file, relative to the test config") {
    TempDir dir;
    dir.write("config.json", "{}");
    dir.write("states/abnormal.json", R"([{"type":"STREAM"}])");
    auto path = dir.write("conform.json", R"({"connector": {"command": ["x"]},
  "config": "config.json", "future_state": "states/abnormal.json"})");
    auto config = load_test_config(path);
    auto expected = (fs::absolute(dir.path()) / "states/abnormal.json").string();
    CHECK(config.future_state_text == R"([{"type":"STREAM"}])");
    CHECK(config.future_state_origin == expected);
    CHECK(std::find(config.files.begin(), config.files.end(), fs::path(expected)) !=
          config.files.end());

    dir.write("states/broken.json", "[{\"type\":\n");
    auto broken = dir.write("broken.json", R"({"connector": {"command": ["x"]},
  "config": "config.json", "future_state": "states/broken.json"})");
    auto message = load_error(broken);
    INFO(message);
    CHECK(message.starts_with((fs::absolute(dir.path()) / "states/broken.json").string() + ":"));
}

TEST_CASE("test config: an expected spec from JSON, YAML or a low-code manifest") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto with_spec = [&dir](const std::string& file) {
        return dir.write("conform.json", R"({"connector": {"command": ["x"]},
  "config": "config.json", "expected_spec": ")" +
                                             file + "\"}");
    };
    dir.write("spec.json", R"({"documentationUrl": "https://d", "connectionSpecification": {}})");
    auto from_json = load_test_config(with_spec("spec.json"));
    REQUIRE(from_json.expected_spec.has_value());
    CHECK(from_json.expected_spec->json ==
          R"({"documentationUrl":"https://d","connectionSpecification":{}})");
    CHECK_FALSE(from_json.expected_spec->connection_only);
    CHECK(from_json.expected_spec->as_named == "spec.json");
    CHECK(from_json.expected_spec->origin == (fs::absolute(dir.path()) / "spec.json").string());

    dir.write("spec.yaml", "connectionSpecification:\n  type: object\n");
    CHECK(load_test_config(with_spec("spec.yaml")).expected_spec->json ==
          R"({"connectionSpecification":{"type":"object"}})");

    dir.write("manifest.yaml",
              "version: 0.50.0\nspec:\n  documentation_url: https://d\n"
              "  connection_specification:\n    required: [key]\n");
    auto manifest = load_test_config(with_spec("manifest.yaml")).expected_spec;
    CHECK(manifest->json == R"({"connectionSpecification":{"required":["key"]}})");
    CHECK(manifest->connection_only);

    dir.write("other/manifest.yml", "version: 0.50.0\nstreams: []\n");
    auto message = load_error(with_spec("other/manifest.yml"));
    CHECK(message.find("manifest.yml: a low-code manifest without "
                       "spec.connection_specification") != std::string::npos);
    dir.write("catalog.json", R"({"streams": []})");
    message = load_error(with_spec("catalog.json"));
    CHECK(message.find("catalog.json: expected a connector specification") != std::string::npos);
}

TEST_CASE("test config: the expected spec of a real low-code manifest (source-pokeapi)") {
    const char* data = std::getenv("CONFORM_TEST_DATA");
    INFO("CONFORM_TEST_DATA is not set (run through ctest)");
    REQUIRE(data != nullptr);
    TempDir dir;
    dir.write("config.json", "{}");
    auto manifest = fs::path(data) / "airbyte" / "source-pokeapi" / "manifest.yaml";
    auto path = dir.write("conform.json", R"({"connector": {"command": ["x"]},
  "config": "config.json", "expected_spec": ")" +
                                              manifest.string() + "\"}");
    auto expected = load_test_config(path).expected_spec;
    REQUIRE(expected.has_value());
    CHECK(expected->connection_only);
    auto document = conform::json::parse_json_text(expected->json, "expected");
    REQUIRE(document.MemberCount() == 1);
    const auto& specification = document["connectionSpecification"];
    CHECK(std::string(specification["required"][0].GetString()) == "pokemon_name");
    const auto& name = specification["properties"]["pokemon_name"];
    CHECK(std::string(name["pattern"].GetString()) == "^[a-z0-9_\\-]+$");
    CHECK(name["enum"].Size() > 100);
}

TEST_CASE("test config: the inject command resolves like connector.command; merge and tail keys") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto path = dir.write("conform.json", R"({
  "connector": {"command": ["./source"]},
  "config": "config.json",
  "merge": {"states_are_patches": true},
  "tail": {"inject_command": "./add-row.sh '${CONFORM_CONFIG}' 2", "wait_seconds": 7}
})");
    auto config = load_test_config(path);
    REQUIRE(config.inject_command.size() == 3);
    CHECK(config.inject_command[0] == (fs::absolute(dir.path()) / "./add-row.sh").string());
    CHECK(config.inject_command[1] == "${CONFORM_CONFIG}");
    CHECK(config.inject_command[2] == "2");
    CHECK(config.states_are_patches);
    CHECK(config.tail_wait == std::chrono::milliseconds(7000));
}

TEST_CASE("test config: an image connector keeps its settings") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto path = dir.write("conform.json", R"({
  "connector": {"image": "airbyte/source-faker:6", "pull": "never", "network": true,
                "runtime_args": ["--memory", "1g"]},
  "config": "config.json"
})");
    auto config = load_test_config(path);
    REQUIRE(config.image);
    CHECK(config.command.empty());
    CHECK(config.image->image == "airbyte/source-faker:6");
    CHECK(config.image->pull == container::PullPolicy::never);
    CHECK(config.image->network);
    CHECK(config.image->runtime_args == std::vector<std::string>{"--memory", "1g"});
}

TEST_CASE("test config: an unknown key names the file, the key's line and the field") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto path = dir.write("conform.json", R"({
  "connector": {"command": ["x"]},
  "config": "config.json",
  "timeouts": {
    "reed": 10
  }
})");
    auto message = load_error(path);
    INFO(message);
    CHECK(message.starts_with(path.string() + ": invalid test config:"));
    CHECK(
        contains(message, path.string() + ":5: /timeouts/reed: property \"reed\" is not allowed"));
    CHECK(contains(message, "(did you mean 'read'?)"));
    CHECK(
        contains(message, "(what each key means: docs/test-config.md in conform's documentation)"));
    CHECK_FALSE(contains(message, "schemas/"));  // conform's source tree, which users do not have
}

TEST_CASE("test config: a key given twice names its line, in any object") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto path = dir.write("conform.json", R"({
  "connector": {"command": ["x"]},
  "config": "config.json",
  "timeouts": {"read": 10},
  "timeouts": {"read": 20}
})");
    auto message = load_error(path);
    INFO(message);
    CHECK(contains(message, path.string() + ":4: /timeouts: given twice in its object"));
    auto nested = dir.write("nested.json", R"({
  "connector": {"command": ["x"]},
  "config": "config.json",
  "volatile_fields": {"users": ["/a"]},
  "timeouts": {
    "read": 10,
    "check": 5,
    "read": 20
  }
})");
    message = load_error(nested);
    INFO(message);
    CHECK(contains(message, nested.string() + ":6: /timeouts/read: given twice in its object"));
}

TEST_CASE("test config: a wrong type names the field and its line") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto path = dir.write("conform.json", R"({
  "connector": {"command": ["x"]},
  "config": "config.json",
  "grace_seconds": "five"
})");
    auto message = load_error(path);
    INFO(message);
    CHECK(contains(message, path.string() + ":4: /grace_seconds: "));
    CHECK(contains(message, "number"));
}

TEST_CASE("test config: a missing required member is reported at the top level") {
    TempDir dir;
    auto path = dir.write("conform.json", "{\n  \"connector\": {\"command\": [\"x\"]}\n}\n");
    auto message = load_error(path);
    INFO(message);
    CHECK(contains(message, path.string() + ":1: (top level): "));
    CHECK(contains(message, "config"));
}

TEST_CASE("test config: every violation is listed, not just the first") {
    TempDir dir;
    auto path = dir.write("conform.json", R"({
  "connector": {"command": ["x"]},
  "config": 5,
  "extensions": ["warp"]
})");
    auto message = load_error(path);
    INFO(message);
    CHECK(contains(message, ":3: /config: "));
    CHECK(contains(message, ":4: /extensions/0: "));
}

TEST_CASE("test config: both command and image is an error") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto path = dir.write("conform.json", R"({
  "connector": {"command": ["x"], "image": "y"},
  "config": "config.json"
})");
    auto message = load_error(path);
    INFO(message);
    CHECK(contains(message, path.string() + ":2: /connector: "));
}

TEST_CASE("test config: missing files are named") {
    TempDir dir;
    auto missing = dir.path() / "nope.json";
    CHECK(load_error(missing) ==
          "cannot read '" + missing.string() + "': no such file or not readable");

    auto path =
        dir.write("conform.json", R"({"connector": {"command": ["x"]}, "config": "gone.json"})");
    CHECK(load_error(path) == "cannot read '" + (fs::absolute(dir.path()) / "gone.json").string() +
                                  "': no such file or not readable");
}

TEST_CASE("test config: malformed JSON names file, line and column") {
    TempDir dir;
    auto path =
        dir.write("conform.json", "{\n  \"connector\": {\"command\": [\"x\"]},\n  oops\n}\n");
    auto message = load_error(path);
    INFO(message);
    CHECK(message.starts_with(path.string() + ":3:"));
}

TEST_CASE("test config: a malformed expected-records line is named") {
    TempDir dir;
    dir.write("config.json", "{}");
    dir.write("expected.jsonl", "{\"stream\":\"a\",\"data\":{}}\n{\"stream\":\"a\"}\n");
    auto path =
        dir.write("conform.json", R"({"connector": {"command": ["x"]}, "config": "config.json",
  "expected_records": {"path": "expected.jsonl"}})");
    auto message = load_error(path);
    auto expected = (fs::absolute(dir.path()) / "expected.jsonl").string();
    CHECK(message.starts_with(expected + ":2: expected {\"stream\": NAME, \"data\": {...}}"));
}

TEST_CASE("split_command_line: words, quotes and escapes") {
    using Words = std::vector<std::string>;
    CHECK(split_command_line("") == Words{});
    CHECK(split_command_line("   \t ") == Words{});
    CHECK(split_command_line("python3 main.py") == Words{"python3", "main.py"});
    CHECK(split_command_line("  a   b\tc\n") == Words{"a", "b", "c"});
    CHECK(split_command_line("'single quoted' \"double quoted\"") ==
          Words{"single quoted", "double quoted"});
    CHECK(split_command_line("a'b c'd") == Words{"ab cd"});
    CHECK(split_command_line("''") == Words{""});
    CHECK(split_command_line("a \"\" b") == Words{"a", "", "b"});
    CHECK(split_command_line(R"("say \"hi\"")") == Words{"say \"hi\""});
    CHECK(split_command_line(R"('no \escape')") == Words{"no \\escape"});
    CHECK(split_command_line(R"(one\ word)") == Words{"one word"});
    CHECK(split_command_line(R"("it's")") == Words{"it's"});
}

TEST_CASE("split_command_line: an unterminated quote is a usage error") {
    for (std::string line : {"python 'main.py", "echo \"hi", R"("ends with \")"}) {
        CAPTURE(line);
        try {
            split_command_line(line);
            FAIL("accepted an unterminated quote");
        } catch (const Error& error) {
            CHECK(error.kind() == ErrorKind::usage);
            CHECK(contains(error.what(), "unterminated"));
            CHECK(contains(error.what(), line));
        }
    }
}

TEST_CASE("test config: a blank command line is an error, not a crash") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto path =
        dir.write("conform.json", R"({"connector": {"command": "   "}, "config": "config.json"})");
    auto message = load_error(path);
    CHECK(contains(message, "/connector/command: expected a program to run"));
}

TEST_CASE("test config: a missing setting is named as the user gave the others") {
    TestConfig from_file;
    from_file.origin = "conform.json";
    CHECK(from_file.lacks("invalid_config") == "the test config has no \"invalid_config\"");
    CHECK(from_file.lacks("inject_command") ==
          "the test config has no \"tail\": {\"inject_command\"}");
    CHECK(from_file.lacks("claims:tail") ==
          "the test config does not claim the 'tail' extension (its \"extensions\" list)");
    TestConfig from_flags;
    from_flags.origin = std::string(k_command_line_origin);
    REQUIRE(from_flags.from_flags());
    CHECK(from_flags.lacks("invalid_config") == "no --invalid-config FILE was given");
    CHECK(from_flags.lacks("inject_command") == "no --inject 'COMMAND' was given");
    CHECK(from_flags.lacks("claims:range") == "--extensions does not list 'range'");
    CHECK(from_flags.lacks("projections") ==
          "no test config says \"projections\" (only a test config can; this run has flags only)");
}

TEST_CASE("test config: a connector config's syntax error names it and hides its line") {
    TempDir dir;
    dir.write("config.json", "{\n  \"api_key\": \"k3y-abcdef-123456\" \"x\": 1\n}\n");
    auto path =
        dir.write("conform.json", R"({"connector": {"command": ["x"]}, "config": "config.json"})");
    auto message = load_error(path);
    INFO(message);
    CHECK(message.starts_with((fs::absolute(dir.path()) / "config.json").string() + ":2:"));
    CHECK_FALSE(contains(message, "k3y-abcdef"));
    dir.write("catalog.json", "{\"streams\": [}");
    dir.write("config.json", "{}");
    path = dir.write("conform.json", R"({"connector": {"command": ["x"]}, "config": "config.json",
                                        "catalog": "catalog.json"})");
    message = load_error(path);
    CHECK(message.starts_with((fs::absolute(dir.path()) / "catalog.json").string() + ":1:"));
}

TEST_CASE("test config: the files it read are listed") {
    TempDir dir;
    dir.write("config.json", "{}");
    dir.write("catalog.json", "{\"streams\": []}");
    auto path =
        dir.write("conform.json", R"({"connector": {"command": ["x"]}, "config": "config.json",
                                        "catalog": "catalog.json"})");
    auto config = load_test_config(path);
    REQUIRE(config.files.size() == 3);
    CHECK(config.files[0] == path);
    CHECK(config.files[1].filename() == "config.json");
    CHECK(config.files[2].filename() == "catalog.json");
}

TEST_CASE("test config: a manifest-only connector's manifest gives its spec and goes in configs") {
    TempDir dir;
    dir.write("config.json", R"({"key": "k"})");
    dir.write("manifest.yaml", R"(version: 0.50.2
definitions:
  base: &base {type: DeclarativeStream, primary_key: id}
streams:
  - <<: *base
    name: users
spec:
  type: Spec
  documentation_url: https://docs.example/src
  connection_specification:
    type: object
    required: [key]
    properties:
      key: {type: string, airbyte_secret: true}
  advanced_auth:
    auth_flow_type: oauth2.0
)");
    auto path =
        dir.write("conform.json", R"({"connector": {"command": ["source-declarative-manifest"],
        "manifest": "manifest.yaml"}, "config": "config.json"})");
    auto config = load_test_config(path);
    REQUIRE(config.manifest.has_value());
    CHECK(config.manifest->as_named == "manifest.yaml");
    CHECK(config.manifest->spec_line == 7);
    CHECK(std::find(config.files.begin(), config.files.end(), dir.path() / "manifest.yaml") !=
          config.files.end());

    // The SPEC message the CDK's declarative source builds from the section (Spec.generate_spec).
    auto message = conform::json::parse_json_text(config.manifest->spec_message, "spec");
    CHECK(std::string(message["type"].GetString()) == "SPEC");
    const auto& spec = message["spec"];
    CHECK(spec.MemberCount() == 3);
    CHECK(std::string(spec["documentationUrl"].GetString()) == "https://docs.example/src");
    CHECK(spec["connectionSpecification"]["properties"]["key"]["airbyte_secret"].GetBool());
    CHECK(std::string(spec["advanced_auth"]["auth_flow_type"].GetString()) == "oauth2.0");

    // Every config the connector reads carries the whole manifest, its merge keys expanded.
    auto injected = conform::json::parse_json_text(config.for_connector(config.config_text), "c");
    CHECK(std::string(injected["key"].GetString()) == "k");
    const auto& manifest = injected[k_injected_manifest_key];
    CHECK(std::string(manifest["streams"][0]["name"].GetString()) == "users");
    CHECK(std::string(manifest["streams"][0]["type"].GetString()) == "DeclarativeStream");
    // One the config already holds is replaced; a config that is not an object stays as it is.
    auto replaced = conform::json::parse_json_text(
        with_manifest(*config.manifest, R"({"__injected_declarative_manifest": 1})"), "c");
    CHECK(replaced[k_injected_manifest_key].IsObject());
    CHECK(with_manifest(*config.manifest, "[1]") == "[1]");
    CHECK(with_manifest(*config.manifest, "{not json") == "{not json");
}

TEST_CASE("test config: a manifest without a connection specification is refused") {
    TempDir dir;
    dir.write("config.json", "{}");
    auto path = dir.write("conform.json", R"({"connector": {"command": ["x"],
        "manifest": "manifest.yaml"}, "config": "config.json"})");
    for (const char* text : {"version: 0.50.2\nstreams: []\n", "spec:\n  type: Spec\n",
                             "spec:\n  connection_specification: [1]\n", "- a list\n"}) {
        INFO(text);
        dir.write("manifest.yaml", text);
        auto message = load_error(path);
        CHECK(contains(message, "manifest.yaml: a"));
    }
    dir.write("manifest.yaml", "spec: [\n");
    CHECK(contains(load_error(path), "manifest.yaml:2:"));
}

TEST_CASE("test config: a real low-code manifest (source-pokeapi) as the connector's manifest") {
    const char* data = std::getenv("CONFORM_TEST_DATA");
    INFO("CONFORM_TEST_DATA is not set (run through ctest)");
    REQUIRE(data != nullptr);
    auto manifest = read_manifest(fs::path(data) / "airbyte" / "source-pokeapi" / "manifest.yaml",
                                  "manifest.yaml");
    auto message = conform::json::parse_json_text(manifest.spec_message, "spec");
    CHECK(std::string(message["spec"]["connectionSpecification"]["required"][0].GetString()) ==
          "pokemon_name");
    auto whole = conform::json::parse_json_text(manifest.json, "manifest");
    CHECK(whole["streams"].IsArray());
    CHECK(whole.HasMember("version"));
}
