#include "diff/regression.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "diff/schema_diff.hpp"
#include "diff/state_diff.hpp"
#include "diff/verdicts.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "protocol/secrets.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::diff {

namespace {

void append(std::vector<Change>& to, std::vector<Change> more) {
    to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

void compare_spec(const VersionAnswers& control, const VersionAnswers& target, DiffReport& diff) {
    if (!control.spec || !target.spec) {
        diff.notes.push_back(fmt::format("spec not compared: the {} answered none",
                                         control.spec ? "target" : "control"));
        return;
    }
    append(diff.changes, diff_spec(json::parse_json_text(*control.spec, "spec"),
                                   json::parse_json_text(*target.spec, "spec")));
}

std::vector<StreamRename> compare_catalogs(const VersionAnswers& control,
                                           const VersionAnswers& target, DiffReport& diff) {
    if (!control.catalog || !target.catalog) {
        diff.notes.push_back(fmt::format("catalog not compared: the {} answered none",
                                         control.catalog ? "target" : "control"));
        return {};
    }
    auto before = json::parse_json_text(*control.catalog, "catalog");
    auto after = json::parse_json_text(*target.catalog, "catalog");
    append(diff.changes, diff_catalog(before, after));
    return likely_renames(before, after);
}

template <typename Map>
void rename_keys(Map& map, const std::vector<StreamRename>& renames) {
    for (const auto& rename : renames) {
        auto found = map.find(rename.to);
        if (found != map.end()) {
            auto value = std::move(found->second);
            map.erase(found);
            map[rename.from] = std::move(value);
        }
    }
}

// The target's records of a renamed stream go under the control's name, to be compared with it.
void rename_streams(ReadCapture& capture, const std::vector<StreamRename>& renames) {
    rename_keys(capture.streams, renames);
    rename_keys(capture.dropped, renames);
    rename_keys(capture.states_per_stream, renames);
}

// The test config's expected records, without volatile fields, as the reads keep theirs.
ExpectedRecords expected_records_of(const config::TestConfig& config) {
    ExpectedRecords expected;
    for (const auto& record : config.expected_records) {
        auto data = json::parse_json_text(record.data_json, "expected record");
        if (auto found = config.volatile_fields.find(record.stream);
            found != config.volatile_fields.end()) {
            for (const auto& pointer : found->second) {
                json::remove_value(data, pointer);
            }
        }
        expected[record.stream].push_back(json::to_canonical_json(data));
    }
    return expected;
}

// Which streams the resumes read incrementally, and which not (their states are not tested).
std::string resumed_streams(const std::string& state_catalog, const config::TestConfig& config) {
    auto modes = streams_by_sync_mode(state_catalog);
    auto text = modes.incremental.empty()
                    ? std::string("no stream incrementally")
                    : fmt::format("incrementally: {}", fmt::join(modes.incremental, ", "));
    if (!modes.full_refresh.empty()) {
        text += fmt::format("; in full refresh, their states not tested ({}): {}",
                            config.catalog_text
                                ? "so the test config's catalog says"
                                : "the control offers no incremental sync on a cursor it "
                                  "defines or defaults",
                            fmt::join(modes.full_refresh, ", "));
    }
    return text;
}

// The control's read whose states are handed over: its plain read when that was given the state
// comparison's catalog, else one more read of that catalog.
std::optional<ReadCapture> handed_over_read(VersionProbe& control_probe,
                                            const VersionAnswers& control,
                                            const std::string& state_catalog, DiffReport& diff) {
    if (state_catalog == control.read_catalog) {
        return control.read;
    }
    std::string failure;
    auto read = control_probe.read(state_catalog, nullptr, failure);
    if (!failure.empty()) {
        diff.notes.push_back(fmt::format(
            "state compatibility not checked: the control's incremental read {}", failure));
        return std::nullopt;
    }
    return read;
}

// Resumes the target from the control's first, middle and final states and looks for records it
// skips; an upgrade hands the new version the old one's final state.
void compare_state(VersionProbe& control_probe, VersionProbe& target_probe,
                   const config::TestConfig& config, const VersionAnswers& control,
                   const VersionAnswers& target, const StreamIdentities& identities,
                   const std::vector<StreamRename>& renames, DiffReport& diff) {
    auto control_catalog = state_catalog_for(config, *control.catalog, *control.catalog);
    auto target_catalog = state_catalog_for(config, *control.catalog, *target.catalog, renames);
    auto handed_over = handed_over_read(control_probe, control, control_catalog, diff);
    if (!handed_over) {
        return;
    }
    auto points = resume_points(handed_over->states.size());
    if (points.empty()) {
        diff.notes.emplace_back(
            "state compatibility not checked: the control's read wrote no STATE");
        return;
    }
    std::vector<std::string> resumed_from;
    for (const auto& point : points) {
        std::string failure;
        auto resumed =
            target_probe.read(target_catalog, &handed_over->states[point.checkpoint], failure);
        resumed_from.push_back(point.describe(handed_over->states.size()));
        if (!failure.empty()) {
            diff.changes.push_back(
                {"state.resume_failed",
                 point.name + " state",
                 fmt::format("the target, given {}, {}", resumed_from.back(), failure),
                 true,
                 {}});
            continue;
        }
        rename_streams(resumed, renames);
        append(diff.changes, resume_losses(*handed_over, point, target.read, resumed, identities));
    }
    diff.notes.push_back(fmt::format("state compatibility: the target was resumed from {}, {}",
                                     fmt::join(resumed_from, ", "),
                                     resumed_streams(target_catalog, config)));
}

// Fields that differ between two reads of the control are not the target's doing.
StreamPointers fields_varying_between_reads(VersionProbe& control_probe,
                                            const VersionAnswers& control,
                                            const StreamIdentities& identities, DiffReport& diff) {
    std::string failure;
    auto again = control_probe.read(control.read_catalog, nullptr, failure);
    if (!failure.empty()) {
        diff.notes.push_back(
            fmt::format("the control's second read {}: fields that vary between "
                        "reads are not known",
                        failure));
        return {};
    }
    auto unstable = unstable_fields(control.read, again, identities);
    for (const auto& [stream, pointers] : unstable) {
        diff.notes.push_back(
            fmt::format("{}: {} differ between two reads of the control and are "
                        "ignored (volatile_fields says so for good)",
                        stream, fmt::join(pointers, ", ")));
    }
    return unstable;
}

// How many messages of each type the plain reads wrote, when they differ.
void compare_message_counts(const ReadCapture& control, const ReadCapture& target,
                            DiffReport& diff) {
    std::set<std::string> types;
    for (const auto* capture : {&control, &target}) {
        for (const auto& [type, count] : capture->messages) {
            types.insert(type);
        }
    }
    std::vector<std::string> differing;
    for (const auto& type : types) {
        auto before = control.messages.count(type) ? control.messages.at(type) : 0;
        auto after = target.messages.count(type) ? target.messages.at(type) : 0;
        if (before != after) {
            differing.push_back(fmt::format("{} {} -> {}", type, before, after));
        }
    }
    if (!differing.empty()) {
        diff.notes.push_back(
            fmt::format("messages of the plain reads: {}", fmt::join(differing, ", ")));
    }
}

KeySources key_sources(const VersionAnswers& control, const VersionAnswers& target,
                       const std::vector<StreamRename>& renames) {
    KeySources keys;
    keys.configured = configured_keys(control.read_catalog);
    if (control.catalog) {
        keys.control = source_defined_keys(*control.catalog);
    }
    if (target.catalog) {
        keys.target = source_defined_keys(*target.catalog);
        rename_keys(keys.target, renames);
    }
    return keys;
}

void compare_reads(VersionProbe& control_probe, VersionProbe& target_probe,
                   const config::TestConfig& config, const VersionAnswers& control,
                   const VersionAnswers& target, const std::vector<StreamRename>& renames,
                   DiffReport& diff) {
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
    auto identities =
        choose_identities(key_sources(control, target, renames), control.read, target.read);
    for (const auto& [stream, identity] : identities) {
        if (!identity.is_key()) {
            diff.notes.push_back(
                fmt::format("{}: records matched by {}", stream, identity.describe()));
        }
    }
    auto unstable = fields_varying_between_reads(control_probe, control, identities, diff);
    append(diff.changes, diff_records(control.read, target.read, identities, diff.streams, unstable,
                                      expected_records_of(config)));
    for (const auto* side : {&control, &target}) {
        for (const auto& [stream, count] : side->read.dropped) {
            diff.notes.push_back(fmt::format(
                "{}: only the first {} records of the {} were "
                "compared ({} more)",
                stream, k_max_records_per_stream, side == &control ? "control" : "target", count));
        }
    }
    compare_message_counts(control.read, target.read, diff);
    append(diff.changes, diff_state_shapes(control.read, target.read));
    compare_state(control_probe, target_probe, config, control, target, identities, renames, diff);
}

// An upgrade keeps the user's configured catalog: when streams were removed or renamed, the
// target reads the control's one, and what it says when it refuses goes with those changes.
void read_old_catalog(VersionProbe& target_probe, const VersionAnswers& control, DiffReport& diff) {
    auto lost = [](const Change& change) {
        return change.rule == "catalog.stream_removed" || change.rule == "catalog.stream_renamed";
    };
    if (control.read_catalog.empty() ||
        std::none_of(diff.changes.begin(), diff.changes.end(), lost)) {
        return;
    }
    std::string failure;
    target_probe.read(control.read_catalog, nullptr, failure);
    if (failure.empty()) {
        diff.notes.emplace_back(
            "the target read the control's configured catalog without an error (streams it no "
            "longer has are skipped)");
        return;
    }
    for (auto& change : diff.changes) {
        if (lost(change)) {
            change.detail += fmt::format(
                "; given the control's configured catalog, as an upgrade keeps it, the target's "
                "read {}",
                failure);
        }
    }
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
    auto control_answers = control_probe.discover();
    auto target_answers = target_probe.discover();
    compare_spec(control_answers, target_answers, diff);
    auto renames = compare_catalogs(control_answers, target_answers, diff);
    if (!renames.empty() && target_answers.catalog) {
        target_answers.read_catalog = catalog_for(target, *target_answers.catalog, renames);
    }
    control_probe.read_into(control_answers);
    target_probe.read_into(target_answers);
    rename_streams(target_answers.read, renames);
    compare_reads(control_probe, target_probe, target, control_answers, target_answers, renames,
                  diff);
    read_old_catalog(target_probe, control_answers, diff);
    append(diff.changes, diff_verdicts(control_report, target_report, &diff.notes));
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
        text += fmt::format(
            "records  {}: {} -> {} (added {}, removed {}, changed {}; STATE {} -> {}), matched by "
            "{}\n",
            row.stream, row.control, row.target, row.added, row.removed, row.changed,
            row.control_states, row.target_states, row.identity);
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
        writer.Key("identity");
        string(row.identity);
        for (const auto& [key, value] :
             {std::pair{"control", row.control}, std::pair{"target", row.target},
              std::pair{"added", row.added}, std::pair{"removed", row.removed},
              std::pair{"changed", row.changed}, std::pair{"control_states", row.control_states},
              std::pair{"target_states", row.target_states}}) {
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
    for (const auto& row : diff.streams) {
        differences.streams.push_back({row.stream, row.identity, row.control, row.target, row.added,
                                       row.removed, row.changed, row.control_states,
                                       row.target_states});
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
