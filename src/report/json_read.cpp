#include "report/json_read.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "json/parse.hpp"
#include "util/error.hpp"

namespace conform::report {

namespace {

// Reads fields of one JSON object, naming the file and the field's path in every error.
class Fields {
public:
    Fields(const rapidjson::Value& object, std::string file, std::string path)
        : m_object(object), m_file(std::move(file)), m_path(std::move(path)) {
        if (!object.IsObject()) {
            fail("", "an object");
        }
    }

    std::string text(const char* key) const {
        auto* value = find(key);
        if (value == nullptr) {
            return {};
        }
        if (!value->IsString()) {
            fail(key, "a string");
        }
        return {value->GetString(), value->GetStringLength()};
    }

    std::int64_t integer(const char* key) const {
        auto* value = find(key);
        if (value == nullptr) {
            return 0;
        }
        if (!value->IsInt64()) {
            fail(key, "an integer");
        }
        return value->GetInt64();
    }

    bool flag(const char* key) const {
        auto* value = find(key);
        if (value == nullptr) {
            return false;
        }
        if (!value->IsBool()) {
            fail(key, "true or false");
        }
        return value->GetBool();
    }

    std::vector<std::string> texts(const char* key) const {
        std::vector<std::string> items;
        for (const auto& item : array(key)) {
            if (!item.IsString()) {
                fail(key, "an array of strings");
            }
            items.emplace_back(item.GetString(), item.GetStringLength());
        }
        return items;
    }

    rapidjson::Value::ConstArray array(const char* key) const {
        static const rapidjson::Value k_empty(rapidjson::kArrayType);
        auto* value = find(key);
        if (value == nullptr) {
            return k_empty.GetArray();
        }
        if (!value->IsArray()) {
            fail(key, "an array");
        }
        return value->GetArray();
    }

    bool has(const char* key) const { return find(key) != nullptr; }

    Fields object(const char* key) const {
        auto* value = find(key);
        if (value == nullptr) {
            fail(key, "an object (missing)");
        }
        return {*value, m_file, at(key)};
    }

    Fields item(const rapidjson::Value& value, const char* key, std::size_t index) const {
        return {value, m_file, fmt::format("{}/{}", at(key), index)};
    }

    [[noreturn]] void fail(std::string_view key, std::string_view expected) const {
        throw_input_error(fmt::format("{}: {}: expected {} (is this a conform JSON report?)",
                                      m_file, at(key).empty() ? "/" : at(key), expected));
    }

private:
    const rapidjson::Value* find(const char* key) const {
        auto member = m_object.FindMember(key);
        return member == m_object.MemberEnd() ? nullptr : &member->value;
    }

    std::string at(std::string_view key) const {
        return key.empty() ? m_path : fmt::format("{}/{}", m_path, key);
    }

    const rapidjson::Value& m_object;
    std::string m_file;
    std::string m_path;
};

Status status_from(const Fields& fields, const char* key) {
    auto name = fields.text(key);
    for (auto status : k_statuses) {
        if (status_name(status) == name) {
            return status;
        }
    }
    fields.fail(key, "passed, warned, failed, skipped, expected-failure or flaky");
}

std::vector<TranscriptLine> read_transcript_lines(const Fields& example) {
    std::vector<TranscriptLine> lines;
    std::size_t index = 0;
    for (const auto& value : example.array("context")) {
        auto line = example.item(value, "context", index++);
        lines.push_back({static_cast<std::uint64_t>(line.integer("line")), line.text("text")});
    }
    return lines;
}

std::uint64_t count(const Fields& fields, const char* key) {
    auto value = fields.integer(key);
    if (value < 0) {
        fields.fail(key, "a count (0 or more)");
    }
    return static_cast<std::uint64_t>(value);
}

CheckResult read_check(const Fields& fields) {
    CheckResult check;
    check.id = fields.text("id");
    check.clauses = fields.texts("clauses");
    check.level = fields.text("level") == "SHOULD" ? Level::should : Level::must;
    check.title = fields.text("title");
    check.status = status_from(fields, "status");
    // Reports before version 2's "purpose" counted every check of a scenario as one it exists for.
    check.purpose = !fields.has("purpose") || fields.flag("purpose");
    check.occurrences = static_cast<std::uint64_t>(fields.integer("occurrences"));
    if (fields.has("advisories")) {
        check.advisories = static_cast<std::uint64_t>(fields.integer("advisories"));
    }
    check.note = fields.text("note");
    if (fields.has("known_failure_reason")) {
        check.known_failure_reason = fields.text("known_failure_reason");
    }
    if (fields.has("flaky_first_failure")) {
        check.flaky_first_failure = fields.text("flaky_first_failure");
    }
    check.duration_ms = fields.integer("duration_ms");
    std::size_t index = 0;
    for (const auto& value : fields.array("examples")) {
        auto example = fields.item(value, "examples", index++);
        check.examples.push_back({example.text("message"), example.text("run"),
                                  static_cast<std::uint64_t>(example.integer("line")),
                                  example.text("excerpt"), read_transcript_lines(example),
                                  example.has("findings") ? count(example, "findings") : 1});
    }
    return check;
}

CheckpointTimeline read_timeline(const Fields& fields) {
    CheckpointTimeline timeline;
    timeline.total = count(fields, "checkpoints_total");
    std::size_t index = 0;
    for (const auto& value : fields.array("checkpoints")) {
        auto item = fields.item(value, "checkpoints", index++);
        timeline.checkpoints.push_back({count(item, "line"), count(item, "records_before"),
                                        item.flag("all_streams"), item.texts("streams")});
    }
    index = 0;
    for (const auto& value : fields.array("resumes")) {
        auto item = fields.item(value, "resumes", index++);
        timeline.resumes.push_back({count(item, "checkpoint"), count(item, "line"),
                                    count(item, "records_before"), item.text("run"),
                                    count(item, "lost"), item.text("lost_example"),
                                    count(item, "repeated"), item.text("repeated_example")});
    }
    return timeline;
}

RunSummary read_run(const Fields& fields) {
    RunSummary run;
    run.label = fields.text("label");
    run.command = fields.text("command");
    run.exit = fields.text("exit");
    run.duration_ms = fields.integer("duration_ms");
    run.records = static_cast<std::uint64_t>(fields.integer("records"));
    run.states = static_cast<std::uint64_t>(fields.integer("states"));
    run.lines = static_cast<std::uint64_t>(fields.integer("lines"));
    run.stderr_tail = fields.text("stderr_tail");
    run.cleanup_problem = fields.text("cleanup_problem");
    if (fields.has("timeline")) {
        run.timeline = read_timeline(fields.object("timeline"));
    }
    return run;
}

ScenarioResult read_scenario(const Fields& fields) {
    ScenarioResult scenario;
    scenario.id = fields.text("id");
    scenario.suite = fields.text("suite");
    scenario.title = fields.text("title");
    scenario.status = status_from(fields, "status");
    scenario.duration_ms = fields.integer("duration_ms");
    scenario.rerun = fields.text("rerun");
    scenario.extension = fields.text("extension");
    scenario.position = static_cast<std::size_t>(fields.integer("position"));
    std::size_t index = 0;
    for (const auto& value : fields.array("checks")) {
        scenario.checks.push_back(read_check(fields.item(value, "checks", index++)));
    }
    index = 0;
    for (const auto& value : fields.array("runs")) {
        scenario.runs.push_back(read_run(fields.item(value, "runs", index++)));
    }
    return scenario;
}

// The "diff" member that conform diff and run --baseline add (diff::to_json_member).
Differences read_differences(const Fields& fields) {
    Differences differences;
    differences.control = fields.text("control");
    std::size_t index = 0;
    for (const auto& value : fields.array("changes")) {
        auto change = fields.item(value, "changes", index++);
        differences.changes.push_back({change.text("rule"), change.text("where"),
                                       change.text("detail"), change.flag("breaking"),
                                       change.text("accepted")});
    }
    index = 0;
    for (const auto& value : fields.array("streams")) {
        auto row = fields.item(value, "streams", index++);
        auto count = [&](const char* key) { return static_cast<std::uint64_t>(row.integer(key)); };
        differences.streams.push_back({row.text("stream"), row.text("identity"), count("control"),
                                       count("target"), count("added"), count("removed"),
                                       count("changed"), count("control_states"),
                                       count("target_states")});
    }
    differences.notes = fields.texts("notes");
    return differences;
}

StreamCoverage read_stream(const Fields& fields) {
    StreamCoverage stream;
    stream.stream = fields.text("stream");
    stream.available = fields.flag("available");
    stream.configured = fields.flag("configured");
    stream.configured_modes = fields.texts("configured_modes");
    std::size_t index = 0;
    for (const auto& value : fields.array("modes")) {
        auto mode = fields.item(value, "modes", index++);
        stream.modes.push_back({mode.text("mode"), count(mode, "runs"), count(mode, "records")});
    }
    stream.catalog_differences = fields.texts("catalog_differences");
    return stream;
}

ClauseCoverage read_clause_coverage(const Fields& fields) {
    ClauseCoverage clause;
    clause.clause = fields.text("clause");
    clause.checks = fields.texts("checks");
    clause.judged_by = fields.texts("judged_by");
    std::size_t index = 0;
    for (const auto& value : fields.array("skipped_by")) {
        auto skip = fields.item(value, "skipped_by", index++);
        clause.skipped_by.push_back({skip.text("check"), skip.text("reason")});
    }
    return clause;
}

// The state of each clause is not read: it follows from its checks (ClauseCoverage::state).
Coverage read_coverage(const Fields& fields) {
    Coverage coverage;
    auto streams = fields.object("streams");
    coverage.streams.applicable = streams.flag("applicable");
    coverage.streams.available_known = streams.flag("available_known");
    coverage.streams.note = streams.text("note");
    std::size_t index = 0;
    for (const auto& value : streams.array("items")) {
        coverage.streams.streams.push_back(read_stream(streams.item(value, "items", index++)));
    }
    index = 0;
    for (const auto& value : fields.array("clauses")) {
        coverage.clauses.push_back(read_clause_coverage(fields.item(value, "clauses", index++)));
    }
    return coverage;
}

}  // namespace

RunReport read_json_report(const std::filesystem::path& path) {
    auto document = json::parse_json_file(path);
    Fields root(document, path.string(), "");
    auto version = root.integer("version");
    if (version != 1 && version != 2) {
        root.fail("version", "1 or 2 (the report versions this conform reads)");
    }
    RunReport report;
    auto metadata = root.object("metadata");
    report.conform_version = metadata.text("conform_version");
    report.connector = metadata.text("connector");
    report.connector_version_source = metadata.text("connector_version_source");
    // "unknown" without a source is what the writer puts for no version.
    report.connector_version = metadata.text("connector_version");
    if (report.connector_version_source.empty() && report.connector_version == "unknown") {
        report.connector_version.clear();
    }
    report.test_config = metadata.text("test_config");
    report.started_at = metadata.text("started_at");
    report.duration_ms = metadata.integer("duration_ms");
    report.strict = metadata.flag("strict");
    report.interrupted = metadata.flag("interrupted");
    report.filtered = metadata.flag("filtered");
    report.claimed_extensions = metadata.texts("claimed_extensions");
    report.shard = metadata.text("shard");
    if (metadata.has("protocol")) {
        report.protocol = metadata.text("protocol");
    }
    report.recorded_transcript = metadata.flag("recorded_transcript");
    if (metadata.has("untested")) {
        report.untested = metadata.text("untested");
    }
    std::size_t index = 0;
    for (const auto& value : root.array("scenarios")) {
        report.scenarios.push_back(read_scenario(root.item(value, "scenarios", index++)));
        for (auto& run : report.scenarios.back().runs) {
            run.counts_messages = report.protocol != k_meltano_extension;
        }
    }
    if (root.has("coverage")) {
        report.coverage = read_coverage(root.object("coverage"));
    }
    if (root.has("diff")) {
        report.differences = read_differences(root.object("diff"));
    }
    return report;
}

}  // namespace conform::report
