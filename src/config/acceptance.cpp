#include "config/acceptance.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "json/member.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "schema/user_document.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "yaml/yaml.hpp"

namespace conform::config {

namespace {

const schema::Schema& acceptance_schema() {
    static const auto schema =
        schema::Schema::compile_text(resources::find("acceptance-test-config.schema.json"));
    return schema;
}

std::string text_of(const rapidjson::Value& value) {
    return value.IsString() ? std::string(value.GetString(), value.GetStringLength()) : "";
}

// One test of a section, with the JSON pointer of its object.
struct Test {
    const rapidjson::Value* value;
    std::string pointer;
};

// A section (spec, connection, ...) in either format.
struct Section {
    std::string name;
    std::string pointer;
    std::vector<Test> tests;
    const rapidjson::Value* bypass_reason = nullptr;
};

void add_tests(const rapidjson::Value& tests, const std::string& pointer, Section& section) {
    for (rapidjson::SizeType i = 0; i < tests.Size(); ++i) {
        section.tests.push_back({&tests[i], fmt::format("{}/{}", pointer, i)});
    }
}

// The sections of the current format (acceptance_tests.NAME.tests) and the legacy one
// (tests.NAME: [...]).
std::vector<Section> sections_of(const rapidjson::Value& root) {
    std::vector<Section> sections;
    if (const auto* current = json::member(root, "acceptance_tests")) {
        for (const auto& entry : current->GetObject()) {
            Section section{text_of(entry.name), "/acceptance_tests/" + text_of(entry.name), {}};
            // `tests:` with nothing after it (null) beside a bypass_reason: no tests, as
            // Airbyte's models read it.
            const auto* tests = json::member(entry.value, "tests");
            if (tests != nullptr && tests->IsArray()) {
                add_tests(*tests, section.pointer + "/tests", section);
            }
            section.bypass_reason = json::member(entry.value, "bypass_reason");
            sections.push_back(std::move(section));
        }
    }
    if (const auto* legacy = json::member(root, "tests")) {
        for (const auto& entry : legacy->GetObject()) {
            Section section{text_of(entry.name), "/tests/" + text_of(entry.name), {}};
            add_tests(entry.value, section.pointer, section);
            sections.push_back(std::move(section));
        }
    }
    return sections;
}

// Which conform timeout each section's timeout_seconds sets.
std::optional<std::string> timeout_kind(const std::string& section) {
    static const std::map<std::string, std::string, std::less<>> k_kinds{
        {"spec", "spec"},       {"connection", "check"},  {"discovery", "discover"},
        {"basic_read", "read"}, {"full_refresh", "read"}, {"incremental", "read"}};
    auto found = k_kinds.find(section);
    return found == k_kinds.end() ? std::nullopt : std::optional(found->second);
}

// The keys each section's tests may hold that conform maps or reports (others are reported as
// unknown to conform).
const std::map<std::string, std::vector<std::string>, std::less<>>& section_keys() {
    static const std::map<std::string, std::vector<std::string>, std::less<>> k_keys{
        {"spec",
         {"spec_path", "config_path", "timeout_seconds", "backward_compatibility_tests_config"}},
        {"connection", {"config_path", "status", "timeout_seconds"}},
        {"discovery", {"config_path", "timeout_seconds", "backward_compatibility_tests_config"}},
        {"basic_read",
         {"config_path", "configured_catalog_path", "empty_streams", "expect_records",
          "ignored_fields", "timeout_seconds"}},
        {"full_refresh",
         {"config_path", "configured_catalog_path", "ignored_fields", "timeout_seconds"}},
        {"incremental",
         {"config_path", "configured_catalog_path", "future_state", "future_state_path",
          "cursor_paths", "timeout_seconds"}}};
    return k_keys;
}

// Why conform does not honour a key it knows, by key.
const std::map<std::string, std::string, std::less<>>& unhonoured_reasons() {
    static const std::map<std::string, std::string, std::less<>> k_reasons{
        {"backward_compatibility_tests_config",
         "backward compatibility is `conform diff` against the previous version "
         "(docs/regression.md)"},
        {"cursor_paths", "conform reads each stream's cursor from the configured catalog"},
        {"test_strictness_level",
         "conform runs every check it has; --strict makes SHOULD clauses fail"}};
    return k_reasons;
}

// A destination's file: its image is a destination-* one (airbyte/destination-duckdb:dev), or the
// metadata.yaml beside it says connectorType: destination.
bool is_destination(std::string_view image, const std::filesystem::path& folder) {
    auto slash = image.rfind('/');
    if (image.substr(slash == std::string_view::npos ? 0 : slash + 1).starts_with("destination-")) {
        return true;
    }
    auto metadata = folder / "metadata.yaml";
    std::error_code unknown;
    if (!std::filesystem::is_regular_file(metadata, unknown)) {
        return false;
    }
    try {
        auto document = json::parse_json_text(
            yaml::to_json_text(read_text_file(metadata), metadata.string()), metadata.string());
        const auto* type = json::find_value(document, "/data/connectorType");
        return type != nullptr && type->IsString() &&
               std::string_view(type->GetString()) == "destination";
    } catch (const Error&) {
        return false;  // not readable: the image alone decides
    }
}

class Mapper {
public:
    Mapper(const schema::UserDocument& file, std::filesystem::path base_dir)
        : m_file(file), m_base(std::move(base_dir)) {
        m_out.SetObject();
    }

    void map(const rapidjson::Value& root) {
        const auto* image = json::member(root, "connector_image");
        m_destination = is_destination(image != nullptr ? text_of(*image) : "", m_base);
        for (const auto& entry : root.GetObject()) {
            top_level(text_of(entry.name), entry.value);
        }
        for (const auto& section : sections_of(root)) {
            map_section(section);
        }
    }

    AcceptanceMapping finish() {
        if (m_destination) {
            return finish_destination();
        }
        std::string no_config;
        if (m_config) {
            set_path("config", *m_config);
        } else {
            no_config = no_config_reason();
        }
        if (m_invalid_config) {
            set_path("invalid_config", *m_invalid_config);
        }
        if (m_catalog) {
            set_path("catalog", *m_catalog);
        }
        if (m_future_state) {
            set_path("future_state", *m_future_state);
        }
        if (m_expected_spec) {
            set_path("expected_spec", *m_expected_spec);
        }
        finish_expected_records();
        finish_empty_streams();
        finish_volatile_fields();
        finish_timeouts();
        return {json::to_json(m_out), std::move(m_warnings), std::move(no_config), false,
                std::move(m_catalogs)};
    }

    // A destination test config: the spec and connection tests; the destination's image.
    AcceptanceMapping finish_destination() {
        m_out.AddMember("protocol", "airbyte-destination", allocator());
        if (m_out.HasMember("connector")) {
            rapidjson::Value image(m_out["connector"], allocator());
            m_out.RemoveMember("connector");
            m_out.AddMember("destination", image, allocator());
        }
        if (m_config) {
            set_path("config", *m_config);
        }
        if (m_invalid_config) {
            set_path("invalid_config", *m_invalid_config);
        }
        if (m_expected_spec) {
            set_path("expected_spec", *m_expected_spec);
        }
        finish_timeouts();
        return {json::to_json(m_out), std::move(m_warnings), {}, true, {}};
    }

private:
    void top_level(const std::string& key, const rapidjson::Value& value) {
        if (key == "connector_image") {
            rapidjson::Value connector(rapidjson::kObjectType);
            connector.AddMember("image", rapidjson::Value(text_of(value).c_str(), allocator()),
                                allocator());
            m_out.AddMember("connector", connector, allocator());
        } else if (key == "test_strictness_level") {
            warn("/" + key, unhonoured_reasons().at(key));
        } else if (key != "acceptance_tests" && key != "tests") {
            warn("/" + key, "not a key conform maps");
        }
    }

    // Airbyte runs only the spec tests of a file whose connection, discovery and read tests are
    // all bypassed (connectors contributed without secrets); so does conform.
    std::string no_config_reason() const {
        std::string reason = fmt::format(
            "{} gives no connector config (a config_path of its connection, discovery or read "
            "tests)",
            m_file.origin());
        if (!m_bypass_reason.empty()) {
            reason += fmt::format(", whose tests it bypasses: \"{}\"", m_bypass_reason);
        }
        return reason + "; give one with --config FILE";
    }

    void map_section(const Section& section) {
        if (m_destination && section.name != "spec" && section.name != "connection") {
            warn(section.pointer,
                 fmt::format("a destination has no '{}' (conform writes to one in the destination "
                             "suite, docs/destinations.md)",
                             section.name));
            return;
        }
        auto keys = section_keys().find(section.name);
        if (keys == section_keys().end()) {
            warn(section.pointer,
                 fmt::format("conform has no equivalent of the '{}' tests", section.name));
            return;
        }
        if (section.bypass_reason != nullptr) {
            bypassed(section.pointer + "/bypass_reason", section.name, *section.bypass_reason);
            if (m_bypass_reason.empty() && section.name != "spec") {
                m_bypass_reason = text_of(*section.bypass_reason);
            }
        }
        for (const auto& test : section.tests) {
            map_test(section.name, keys->second, test);
        }
    }

    void bypassed(const std::string& pointer, const std::string& section,
                  const rapidjson::Value& reason) {
        warn(pointer,
             fmt::format("'{}' is bypassed ({}); conform still runs its own checks for it, and "
                         "those with nothing to judge are skipped with their reason",
                         section, text_of(reason)));
    }

    void map_test(const std::string& section, const std::vector<std::string>& keys,
                  const Test& test) {
        auto unused_config = config_not_used(section, test);
        for (const auto& entry : test.value->GetObject()) {
            auto key = text_of(entry.name);
            auto pointer = test.pointer + "/" + key;
            if (key == "bypass_reason") {
                bypassed(pointer, section, entry.value);
            } else if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
                warn(pointer, fmt::format("not a key of '{}' tests that conform maps", section));
            } else if (unused_config && is_about_the_records(key)) {
                warn(pointer, fmt::format("not used: this test reads with {}, conform with {} "
                                          "(what a read may lack or differ in belongs to the "
                                          "config it reads with)",
                                          *unused_config, *m_config));
            } else {
                map_key(section, key, entry.value, pointer, *test.value);
            }
        }
    }

    static bool is_about_the_records(const std::string& key) {
        return key == "empty_streams" || key == "expect_records" || key == "ignored_fields";
    }

    // The config of a read test when it is not the one conform runs with (the first config the
    // file names): its empty streams and expected records describe another read.
    std::optional<std::string> config_not_used(const std::string& section, const Test& test) const {
        const auto* path = json::member(*test.value, "config_path");
        if (section == "connection" || path == nullptr || !m_config) {
            return std::nullopt;
        }
        auto text = text_of(*path);
        return text == *m_config ? std::nullopt : std::optional<std::string>(text);
    }

    void map_key(const std::string& section, const std::string& key, const rapidjson::Value& value,
                 const std::string& pointer, const rapidjson::Value& test) {
        if (key == "config_path") {
            config_path(section, value, pointer, test);
        } else if (key == "status") {
            return;  // read with config_path
        } else if (key == "configured_catalog_path") {
            catalog_path(value, pointer);
        } else if (key == "timeout_seconds") {
            auto kind = *timeout_kind(section);
            m_timeouts[kind] = std::max(m_timeouts[kind], value.GetDouble());
        } else if (key == "expect_records") {
            expect_records(value, pointer);
        } else if (key == "ignored_fields") {
            ignored_fields(value);
        } else if (key == "empty_streams") {
            empty_streams(value);
        } else if (key == "future_state") {
            future_state(value, pointer);
        } else if (key == "spec_path") {
            spec_path(value, pointer);
        } else if (key == "future_state_path") {
            keep_one(m_future_state, text_of(value), pointer, "future state");
        } else {
            warn(pointer, unhonoured_reasons().at(key));
        }
    }

    void config_path(const std::string& section, const rapidjson::Value& value,
                     const std::string& pointer, const rapidjson::Value& test) {
        const auto* status = section == "connection" ? json::member(test, "status") : nullptr;
        auto outcome = status != nullptr ? text_of(*status) : "succeed";
        if (outcome == "failed") {
            keep_one(m_invalid_config, text_of(value), pointer, "invalid config");
        } else if (outcome == "exception") {
            warn(pointer.substr(0, pointer.rfind('/')) + "/status",
                 "conform expects a config check to answer FAILED, not to raise (cli.check); "
                 "this config is not used");
        } else {
            keep_one(m_config, text_of(value), pointer, "config");
        }
    }

    // Airbyte's test_match_expected compares only when the file exists (its default,
    // secrets/spec.json, seldom does); so does conform.
    void spec_path(const rapidjson::Value& value, const std::string& pointer) {
        auto path = text_of(value);
        auto resolved = resolve_under(m_base, path);
        std::error_code error;
        if (!std::filesystem::exists(resolved, error)) {
            auto why = error ? fmt::format("cannot be looked up ({})", error.message())
                             : std::string("does not exist");
            warn(pointer, fmt::format("{} {}: Airbyte's test_match_expected then compares "
                                      "nothing, nor does conform (spec.matches_expected is "
                                      "skipped)",
                                      resolved.string(), why));
            return;
        }
        keep_one(m_expected_spec, path, pointer, "expected spec");
    }

    // Every catalog is kept: they are merged into one (merge_configured_catalogs).
    void catalog_path(const rapidjson::Value& value, const std::string& pointer) {
        auto path = text_of(value);
        if (!m_catalog) {
            m_catalog = path;
        }
        auto resolved = resolve_under(m_base, path).string();
        if (std::find(m_catalogs.begin(), m_catalogs.end(), resolved) == m_catalogs.end()) {
            if (!m_catalogs.empty()) {
                warn(pointer, fmt::format("conform runs every scenario with one catalog: this one "
                                          "is merged with {} (a stream it configures "
                                          "incrementally is read incrementally)",
                                          *m_catalog));
            }
            m_catalogs.push_back(resolved);
        }
    }

    // The first path given for `what`; a different one later is reported, not used.
    void keep_one(std::optional<std::string>& kept, const std::string& path,
                  const std::string& pointer, std::string_view what) {
        if (!kept) {
            kept = path;
        } else if (*kept != path) {
            warn(pointer, fmt::format("conform runs every scenario with one {} ({}); this one is "
                                      "not used",
                                      what, *kept));
        }
    }

    void expect_records(const rapidjson::Value& value, const std::string& pointer) {
        if (const auto* path = json::member(value, "path")) {
            m_expected_path = text_of(*path);
        }
        const auto* extra_records = json::member(value, "extra_records");
        m_expected_exact = extra_records != nullptr && extra_records->IsFalse();
        const auto* exact_order = json::member(value, "exact_order");
        m_expected_in_order = exact_order != nullptr && exact_order->IsTrue();
        const auto* extra_fields = json::member(value, "extra_fields");
        if (extra_fields != nullptr && extra_fields->IsTrue()) {
            warn(pointer + "/extra_fields",
                 "conform compares each expected record whole; volatile_fields leave fields out");
        }
        for (const auto& entry : value.GetObject()) {
            auto key = text_of(entry.name);
            if (key != "path" && key != "extra_records" && key != "exact_order" &&
                key != "extra_fields") {
                warn(fmt::format("{}/{}", pointer, key),
                     "not a key of expect_records that conform maps");
            }
        }
    }

    // {stream: ["field", {"name": "field", "bypass_reason": ...}]}: JSON pointers of volatile
    // fields.
    void ignored_fields(const rapidjson::Value& value) {
        for (const auto& stream : value.GetObject()) {
            if (!stream.value.IsArray()) {
                continue;
            }
            for (const auto& field : stream.value.GetArray()) {
                const auto* name = field.IsObject() ? json::member(field, "name") : &field;
                auto text = name != nullptr ? text_of(*name) : "";
                if (!text.empty()) {
                    m_volatile[text_of(stream.name)].push_back(text.starts_with('/') ? text
                                                                                     : "/" + text);
                }
            }
        }
    }

    // [{name, bypass_reason}] (the legacy format: [name]): streams allowed to emit no record.
    void empty_streams(const rapidjson::Value& value) {
        if (!value.IsArray()) {
            return;
        }
        for (const auto& stream : value.GetArray()) {
            const auto* name = stream.IsObject() ? json::member(stream, "name") : &stream;
            auto text = name != nullptr ? text_of(*name) : "";
            if (!text.empty() && std::find(m_empty_streams.begin(), m_empty_streams.end(), text) ==
                                     m_empty_streams.end()) {
                m_empty_streams.push_back(text);
            }
        }
    }

    // {future_state_path, missing_streams, bypass_reason}: the state Airbyte's
    // test_state_with_abnormally_large_values reads from, conform's future state too.
    void future_state(const rapidjson::Value& value, const std::string& pointer) {
        for (const auto& entry : value.GetObject()) {
            auto key = text_of(entry.name);
            auto at = fmt::format("{}/{}", pointer, key);
            if (key == "future_state_path") {
                keep_one(m_future_state, text_of(entry.value), at, "future state");
            } else if (key == "bypass_reason") {
                bypassed(at, "incremental.future_state", entry.value);
            } else if (key == "missing_streams") {
                warn(at,
                     "conform does not check which streams the future state covers; a record "
                     "of an incremental stream it holds a value for fails "
                     "state.future_state_no_records, the others are not judged (named in its "
                     "note)");
            } else {
                warn(at, "not a key of future_state that conform maps");
            }
        }
    }

    void finish_expected_records() {
        if (!m_expected_path) {
            return;
        }
        rapidjson::Value expected(rapidjson::kObjectType);
        expected.AddMember("path", absolute(*m_expected_path), allocator());
        expected.AddMember("mode", rapidjson::StringRef(m_expected_exact ? "exact" : "subset"),
                           allocator());
        if (m_expected_in_order) {
            expected.AddMember("in_order", true, allocator());
        }
        m_out.AddMember("expected_records", expected, allocator());
    }

    void finish_empty_streams() {
        if (m_empty_streams.empty()) {
            return;
        }
        rapidjson::Value list(rapidjson::kArrayType);
        for (const auto& name : m_empty_streams) {
            list.PushBack(rapidjson::Value(name.c_str(), allocator()), allocator());
        }
        m_out.AddMember("empty_streams", list, allocator());
    }

    void finish_volatile_fields() {
        if (m_volatile.empty()) {
            return;
        }
        rapidjson::Value fields(rapidjson::kObjectType);
        for (const auto& [stream, pointers] : m_volatile) {
            rapidjson::Value list(rapidjson::kArrayType);
            for (const auto& pointer : pointers) {
                list.PushBack(rapidjson::Value(pointer.c_str(), allocator()), allocator());
            }
            fields.AddMember(rapidjson::Value(stream.c_str(), allocator()), list, allocator());
        }
        m_out.AddMember("volatile_fields", fields, allocator());
    }

    void finish_timeouts() {
        if (m_timeouts.empty()) {
            return;
        }
        rapidjson::Value timeouts(rapidjson::kObjectType);
        for (const auto& [kind, seconds] : m_timeouts) {
            timeouts.AddMember(rapidjson::Value(kind.c_str(), allocator()),
                               rapidjson::Value(seconds), allocator());
        }
        m_out.AddMember("timeouts", timeouts, allocator());
    }

    void set_path(const char* key, const std::string& path) {
        m_out.AddMember(rapidjson::StringRef(key), absolute(path), allocator());
    }

    rapidjson::Value absolute(const std::string& path) {
        auto resolved = resolve_under(m_base, path).string();
        return {resolved.c_str(), allocator()};
    }

    void warn(const std::string& pointer, const std::string& why) {
        m_warnings.push_back(fmt::format("{}:{}: {}: not honoured: {}", m_file.origin(),
                                         m_file.line_of(pointer), readable(pointer), why));
    }

    // "/acceptance_tests/basic_read/tests/0/exact_order" as "acceptance_tests.basic_read.tests[0]
    // .exact_order".
    static std::string readable(const std::string& pointer) {
        std::string out;
        std::size_t at = 1;
        while (at <= pointer.size()) {
            auto end = std::min(pointer.find('/', at), pointer.size());
            auto part = pointer.substr(at, end - at);
            bool index = !part.empty() && std::all_of(part.begin(), part.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
            out += index ? "[" + part + "]" : (out.empty() ? "" : ".") + part;
            at = end + 1;
        }
        return out;
    }

    rapidjson::Document::AllocatorType& allocator() { return m_out.GetAllocator(); }

    const schema::UserDocument& m_file;
    std::filesystem::path m_base;
    rapidjson::Document m_out;
    std::vector<std::string> m_warnings;
    bool m_destination = false;
    std::optional<std::string> m_config;
    std::string m_bypass_reason;  // the first of a section that needs a config
    std::optional<std::string> m_invalid_config;
    std::optional<std::string> m_catalog;
    std::vector<std::string> m_catalogs;
    std::optional<std::string> m_future_state;
    std::optional<std::string> m_expected_spec;
    std::optional<std::string> m_expected_path;
    bool m_expected_exact = false;
    bool m_expected_in_order = false;
    std::vector<std::string> m_empty_streams;
    std::map<std::string, std::vector<std::string>> m_volatile;
    std::map<std::string, double> m_timeouts;
};

}  // namespace

namespace {

// The stream a configured catalog entry configures: its name and namespace.
std::string stream_id(const rapidjson::Value& entry) {
    const auto* stream = json::member(entry, "stream");
    const auto* name = stream != nullptr ? json::member(*stream, "name") : nullptr;
    const auto* name_space = stream != nullptr ? json::member(*stream, "namespace") : nullptr;
    return fmt::format("{}\n{}", name != nullptr ? text_of(*name) : "",
                       name_space != nullptr ? text_of(*name_space) : "");
}

bool incremental(const rapidjson::Value& entry) {
    const auto* mode = json::member(entry, "sync_mode");
    return mode != nullptr && text_of(*mode) == "incremental";
}

}  // namespace

std::string merge_configured_catalogs(const std::vector<std::string>& texts,
                                      const std::vector<std::string>& origins) {
    rapidjson::Document merged;
    merged.SetObject();
    rapidjson::Value streams(rapidjson::kArrayType);
    std::map<std::string, rapidjson::SizeType> index;
    for (std::size_t i = 0; i < texts.size(); ++i) {
        auto catalog = json::parse_json_text(texts[i], origins[i]);
        const auto* entries = json::member(catalog, "streams");
        if (entries == nullptr || !entries->IsArray()) {
            throw_input_error(
                fmt::format("{}: expected a configured catalog, an object with "
                            "\"streams\"",
                            origins[i]));
        }
        for (const auto& entry : entries->GetArray()) {
            rapidjson::Value copy(entry, merged.GetAllocator());
            auto id = stream_id(entry);
            auto found = index.find(id);
            if (found == index.end()) {
                index.emplace(id, streams.Size());
                streams.PushBack(copy, merged.GetAllocator());
            } else if (incremental(entry) && !incremental(streams[found->second])) {
                streams[found->second] = copy;
            }
        }
    }
    merged.AddMember("streams", streams, merged.GetAllocator());
    return json::to_json(merged);
}

AcceptanceMapping map_acceptance_test_config(const std::string& text, const std::string& origin,
                                             const std::filesystem::path& base_dir) {
    schema::UserDocument file(yaml::to_json_text(text, origin), origin, acceptance_schema(),
                              {"acceptance-test-config", "docs/acceptance-test-config.md"});
    Mapper mapper(file, base_dir);
    mapper.map(file.root());
    return mapper.finish();
}

AcceptanceMapping read_acceptance_test_config(const std::filesystem::path& path) {
    return map_acceptance_test_config(read_text_file(path), path.string(),
                                      std::filesystem::absolute(path).parent_path());
}

}  // namespace conform::config
