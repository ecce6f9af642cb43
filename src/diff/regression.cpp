#include "diff/regression.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <algorithm>

#include "diff/schema_diff.hpp"
#include "diff/verdicts.hpp"
#include "json/parse.hpp"
#include "protocol/secrets.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::diff {

namespace {

void append(std::vector<Change>& to, std::vector<Change> more) {
    to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

void compare_documents(const std::optional<std::string>& control,
                       const std::optional<std::string>& target, const char* what,
                       DiffReport& diff) {
    if (!control || !target) {
        diff.notes.push_back(fmt::format("{} not compared: the {} answered none", what,
                                         control ? "target" : "control"));
        return;
    }
    auto before = json::parse_json_text(*control, what);
    auto after = json::parse_json_text(*target, what);
    append(diff.changes, std::string_view(what) == "spec" ? diff_spec(before, after)
                                                          : diff_catalog(before, after));
}

// Resumes the target from the control's middle checkpoint and looks for records it skips.
void compare_state(VersionProbe& target_probe, const VersionAnswers& control,
                   const VersionAnswers& target, const StreamKeys& keys, DiffReport& diff) {
    if (control.read.states.empty()) {
        diff.notes.emplace_back(
            "state compatibility not checked: the control's read wrote no STATE");
        return;
    }
    std::size_t checkpoint = (control.read.states.size() - 1) / 2;
    std::string failure;
    auto resumed =
        target_probe.read(target.read_catalog, &control.read.states[checkpoint], failure);
    if (!failure.empty()) {
        diff.changes.push_back({"state.resume_failed",
                                "read",
                                fmt::format("the target, given the control's state after STATE "
                                            "{}, {}",
                                            checkpoint + 1, failure),
                                true,
                                {}});
        return;
    }
    append(diff.changes, resume_losses(control.read, checkpoint, target.read, resumed, keys));
}

// Fields that differ between two reads of the control are not the target's doing.
StreamPointers fields_varying_between_reads(VersionProbe& control_probe,
                                            const VersionAnswers& control, const StreamKeys& keys,
                                            DiffReport& diff) {
    std::string failure;
    auto again = control_probe.read(control.read_catalog, nullptr, failure);
    if (!failure.empty()) {
        diff.notes.push_back(
            fmt::format("the control's second read {}: fields that vary between "
                        "reads are not known",
                        failure));
        return {};
    }
    auto unstable = unstable_fields(control.read, again, keys);
    for (const auto& [stream, pointers] : unstable) {
        diff.notes.push_back(
            fmt::format("{}: {} differ between two reads of the control and are "
                        "ignored (volatile_fields says so for good)",
                        stream, fmt::join(pointers, ", ")));
    }
    return unstable;
}

void compare_reads(VersionProbe& control_probe, VersionProbe& target_probe,
                   const VersionAnswers& control, const VersionAnswers& target, DiffReport& diff) {
    if (!control.read_failure.empty()) {
        diff.notes.push_back(
            fmt::format("records not compared: the control's read {}", control.read_failure));
        return;
    }
    if (!target.read_failure.empty()) {
        diff.changes.push_back({"records.read_failed",
                                "read",
                                fmt::format("the target's read {}", target.read_failure),
                                true,
                                {}});
        return;
    }
    auto keys = keys_of_catalog(control.read_catalog);
    auto unstable = fields_varying_between_reads(control_probe, control, keys, diff);
    append(diff.changes, diff_records(control.read, target.read, keys, diff.streams, unstable));
    for (const auto* side : {&control, &target}) {
        for (const auto& [stream, count] : side->read.dropped) {
            diff.notes.push_back(fmt::format(
                "{}: only the first {} records of the {} were "
                "compared ({} more)",
                stream, k_max_records_per_stream, side == &control ? "control" : "target", count));
        }
    }
    compare_state(target_probe, control, target, keys, diff);
}

}  // namespace

DiffReport compare_versions(const config::TestConfig& control, const config::TestConfig& target,
                            const report::RunReport& control_report,
                            const report::RunReport& target_report,
                            const std::vector<AcceptedChange>& accepted) {
    DiffReport diff;
    VersionProbe control_probe(control);
    VersionProbe target_probe(target);
    diff.control = control_probe.describe();
    diff.target = target_probe.describe();
    auto control_answers = control_probe.answer();
    auto target_answers = target_probe.answer();
    compare_documents(control_answers.spec, target_answers.spec, "spec", diff);
    compare_documents(control_answers.catalog, target_answers.catalog, "catalog", diff);
    compare_reads(control_probe, target_probe, control_answers, target_answers, diff);
    append(diff.changes, diff_verdicts(control_report, target_report));
    redact_secrets(diff, {control_answers.spec, target_answers.spec}, control.config_text);
    apply_accepted(diff.changes, accepted);
    std::stable_sort(diff.changes.begin(), diff.changes.end(),
                     [](const Change& left, const Change& right) {
                         return left.counts_as_breaking() > right.counts_as_breaking();
                     });
    return diff;
}

void redact_secrets(DiffReport& diff, const std::vector<std::optional<std::string>>& specs,
                    const std::string& config_text) {
    rapidjson::Document config;
    config.Parse(config_text.c_str(), config_text.size());
    if (config.HasParseError()) {
        return;
    }
    std::vector<std::string> values;
    for (const auto& spec : specs) {
        if (spec) {
            auto schema = json::parse_json_text(*spec, "spec");
            auto found = protocol::collect_secrets(schema, config);
            values.insert(values.end(), found.begin(), found.end());
        }
    }
    protocol::Secrets secrets(std::move(values));
    if (secrets.empty()) {
        return;
    }
    for (auto& change : diff.changes) {
        change.where = secrets.redact(change.where);
        change.detail = secrets.redact(change.detail);
    }
    for (auto& note : diff.notes) {
        note = secrets.redact(note);
    }
    diff.control = secrets.redact(diff.control);
    diff.target = secrets.redact(diff.target);
}

std::string to_console_text(const DiffReport& diff) {
    std::string text =
        fmt::format("\nDiff: control {}\n      target  {}\n", diff.control, diff.target);
    for (const auto& change : diff.changes) {
        auto label = change.counts_as_breaking() ? "BREAKING"
                     : change.breaking           ? "ACCEPTED"
                                                 : "harmless";
        text +=
            fmt::format("{:<8} {:<30} {}: {}\n", label, change.rule, change.where, change.detail);
        if (!change.accepted_reason.empty()) {
            text += fmt::format("         accepted: {}\n", change.accepted_reason);
        }
    }
    for (const auto& row : diff.streams) {
        text +=
            fmt::format("records  {}: {} -> {} (added {}, removed {}, changed {})\n", row.stream,
                        row.control, row.target, row.added, row.removed, row.changed);
    }
    for (const auto& note : diff.notes) {
        text += fmt::format("note     {}\n", note);
    }
    auto accepted = std::count_if(diff.changes.begin(), diff.changes.end(), [](const Change& c) {
        return c.breaking && !c.accepted_reason.empty();
    });
    text += fmt::format("\n{} change(s): {} breaking, {} accepted, {} harmless\n",
                        diff.changes.size(), diff.breaking(), accepted,
                        diff.changes.size() - diff.breaking() - static_cast<std::size_t>(accepted));
    return text;
}

std::string to_json_member(const DiffReport& diff) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    auto string = [&](const std::string& text) {
        writer.String(text.c_str(), static_cast<rapidjson::SizeType>(text.size()));
    };
    writer.StartObject();
    writer.Key("control");
    string(diff.control);
    writer.Key("target");
    string(diff.target);
    writer.Key("breaking");
    writer.Uint64(diff.breaking());
    writer.Key("changes");
    writer.StartArray();
    for (const auto& change : diff.changes) {
        writer.StartObject();
        writer.Key("rule");
        string(change.rule);
        writer.Key("where");
        string(change.where);
        writer.Key("detail");
        string(change.detail);
        writer.Key("breaking");
        writer.Bool(change.breaking);
        if (!change.accepted_reason.empty()) {
            writer.Key("accepted");
            string(change.accepted_reason);
        }
        writer.EndObject();
    }
    writer.EndArray();
    writer.Key("streams");
    writer.StartArray();
    for (const auto& row : diff.streams) {
        writer.StartObject();
        writer.Key("stream");
        string(row.stream);
        for (const auto& [key, value] :
             {std::pair{"control", row.control}, std::pair{"target", row.target},
              std::pair{"added", row.added}, std::pair{"removed", row.removed},
              std::pair{"changed", row.changed}}) {
            writer.Key(key);
            writer.Uint64(value);
        }
        writer.EndObject();
    }
    writer.EndArray();
    writer.Key("notes");
    writer.StartArray();
    for (const auto& note : diff.notes) {
        string(note);
    }
    writer.EndArray();
    writer.EndObject();
    return buffer.GetString();
}

std::string with_diff_member(const std::string& report_json, const DiffReport& diff) {
    auto closing = report_json.rfind('}');
    if (closing == std::string::npos) {
        throw_internal_error("the JSON report to extend with the diff is not an object");
    }
    return report_json.substr(0, closing) + ",\"diff\":" + to_json_member(diff) +
           report_json.substr(closing);
}

void attach_differences(report::RunReport& report, const DiffReport& diff,
                        std::string compared_with) {
    report::Differences differences;
    differences.control = std::move(compared_with);
    for (const auto& change : diff.changes) {
        differences.changes.push_back(
            {change.rule, change.where, change.detail, change.breaking, change.accepted_reason});
    }
    differences.notes = diff.notes;
    report.differences = std::move(differences);
}

std::string with_diff_testsuite(const std::string& junit_xml, const DiffReport& diff) {
    auto closing = junit_xml.rfind("</testsuites>");
    if (closing == std::string::npos) {
        throw_internal_error("the JUnit report to extend with the diff has no </testsuites>");
    }
    std::string suite = fmt::format("  <testsuite name=\"diff\" tests=\"{}\" failures=\"{}\">\n",
                                    diff.changes.size(), diff.breaking());
    for (const auto& change : diff.changes) {
        suite += fmt::format("    <testcase classname=\"diff\" name=\"{} {}\">",
                             markup_escaped(change.rule), markup_escaped(change.where));
        if (change.counts_as_breaking()) {
            suite += fmt::format("<failure message=\"{}\"/>", markup_escaped(change.detail));
        } else {
            suite +=
                fmt::format("<system-out>{}{}</system-out>", markup_escaped(change.detail),
                            change.accepted_reason.empty()
                                ? ""
                                : " (accepted: " + markup_escaped(change.accepted_reason) + ")");
        }
        suite += "</testcase>\n";
    }
    suite += "  </testsuite>\n";
    return junit_xml.substr(0, closing) + suite + junit_xml.substr(closing);
}

}  // namespace conform::diff
