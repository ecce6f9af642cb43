#include "report/files.hpp"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <unistd.h>

#include <fstream>
#include <system_error>

#include "report/certification.hpp"
#include "report/clauses.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::report {

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void write_string(Writer& writer, std::string_view key, std::string_view value) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    std::string valid = valid_utf8(value);
    writer.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
}

void write_int(Writer& writer, std::string_view key, std::int64_t value) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    writer.Int64(value);
}

// Written only when there are lines, so reports without transcripts keep their shape.
void write_transcript_lines(Writer& writer, const std::vector<TranscriptLine>& lines) {
    if (lines.empty()) {
        return;
    }
    writer.Key("context");
    writer.StartArray();
    for (const auto& line : lines) {
        writer.StartObject();
        write_int(writer, "line", static_cast<std::int64_t>(line.number));
        write_string(writer, "text", line.text);
        writer.EndObject();
    }
    writer.EndArray();
}

void write_check(Writer& writer, const CheckResult& check) {
    writer.StartObject();
    write_string(writer, "id", check.id);
    writer.Key("clauses");
    writer.StartArray();
    for (const auto& clause : check.clauses) {
        writer.String(clause.c_str());
    }
    writer.EndArray();
    writer.Key("clause_texts");
    writer.StartObject();
    for (const auto& clause : check.clauses) {
        write_string(writer, clause, clause_text(clause));
    }
    writer.EndObject();
    write_string(writer, "level", level_name(check.level));
    write_string(writer, "title", check.title);
    write_string(writer, "status", status_name(check.status));
    writer.Key("purpose");
    writer.Bool(check.purpose);
    write_int(writer, "occurrences", static_cast<std::int64_t>(check.occurrences));
    write_int(writer, "advisories", static_cast<std::int64_t>(check.advisories));
    write_string(writer, "note", excerpt(check.note, k_report_message_bytes));
    if (check.status == Status::expected_failure) {
        write_string(writer, "known_failure_reason", check.known_failure_reason);
    }
    if (check.status == Status::flaky) {
        write_string(writer, "flaky_first_failure",
                     excerpt(check.flaky_first_failure, k_report_message_bytes));
    }
    write_int(writer, "duration_ms", check.duration_ms);
    writer.Key("examples");
    writer.StartArray();
    for (const auto& example : check.examples) {
        writer.StartObject();
        write_string(writer, "message", excerpt(example.message, k_report_message_bytes));
        write_string(writer, "run", example.run);
        write_int(writer, "line", static_cast<std::int64_t>(example.line));
        write_string(writer, "excerpt", example.excerpt);
        write_transcript_lines(writer, example.context);
        if (example.findings != 1) {
            write_int(writer, "findings", static_cast<std::int64_t>(example.findings));
        }
        writer.EndObject();
    }
    writer.EndArray();
    writer.EndObject();
}

// One line per checkpoint: a run lists up to 1,000 of them, and the pretty layout of an object
// (a line per member, deeply indented) would quadruple the report's size.
void write_checkpoint(Writer& writer, const CheckpointMark& checkpoint) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> line(buffer);
    line.StartObject();
    line.Key("line");
    line.Uint64(checkpoint.line);
    line.Key("records_before");
    line.Uint64(checkpoint.records_before);
    line.Key("all_streams");
    line.Bool(checkpoint.all_streams);
    line.Key("streams");
    line.StartArray();
    for (const auto& stream : checkpoint.streams) {
        std::string valid = excerpt(stream, k_report_name_bytes);
        line.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
    }
    line.EndArray();
    line.EndObject();
    writer.RawValue(buffer.GetString(), buffer.GetSize(), rapidjson::kObjectType);
}

void write_resume(Writer& writer, const ResumedCheckpoint& resume) {
    writer.StartObject();
    write_int(writer, "checkpoint", static_cast<std::int64_t>(resume.checkpoint));
    write_int(writer, "line", static_cast<std::int64_t>(resume.line));
    write_int(writer, "records_before", static_cast<std::int64_t>(resume.records_before));
    write_string(writer, "run", resume.run);
    write_int(writer, "lost", static_cast<std::int64_t>(resume.lost));
    write_string(writer, "lost_example", excerpt(resume.lost_example, k_report_message_bytes));
    write_int(writer, "repeated", static_cast<std::int64_t>(resume.repeated));
    write_string(writer, "repeated_example",
                 excerpt(resume.repeated_example, k_report_message_bytes));
    writer.EndObject();
}

void write_timeline(Writer& writer, const CheckpointTimeline& timeline) {
    writer.Key("timeline");
    writer.StartObject();
    write_int(writer, "checkpoints_total", static_cast<std::int64_t>(timeline.total));
    writer.Key("checkpoints");
    writer.StartArray();
    for (const auto& checkpoint : timeline.checkpoints) {
        write_checkpoint(writer, checkpoint);
    }
    writer.EndArray();
    writer.Key("resumes");
    writer.StartArray();
    for (const auto& resume : timeline.resumes) {
        write_resume(writer, resume);
    }
    writer.EndArray();
    writer.EndObject();
}

void write_run(Writer& writer, const RunSummary& run) {
    writer.StartObject();
    write_string(writer, "label", run.label);
    write_string(writer, "command", run.command);
    write_string(writer, "exit", run.exit);
    write_int(writer, "duration_ms", run.duration_ms);
    write_int(writer, "records", static_cast<std::int64_t>(run.records));
    write_int(writer, "states", static_cast<std::int64_t>(run.states));
    write_int(writer, "lines", static_cast<std::int64_t>(run.lines));
    write_string(writer, "stderr_tail", run.stderr_tail);
    if (!run.cleanup_problem.empty()) {
        write_string(writer, "cleanup_problem", run.cleanup_problem);
    }
    if (run.timeline.total > 0) {
        write_timeline(writer, run.timeline);
    }
    writer.EndObject();
}

void write_scenario(Writer& writer, const ScenarioResult& scenario) {
    writer.StartObject();
    write_string(writer, "id", scenario.id);
    write_string(writer, "suite", scenario.suite);
    write_string(writer, "title", scenario.title);
    write_string(writer, "status", status_name(scenario.status));
    write_int(writer, "duration_ms", scenario.duration_ms);
    write_string(writer, "rerun", scenario.rerun);
    write_string(writer, "extension", scenario.extension);
    write_int(writer, "position", static_cast<std::int64_t>(scenario.position));
    writer.Key("checks");
    writer.StartArray();
    for (const auto& check : scenario.checks) {
        write_check(writer, check);
    }
    writer.EndArray();
    writer.Key("runs");
    writer.StartArray();
    for (const auto& run : scenario.runs) {
        write_run(writer, run);
    }
    writer.EndArray();
    writer.EndObject();
}

std::string failure_text(const CheckResult& check) {
    std::string text =
        fmt::format("{} [{}]: {}\n", check.id, fmt::join(check.clauses, ", "), check.title);
    for (const auto& example : check.examples) {
        auto where = location_of(example);
        text += fmt::format("- {}{}\n", excerpt(example.message, k_report_message_bytes),
                            where.empty() ? "" : " (" + where + ")");
        if (!example.excerpt.empty()) {
            text += fmt::format("  seen: {}\n", example.excerpt);
        }
        for (const auto& line : example.context) {
            text += fmt::format("  {}{:>7} | {}\n", line.number == example.line ? "> " : "  ",
                                line.number, line.text);
        }
    }
    return text;
}

void write_strings(Writer& writer, std::string_view key, const std::vector<std::string>& items) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    writer.StartArray();
    for (const auto& item : items) {
        std::string valid = valid_utf8(item);
        writer.String(valid.data(), static_cast<rapidjson::SizeType>(valid.size()));
    }
    writer.EndArray();
}

void write_stream(Writer& writer, const StreamCoverage& stream) {
    writer.StartObject();
    write_string(writer, "stream", excerpt(stream.stream, k_report_name_bytes));
    writer.Key("available");
    writer.Bool(stream.available);
    writer.Key("configured");
    writer.Bool(stream.configured);
    write_strings(writer, "configured_modes", stream.configured_modes);
    write_int(writer, "records", static_cast<std::int64_t>(stream.records()));
    writer.Key("modes");
    writer.StartArray();
    for (const auto& mode : stream.modes) {
        writer.StartObject();
        write_string(writer, "mode", mode.mode);
        write_int(writer, "runs", static_cast<std::int64_t>(mode.runs));
        write_int(writer, "records", static_cast<std::int64_t>(mode.records));
        writer.EndObject();
    }
    writer.EndArray();
    if (!stream.catalog_differences.empty()) {
        write_strings(writer, "catalog_differences", stream.catalog_differences);
    }
    writer.EndObject();
}

void write_clause_coverage(Writer& writer, const ClauseCoverage& clause) {
    writer.StartObject();
    write_string(writer, "clause", clause.clause);
    write_string(writer, "state", clause_state_name(clause.state()));
    write_strings(writer, "checks", clause.checks);
    write_strings(writer, "judged_by", clause.judged_by);
    writer.Key("skipped_by");
    writer.StartArray();
    for (const auto& skip : clause.skipped_by) {
        writer.StartObject();
        write_string(writer, "check", skip.check);
        write_string(writer, "reason", excerpt(skip.reason, k_report_message_bytes));
        writer.EndObject();
    }
    writer.EndArray();
    writer.EndObject();
}

void write_coverage(Writer& writer, const Coverage& coverage) {
    writer.Key("coverage");
    writer.StartObject();
    writer.Key("streams");
    writer.StartObject();
    writer.Key("applicable");
    writer.Bool(coverage.streams.applicable);
    writer.Key("available_known");
    writer.Bool(coverage.streams.available_known);
    write_string(writer, "note", coverage.streams.note);
    write_string(writer, "summary", streams_summary(coverage.streams));
    writer.Key("items");
    writer.StartArray();
    for (const auto& stream : coverage.streams.streams) {
        write_stream(writer, stream);
    }
    writer.EndArray();
    writer.EndObject();
    write_string(writer, "clause_summary", clause_counts(coverage.clauses));
    writer.Key("clauses");
    writer.StartArray();
    for (const auto& clause : coverage.clauses) {
        write_clause_coverage(writer, clause);
    }
    writer.EndArray();
    writer.EndObject();
}

void write_certification(Writer& writer, const RunReport& report) {
    writer.Key("certification");
    writer.StartArray();
    for (const auto& verdict : certify(report)) {
        writer.StartObject();
        write_string(writer, "area", verdict.area);
        write_string(writer, "level", certified_name(verdict.level));
        write_string(writer, "reason", verdict.reason);
        writer.EndObject();
    }
    writer.EndArray();
}

std::string clauses_in(const std::vector<ClauseCoverage>& clauses, ClauseState state) {
    std::vector<std::string> ids;
    for (const auto& clause : clauses) {
        if (clause.state() == state) {
            ids.push_back(clause.clause);
        }
    }
    return fmt::format("{}", fmt::join(ids, ", "));
}

// Coverage as the properties of a testsuite without tests, the place JUnit readers keep facts
// about a run.
std::string junit_coverage_suite(const Coverage& coverage) {
    std::string xml =
        "  <testsuite name=\"coverage\" tests=\"0\" failures=\"0\" skipped=\"0\">\n"
        "    <properties>\n";
    auto property = [&xml](std::string_view name, const std::string& value) {
        xml += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", name,
                           markup_escaped(value));
    };
    property("coverage.streams", streams_summary(coverage.streams));
    property("coverage.clauses", clause_counts(coverage.clauses));
    property("coverage.clauses.skipped", clauses_in(coverage.clauses, ClauseState::skipped));
    property("coverage.clauses.not_selected",
             clauses_in(coverage.clauses, ClauseState::not_selected));
    property("coverage.clauses.no_check", clauses_in(coverage.clauses, ClauseState::no_check));
    return xml + "    </properties>\n  </testsuite>\n";
}

}  // namespace

std::string to_json_report(const RunReport& report) {
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    auto totals = report.check_totals();
    writer.StartObject();
    write_int(writer, "version", k_json_report_version);
    writer.Key("metadata");
    writer.StartObject();
    write_string(writer, "conform_version", report.conform_version);
    write_string(writer, "connector", report.connector);
    write_string(writer, "connector_version", version_or_unknown(report));
    write_string(writer, "connector_version_source", report.connector_version_source);
    write_string(writer, "test_config", report.test_config);
    write_string(writer, "started_at", report.started_at);
    write_int(writer, "duration_ms", report.duration_ms);
    writer.Key("strict");
    writer.Bool(report.strict);
    writer.Key("interrupted");
    writer.Bool(report.interrupted);
    writer.Key("filtered");
    writer.Bool(report.filtered);
    write_string(writer, "shard", report.shard);
    write_string(writer, "protocol", report.protocol);
    writer.Key("recorded_transcript");
    writer.Bool(report.recorded_transcript);
    if (!report.untested.empty()) {
        write_string(writer, "untested", report.untested);
    }
    write_strings(writer, "claimed_extensions", report.claimed_extensions);
    writer.EndObject();
    write_certification(writer, report);
    writer.Key("totals");
    writer.StartObject();
    write_int(writer, "passed", static_cast<std::int64_t>(totals.passed));
    write_int(writer, "failed", static_cast<std::int64_t>(totals.failed));
    write_int(writer, "warned", static_cast<std::int64_t>(totals.warned));
    write_int(writer, "skipped", static_cast<std::int64_t>(totals.skipped));
    write_int(writer, "expected_failures", static_cast<std::int64_t>(totals.expected_failures));
    write_int(writer, "flaky", static_cast<std::int64_t>(totals.flaky));
    writer.EndObject();
    write_string(writer, "known_failures_file", report.known_failures_file);
    write_strings(writer, "stale_known_failures", report.stale_known_failures);
    if (report.coverage) {
        write_coverage(writer, *report.coverage);
    }
    writer.Key("scenarios");
    writer.StartArray();
    for (const auto& scenario : report.scenarios) {
        write_scenario(writer, scenario);
    }
    writer.EndArray();
    writer.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

std::string to_junit_xml(const RunReport& report) {
    auto totals = report.check_totals();
    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    xml += fmt::format(
        "<testsuites name=\"conform\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" "
        "time=\"{:.3f}\">\n",
        totals.passed + totals.failed + totals.warned + totals.skipped + totals.expected_failures +
            totals.flaky,
        totals.failed, totals.skipped + totals.expected_failures,
        static_cast<double>(report.duration_ms) / 1000.0);
    for (const auto& scenario : report.scenarios) {
        std::size_t failures = 0;
        std::size_t skipped = 0;
        for (const auto& check : scenario.checks) {
            failures += check.status == Status::failed ? 1 : 0;
            skipped +=
                check.status == Status::skipped || check.status == Status::expected_failure ? 1 : 0;
        }
        xml += fmt::format(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" "
            "time=\"{:.3f}\">\n",
            markup_escaped(scenario.id), scenario.checks.size(), failures, skipped,
            static_cast<double>(scenario.duration_ms) / 1000.0);
        for (const auto& check : scenario.checks) {
            xml += fmt::format("    <testcase classname=\"{}\" name=\"{}\">",
                               markup_escaped(scenario.id), markup_escaped(check.id));
            if (check.status == Status::failed) {
                xml += fmt::format(
                    "\n      <failure message=\"{}\">{}</failure>\n    ",
                    markup_escaped(check.examples.empty() ? check.title
                                                          : excerpt(check.examples[0].message,
                                                                    k_report_message_bytes)),
                    markup_escaped(failure_text(check) + "rerun: " + scenario.rerun));
            } else if (check.status == Status::skipped) {
                xml += fmt::format("\n      <skipped message=\"{}\"/>\n    ",
                                   markup_escaped(excerpt(check.note, k_report_message_bytes)));
            } else if (check.status == Status::expected_failure) {
                xml += fmt::format(
                    "\n      <skipped message=\"{}\"/>\n    ",
                    markup_escaped(excerpt("expected failure: " + check.known_failure_reason,
                                           k_report_message_bytes)));
            } else if (check.status == Status::flaky) {
                xml += fmt::format(
                    "\n      <system-out>{}</system-out>\n    ",
                    markup_escaped("FLAKY: failed, then passed on a rerun: " +
                                   check.flaky_first_failure + "\nrerun: " + scenario.rerun));
            } else if (check.status == Status::warned) {
                xml +=
                    fmt::format("\n      <system-out>{}</system-out>\n    ",
                                markup_escaped("WARNING (SHOULD clause): " + failure_text(check)));
            }
            xml += "</testcase>\n";
        }
        xml += "  </testsuite>\n";
    }
    if (report.coverage) {
        xml += junit_coverage_suite(*report.coverage);
    }
    if (report.interrupted) {
        // A test that errs, so that CI shows the run as incomplete, not as passed.
        xml +=
            "  <testsuite name=\"interrupted\" tests=\"1\" failures=\"0\" errors=\"1\" "
            "skipped=\"0\">\n"
            "    <testcase classname=\"conform\" name=\"interrupted\">\n"
            "      <error message=\"conform was interrupted; only the scenarios that finished "
            "before are reported\"/>\n"
            "    </testcase>\n"
            "  </testsuite>\n";
    }
    xml += "</testsuites>\n";
    return xml;
}

std::string prepare_report_file(const std::filesystem::path& path) {
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) {
        return "it is a folder; give a file name in it";
    }
    auto folder = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
    std::filesystem::create_directories(folder, error);
    if (error) {
        return fmt::format("cannot create its folder '{}': {}", folder.string(), error.message());
    }
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
        return fmt::format("its folder '{}' is not writable", folder.string());
    }
    if (std::filesystem::exists(path, error) && ::access(path.c_str(), W_OK) != 0) {
        return "the file exists and is not writable";
    }
    return {};
}

void write_report_file(const std::filesystem::path& path, const std::string& content) {
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << content;
    if (!file) {
        throw_internal_error(fmt::format("cannot write report '{}'", path.string()));
    }
}

}  // namespace conform::report
