#include "config/manifest.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/positions.hpp"
#include "json/write.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "yaml/yaml.hpp"

namespace conform::config {

namespace {

const rapidjson::Value* member_of(const rapidjson::Value& object, const char* name) {
    if (!object.IsObject()) {
        return nullptr;
    }
    auto found = object.FindMember(name);
    return found == object.MemberEnd() ? nullptr : &found->value;
}

// The SPEC message the CDK's declarative source emits for `spec` (Spec.generate_spec): the
// connection specification, and the documentation URL and advanced auth when the section has them.
std::string spec_message_of(const rapidjson::Value& spec) {
    rapidjson::Document message(rapidjson::kObjectType);
    auto& allocator = message.GetAllocator();
    rapidjson::Value specification(rapidjson::kObjectType);
    specification.AddMember(
        "connectionSpecification",
        rapidjson::Value(*member_of(spec, "connection_specification"), allocator), allocator);
    if (const auto* url = member_of(spec, "documentation_url")) {
        specification.AddMember("documentationUrl", rapidjson::Value(*url, allocator), allocator);
    }
    if (const auto* auth = member_of(spec, "advanced_auth")) {
        specification.AddMember("advanced_auth", rapidjson::Value(*auth, allocator), allocator);
    }
    message.AddMember("type", "SPEC", allocator);
    message.AddMember("spec", specification, allocator);
    return json::to_json(message);
}

}  // namespace

Manifest read_manifest(const std::filesystem::path& path, std::string as_named) {
    Manifest manifest;
    manifest.origin = path.string();
    manifest.as_named = std::move(as_named);
    auto text = read_text_file(path);
    auto json_text =
        yaml::is_yaml_path(manifest.origin) ? yaml::to_json_text(text, manifest.origin) : text;
    auto document = json::parse_json_text(json_text, manifest.origin);
    if (!document.IsObject()) {
        throw_input_error(fmt::format(
            "{}: a low-code manifest is a mapping (with streams and a spec section)",
            manifest.origin));
    }
    const auto* spec = member_of(document, "spec");
    const auto* connection = spec != nullptr ? member_of(*spec, "connection_specification")
                                             : nullptr;
    if (connection == nullptr || !connection->IsObject()) {
        throw_input_error(fmt::format(
            "{}: a manifest-only connector's manifest needs spec.connection_specification (an "
            "object): conform takes the connector's spec from it, since the generic runner's "
            "`spec` prints the runner's own",
            manifest.origin));
    }
    manifest.spec_line = json::line_of(json::pointer_lines(json_text), "/spec");
    manifest.spec_message = spec_message_of(*spec);
    manifest.json = json::to_json(document);
    return manifest;
}

std::string with_manifest(const Manifest& manifest, const std::string& config_json) {
    rapidjson::Document config;
    try {
        config = json::parse_json_text(config_json, "connector config");
    } catch (const Error&) {
        return config_json;
    }
    if (!config.IsObject()) {
        return config_json;
    }
    auto& allocator = config.GetAllocator();
    auto injected = json::parse_json_text(manifest.json, manifest.origin);
    config.RemoveMember(k_injected_manifest_key);
    config.AddMember(rapidjson::StringRef(k_injected_manifest_key),
                     rapidjson::Value(injected, allocator), allocator);
    return json::to_json(config);
}

}  // namespace conform::config
