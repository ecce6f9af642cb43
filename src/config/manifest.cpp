#include "config/manifest.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <string_view>

#include "json/member.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/positions.hpp"
#include "json/write.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "yaml/yaml.hpp"

namespace conform::config {

namespace {

// The SPEC message the CDK's declarative source emits for `spec` (Spec.generate_spec): the
// connection specification, and the documentation URL and advanced auth when the section has them.
std::string spec_message_of(const rapidjson::Value& spec) {
    rapidjson::Document message(rapidjson::kObjectType);
    auto& allocator = message.GetAllocator();
    rapidjson::Value specification(rapidjson::kObjectType);
    specification.AddMember(
        "connectionSpecification",
        rapidjson::Value(*json::member(spec, "connection_specification"), allocator), allocator);
    if (const auto* url = json::member(spec, "documentation_url")) {
        specification.AddMember("documentationUrl", rapidjson::Value(*url, allocator), allocator);
    }
    if (const auto* auth = json::member(spec, "advanced_auth")) {
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
        throw_input_error(
            fmt::format("{}: a low-code manifest is a mapping (with streams and a spec section)",
                        manifest.origin));
    }
    const auto* spec = json::member(document, "spec");
    const auto* connection =
        spec != nullptr ? json::member(*spec, "connection_specification") : nullptr;
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

std::optional<std::filesystem::path> manifest_only_manifest(const std::filesystem::path& folder) {
    auto metadata = folder / "metadata.yaml";
    auto manifest = folder / "manifest.yaml";
    std::error_code unknown;
    if (!std::filesystem::is_regular_file(metadata, unknown) ||
        !std::filesystem::is_regular_file(manifest, unknown)) {
        return std::nullopt;
    }
    try {
        auto document = json::parse_json_text(
            yaml::to_json_text(read_text_file(metadata), metadata.string()), metadata.string());
        const auto* tags = json::find_value(document, "/data/tags");
        if (tags == nullptr || !tags->IsArray()) {
            return std::nullopt;
        }
        for (const auto& tag : tags->GetArray()) {
            if (tag.IsString() && std::string_view(tag.GetString()) == "language:manifest-only") {
                return manifest;
            }
        }
    } catch (const Error&) {
        // Not readable: no hint.
    }
    return std::nullopt;
}

}  // namespace conform::config
