// The Singer checks across syncs: --properties (SG-CLI-4), selection (SG-SEL-1, SG-SEL-2),
// incremental syncs and resumes (SG-INC-2, SG-INC-3, SG-INC-4) and the start date (SG-START-1).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "checks/singer/helpers.hpp"
#include "checks/singer/singer.hpp"
#include "suite/compare.hpp"

namespace conform::checks::sg {

namespace {

using singer::Role;
using singer::StreamSeen;

std::vector<std::string> stream_names(const Inputs& inputs) {
    std::vector<std::string> names;
    if (inputs.catalog() != nullptr) {
        for (const auto& stream : inputs.catalog()->streams()) {
            names.push_back(stream.stream);
        }
    }
    names.emplace_back("(a stream not in the catalog)");
    return names;
}

const StreamSeen* seen_in(const TapRun& run, const std::string& stream) {
    auto found = run.streams.find(stream);
    return found == run.streams.end() ? nullptr : &found->second;
}

// False (and a skip) when `run` did not exit 0: sg.sync_exit says why.
bool usable(const TapRun& run, Verdict& verdict) {
    if (run.exited_with(0)) {
        return true;
    }
    verdict.skip(fmt::format("{} gave {} (see sg.sync_exit)", run.label, run.outcome()));
    return false;
}

void fail_records(Verdict& verdict, const Inputs& inputs, const std::vector<suite::RecordRef>& refs,
                  std::uint64_t count, const std::string& what, const TapRun& run) {
    if (count == 0) {
        return;
    }
    auto names = stream_names(inputs);
    verdict.fail(fmt::format("{} {}: {}", count, what,
                             refs.empty() ? std::string() : suite::describe_record(refs[0], names)),
                 {run.label, refs.empty() ? 0 : refs[0].entry.line, ""});
}

// SG-SEL-3: a sync of a selected stream emits its records (tap-tester's sync tests assert at
// least one per stream), unless the test config says the source has none.
void check_streams_have_records(const Inputs& inputs, Verdict& verdict) {
    const auto& run = inputs.first(0).runs.front();
    if (!usable(run, verdict)) {
        return;
    }
    const auto& empty = inputs.test_config().empty_streams;
    std::vector<std::string> silent;
    std::vector<std::string> listed_with_records;
    for (const auto& stream : inputs.catalog()->streams()) {
        if (!under_test(inputs, stream)) {
            continue;
        }
        const auto* seen = seen_in(run, stream.stream);
        bool has_records = seen != nullptr && seen->records > 0;
        if (std::find(empty.begin(), empty.end(), stream.tap_stream_id) != empty.end()) {
            if (has_records) {
                listed_with_records.push_back(stream.tap_stream_id);
            }
            continue;
        }
        verdict.judged();
        if (!has_records) {
            silent.push_back(stream.tap_stream_id);
        }
    }
    if (!silent.empty()) {
        verdict.fail(fmt::format("{} of the selected stream(s) emitted no record: {}{}",
                                 silent.size(), fmt::join(silent, ", "),
                                 run.record_count == 0 ? " (no stream did: does the tap read its "
                                                         "selection from --catalog?)"
                                                       : "; list a stream the source has no data "
                                                         "for in empty_streams"),
                     {run.label, 0, ""});
    }
    if (!listed_with_records.empty()) {
        verdict.note(fmt::format("listed in empty_streams, yet emitted records: {}",
                                 fmt::join(listed_with_records, ", ")));
    }
}

void check_properties_flag(const Inputs& inputs, Verdict& verdict) {
    const auto& catalog_run = inputs.first(0).runs.front();
    const auto& properties_run = inputs.first(1).runs.front();
    if (!usable(catalog_run, verdict)) {
        return;
    }
    verdict.judged();
    if (!properties_run.exited_with(0)) {
        fail_with_stderr(
            verdict, properties_run,
            fmt::format("with --properties: {}, expected exit code 0", properties_run.outcome()));
        return;
    }
    if (catalog_run.record_count == 0 && properties_run.record_count > 0) {
        verdict.fail(fmt::format("the --catalog sync emitted no record, the --properties sync {}: "
                                 "the tap reads its selection from --properties only, and every "
                                 "sync conform runs with --catalog tests nothing (a wrapper can "
                                 "pass --catalog on as --properties)",
                                 properties_run.record_count),
                     {properties_run.label, 0, ""});
        return;
    }
    auto diff = suite::diff_records(suite::RecordSet(catalog_run.records),
                                    suite::RecordSet(properties_run.records),
                                    suite::CompareBy::identity, suite::CompareBy::identity);
    // A missing record is shown where the --catalog sync emitted it.
    fail_records(verdict, inputs, diff.examples.missing, diff.missing_count,
                 "record(s) the --catalog sync emitted are missing with --properties", catalog_run);
    // New records of a stream both syncs selected are data added between the two syncs (a
    // database written to); only records of a stream conform did not select break the clause.
    const auto& streams = inputs.catalog()->streams();
    auto selected = [&](std::uint32_t index) {
        return index < streams.size() && under_test(inputs, streams[index]);
    };
    std::uint64_t unselected = 0;
    for (const auto& [index, counts] : diff.by_stream) {
        unselected += selected(index) ? 0 : counts.extra;
    }
    std::vector<suite::RecordRef> unselected_examples;
    std::vector<suite::RecordRef> new_examples;
    for (const auto& ref : diff.examples.extra) {
        (selected(ref.entry.stream) ? new_examples : unselected_examples).push_back(ref);
    }
    fail_records(verdict, inputs, unselected_examples, unselected,
                 "record(s) with --properties of streams the catalog left unselected",
                 properties_run);
    if (diff.extra_count > unselected) {
        verdict.note(fmt::format(
            "{} record(s) of the selected streams with --properties that the --catalog sync "
            "before it did not emit (data added between the two syncs): not a finding{}",
            diff.extra_count - unselected,
            new_examples.empty()
                ? std::string()
                : "; first: " + suite::describe_record(new_examples[0], stream_names(inputs))));
    }
}

void check_selection(const Inputs& inputs, Verdict& verdict) {
    const auto& catalog = *inputs.catalog();
    const auto& full = inputs.first(0).runs.front();
    for (std::size_t need = 0; need < 3; ++need) {
        for (const auto* run : inputs.runs(need)) {
            for (const auto& stream : catalog.streams()) {
                const auto* seen = seen_in(*run, stream.stream);
                if (seen == nullptr) {
                    continue;
                }
                for (const auto& [field, inclusion] : stream.inclusion) {
                    if (inclusion == "unsupported" && seen->fields.contains(field)) {
                        verdict.fail(fmt::format("records of '{}' carry '{}', which the catalog "
                                                 "marks \"inclusion\": \"unsupported\"",
                                                 stream.stream, field),
                                     {run->label, 0, ""});
                    }
                }
            }
        }
    }
    for (std::size_t need = 1; need < 3; ++need) {
        const auto& step = inputs.first(need);
        const auto& run = step.runs.front();
        if (!usable(run, verdict)) {
            continue;
        }
        // Leaving out what the full sync never emitted proves nothing; emitting it is a finding.
        auto emitted_in_full = [&full](const std::string& stream) {
            const auto* seen = seen_in(full, stream);
            return seen != nullptr && seen->records > 0 ? seen : nullptr;
        };
        for (const auto& id : step.unselected_streams) {
            const auto* stream = catalog.find(id);
            const auto* seen = seen_in(run, stream->stream);
            if (emitted_in_full(stream->stream) != nullptr) {
                verdict.judged();
            }
            if (seen != nullptr && (seen->records > 0 || seen->schemas > 0)) {
                verdict.fail(fmt::format("stream '{}' was not selected, yet the sync emitted {} "
                                         "SCHEMA(s) and {} RECORD(s) of it",
                                         stream->stream, seen->schemas, seen->records),
                             {run.label, seen->first_record_line, ""});
            }
        }
        for (const auto& [id, chosen] : step.selection) {
            const auto* stream = catalog.find(id);
            const auto* seen = seen_in(run, stream->stream);
            if (!chosen.selected || seen == nullptr || seen->records == 0) {
                continue;
            }
            auto automatic = stream->automatic_fields();
            const auto* before = emitted_in_full(stream->stream);
            for (const auto& field : chosen.deselected_fields) {
                if (automatic.contains(field)) {
                    continue;  // emitted all the same: sg.automatic_fields
                }
                if (before != nullptr && before->fields.contains(field)) {
                    verdict.judged();
                }
                if (seen->fields.contains(field)) {
                    verdict.fail(fmt::format("field '{}' of '{}' was deselected, yet records carry "
                                             "it",
                                             field, stream->stream),
                                 {run.label, 0, ""});
                }
            }
        }
    }
    if (full.exited_with(0)) {
        verdict.note(
            "every selected stream and field in the first sync, then one stream and one "
            "available field left out, then every field (automatic ones are emitted all the same)");
        for (const auto& note : inputs.first(1).notes) {
            verdict.note(note);  // what was left out
        }
    }
}

void check_automatic_fields(const Inputs& inputs, Verdict& verdict) {
    const auto& catalog = *inputs.catalog();
    const auto& full = inputs.first(0).runs.front();
    const auto& minimal = inputs.first(1).runs.front();
    if (!usable(full, verdict) || !usable(minimal, verdict)) {
        return;
    }
    std::vector<std::string> without_automatic;
    for (const auto& stream : catalog.streams()) {
        const auto* before = seen_in(full, stream.stream);
        if (before == nullptr || before->records == 0 || !before->always) {
            continue;
        }
        if (stream.automatic_fields().empty()) {
            // Nothing is left selected: a tap may skip the stream (tap-postgres on a view).
            without_automatic.push_back(stream.stream);
            continue;
        }
        verdict.judged();
        const auto* after = seen_in(minimal, stream.stream);
        if (after == nullptr || after->records == 0) {
            verdict.fail(fmt::format("'{}' emitted {} record(s) with every field selected and none "
                                     "with its automatic fields only",
                                     stream.stream, before->records),
                         {minimal.label, 0, ""});
            continue;
        }
        for (const auto& field : stream.automatic_fields()) {
            if (before->always->contains(field) && !after->always->contains(field)) {
                verdict.fail(fmt::format("records of '{}' lack the automatic field '{}' when only "
                                         "automatic fields are selected",
                                         stream.stream, field),
                             {minimal.label, 0, ""});
            }
        }
    }
    if (!without_automatic.empty()) {
        constexpr std::string_view kinds =
            "an automatic field (key property, offered replication key or inclusion automatic)";
        auto streams = fmt::format("{}", fmt::join(without_automatic, ", "));
        if (verdict.judged_count() == 0) {
            verdict.skip(fmt::format("no stream with records has {}: {}", kinds, streams));
        } else {
            verdict.note(fmt::format("not judged, without {}: {}", kinds, streams));
        }
    }
    for (const auto& note : inputs.first(1).notes) {
        verdict.note(note);
    }
}

// Records of `stream` older than the floor the run was given fail; records equal to it are
// re-emitted boundary records (`advise` when `equal_is_should`).
void judge_floor(const singer::CatalogStream& stream, const TapRun& run, Verdict& verdict,
                 const std::string& floor_is, bool equal_is_should) {
    verdict.judged();
    const auto* seen = seen_in(run, stream.stream);
    if (seen == nullptr) {
        return;
    }
    if (seen->below_floor > 0) {
        // A key the tap never offered may be one it cannot filter on: say whose choice it was.
        auto chosen_by = stream.replication_key_offered()
                             ? std::string()
                             : fmt::format(
                                   " ('{}' is the test config's replication key: the "
                                   "tap's catalog offers none for '{}')",
                                   stream.replication_key, stream.stream);
        verdict.fail(fmt::format("{} record(s) of '{}' older than {}: {}{}", seen->below_floor,
                                 stream.stream, floor_is, seen->below_example, chosen_by),
                     {run.label, 0, ""});
    }
    if (equal_is_should && seen->at_floor > 0) {
        verdict.advise(fmt::format("{} record(s) of '{}' equal to {} were emitted again (the "
                                   "boundary re-read: at-least-once): {}",
                                   seen->at_floor, stream.stream, floor_is, seen->at_example),
                       {run.label, 0, ""});
    }
}

bool has_bookmark(const std::vector<singer::Bookmark>& bookmarks, const std::string& stream) {
    return std::any_of(bookmarks.begin(), bookmarks.end(),
                       [&](const singer::Bookmark& bookmark) { return bookmark.stream == stream; });
}

void check_incremental_no_older(const Inputs& inputs, Verdict& verdict) {
    const auto& second = inputs.first(1).runs.front();
    if (!usable(second, verdict)) {
        return;
    }
    for (const auto& stream : inputs.catalog()->streams()) {
        if (!stream.incremental() || !under_test(inputs, stream)) {
            continue;
        }
        if (!has_bookmark(second.start_bookmarks, stream.stream)) {
            const auto* first = seen_in(inputs.first(0).runs.front(), stream.stream);
            if (first == nullptr || first->records == 0) {
                verdict.note(
                    fmt::format("'{}' emitted no record in the first sync: no bookmark "
                                "to hold it to",
                                stream.stream));
                continue;
            }
            verdict.skip(
                fmt::format("the final STATE of the first sync holds no bookmark of '{}' "
                            "(asked INCREMENTAL on '{}'): nothing to compare with",
                            stream.stream, stream.replication_key));
            continue;
        }
        judge_floor(stream, second, verdict, "the final STATE's bookmark", true);
    }
    if (verdict.judged_count() == 0 && !verdict.skipped()) {
        verdict.skip(
            "no incremental stream under test emitted a record in the first sync: no bookmark to "
            "hold a record to");
    }
    verdict.note(
        "the bookmark is the state's replication_key_value (or the replication key's "
        "member) of the stream; kept per partition, that of the partition the record belongs "
        "to (an SDK context its fields agree with, or a parent it names in a field, as "
        "tap-github's _sdc_repository), else the lowest of its partitions; the count is over "
        "all partitions, the example one record");
}

// SG-INC-2 from a state the tap did not write: every bookmark far ahead of its newest record (the
// floors the run was given). Whether the tap kept those bookmarks is sg.bookmarks_monotonic's
// (SG-INC-1, "nor below the bookmark a sync was given"), in the same run.
void check_future_state(const Inputs& inputs, Verdict& verdict) {
    const auto& run = inputs.first(1).runs.front();
    if (!usable(run, verdict)) {
        return;
    }
    for (const auto& stream : inputs.catalog()->streams()) {
        if (stream.incremental() && under_test(inputs, stream) &&
            has_bookmark(run.start_bookmarks, stream.stream)) {
            judge_floor(stream, run, verdict, "the far-future bookmark it was given", false);
        }
    }
    for (const auto& note : inputs.first(1).notes) {
        verdict.note(note);
    }
}

// The only version a stream's RECORDs carried before STATE k of `full`; none when they carried
// several, none, or conform lost count.
std::optional<std::int64_t> version_before(const StreamSeen& seen, std::uint64_t k) {
    std::optional<std::int64_t> found;
    for (const auto& span : seen.versions) {
        if (span.first_checkpoint >= k) {
            break;
        }
        if (!span.version || (found && *found != *span.version)) {
            return std::nullopt;
        }
        found = span.version;
    }
    return seen.versions_complete ? found : std::nullopt;
}

// SG-AV-1 on resume: a stream the resumed sync activates another version of loses, at a target
// that honours ACTIVATE_VERSION, every row the full sync sent before STATE k, unless the resumed
// sync emits it again (tap-mysql 1.17.7 resumes an interrupted full-table sync from its last
// primary key under a new version: the rows before it are dropped).
void judge_dropped_by_version(const Inputs& inputs, const TapRun& full, const TapRun& resumed,
                              Verdict& verdict) {
    auto k = resumed.resumed_from;
    for (const auto& [name, seen] : resumed.streams) {
        const auto* before = seen_in(full, name);
        if (!seen.activated || before == nullptr) {
            continue;
        }
        auto version = version_before(*before, k);
        if (!version || *version == *seen.activated) {
            continue;
        }
        auto index = inputs.catalog()->index_of(name);
        auto of_stream = [index](const protocol::RecordEntry& entry) {
            return entry.stream == index;
        };
        suite::RecordSet sent(full.records, [index, k](const protocol::RecordEntry& entry) {
            return entry.stream == index && entry.checkpoint < k;
        });
        auto diff = suite::diff_records(sent, suite::RecordSet(resumed.records, of_stream),
                                        suite::CompareBy::identity, suite::CompareBy::identity);
        fail_records(verdict, inputs, diff.examples.missing, diff.missing_count,
                     fmt::format("record(s) of '{}' the full sync emitted before STATE {} (version "
                                 "{}) are dropped when the sync resumed from it activates version "
                                 "{}, which they are not part of: it did not emit them again",
                                 name, k, *version, *seen.activated),
                     full);
    }
}

void check_resume_no_loss(const Inputs& inputs, Verdict& verdict) {
    const auto& full = inputs.first(0).runs.front();
    for (const auto* resumed : inputs.runs(1)) {
        if (!resumed->exited_with(0)) {
            verdict.judged();
            fail_with_stderr(verdict, *resumed,
                             fmt::format("{}: {}", resumed->label, resumed->outcome()));
            continue;
        }
        auto k = resumed->resumed_from;
        suite::RecordSet owed(full.records, [k](const protocol::RecordEntry& entry) {
            return entry.checkpoint >= k;
        });
        verdict.judged(owed.size());
        auto diff = suite::diff_records(owed, suite::RecordSet(resumed->records),
                                        suite::CompareBy::identity, suite::CompareBy::identity);
        fail_records(verdict, inputs, diff.examples.missing, diff.missing_count,
                     fmt::format("record(s) the full sync emitted after STATE {} are missing "
                                 "after resuming from it",
                                 k),
                     full);
        judge_dropped_by_version(inputs, full, *resumed, verdict);
    }
    for (const auto& note : inputs.first(1).notes) {
        verdict.note(note);  // how many of the distinct STATEs were resumed from
    }
}

void check_currently_syncing(const Inputs& inputs, Verdict& verdict) {
    const auto& step = inputs.first(1);
    const auto& run = step.runs.front();
    if (!usable(run, verdict)) {
        return;
    }
    auto first_line = [&run](const std::string& stream) -> std::uint64_t {
        const auto* seen = seen_in(run, stream);
        return seen == nullptr ? 0 : seen->first_record_line;
    };
    const auto& interrupted = step.interrupted_stream;
    auto interrupted_at = first_line(interrupted);
    std::uint64_t first_synced = 0;
    std::string first_synced_stream;
    for (const auto& stream : step.synced_streams) {
        auto at = first_line(stream);
        if (at != 0 && (first_synced == 0 || at < first_synced)) {
            first_synced = at;
            first_synced_stream = stream;
        }
    }
    auto crafted = [&step](const std::string& stream) {
        return std::find(step.synced_streams.begin(), step.synced_streams.end(), stream) !=
                   step.synced_streams.end() ||
               std::find(step.pending_streams.begin(), step.pending_streams.end(), stream) !=
                   step.pending_streams.end();
    };
    for (const auto& stream : run.stream_order) {
        if (stream == interrupted || interrupted_at == 0) {
            break;
        }
        if (!crafted(stream)) {
            continue;  // a child stream, synced inside its parent
        }
        verdict.fail(
            fmt::format("the state marks '{}' currently_syncing, yet '{}' was synced "
                        "first (line {}, '{}' at line {})",
                        interrupted, stream, first_line(stream), interrupted, interrupted_at),
            {run.label, first_line(stream), ""});
        break;
    }
    if (interrupted_at != 0) {
        verdict.judged();
    } else {
        // tap-mysql leaves a LOG_BASED stream named currently_syncing to its binlog phase, last.
        verdict.note(
            fmt::format("the interrupted stream '{}' emitted no record in the sync from "
                        "the crafted state: whether it was synced first is not judged",
                        interrupted));
    }
    std::vector<std::string> overtaken;  // pending streams synced after an already synced one
    for (const auto& stream : step.pending_streams) {
        auto at = first_line(stream);
        if (at == 0) {
            continue;
        }
        verdict.judged();
        if (first_synced != 0 && first_synced < at) {
            overtaken.push_back(fmt::format("'{}' (line {})", stream, at));
        }
    }
    if (!overtaken.empty()) {
        verdict.fail(fmt::format("'{}' (already synced) came at line {}, before the pending "
                                 "stream(s) {}",
                                 first_synced_stream, first_synced, fmt::join(overtaken, ", ")),
                     {run.label, first_synced, ""});
    }
    if (const auto* seen = seen_in(run, interrupted); seen != nullptr && seen->below_floor > 0) {
        verdict.fail(fmt::format("{} record(s) of the interrupted stream '{}' older than its "
                                 "bookmark: {}",
                                 seen->below_floor, interrupted, seen->below_example),
                     {run.label, 0, ""});
    }
    for (const auto& note : step.notes) {
        verdict.note(note);
    }
}

void check_start_date(const Inputs& inputs, Verdict& verdict) {
    const auto& full = inputs.first(0).runs.front();
    const auto& step = inputs.first(1);
    const auto& later = step.runs.front();
    if (!usable(full, verdict) || !usable(later, verdict)) {
        return;
    }
    for (const auto& stream : inputs.catalog()->streams()) {
        const auto* before = seen_in(full, stream.stream);
        // A stream the full sync emitted nothing of shows nothing by emitting nothing later.
        if (stream.incremental() && under_test(inputs, stream) && before != nullptr &&
            before->records > 0) {
            judge_floor(stream, later, verdict, fmt::format("the start date {}", step.start_date),
                        false);
        }
    }
    auto diff = suite::diff_records(suite::RecordSet(full.records), suite::RecordSet(later.records),
                                    suite::CompareBy::identity, suite::CompareBy::identity);
    fail_records(verdict, inputs, diff.examples.extra, diff.extra_count,
                 "record(s) with the later start date that the full sync did not emit", later);
    verdict.note(fmt::format("{} record(s) with the later start date, {} with the config as given",
                             later.record_count, full.record_count));
}

}  // namespace

singer::Checks sync_checks() {
    using singer::Need;
    using enum Role;
    using engine::Basis;
    using engine::Count;
    using engine::Reference;
    return {
        {{"sg.properties_flag",
          {"SG-CLI-4"},
          report::Level::should,
          "the older --properties gives the records --catalog gives"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one),
          Need(properties_sync, {}, {}, std::nullopt, Count::one)},
         "the sync with --catalog failed",
         check_properties_flag},
        {{"sg.streams_have_records",
          {"SG-SEL-3"},
          report::Level::should,
          "a sync emits records of every selected stream, but those listed as empty"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one)},
         "every stream under test is listed in empty_streams",
         check_streams_have_records},
        {{"sg.selection_honoured",
          {"SG-SEL-1"},
          report::Level::must,
          "only selected streams and fields are emitted; unsupported fields never"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one),
          Need(partial_selection, {}, {}, std::nullopt, Count::one),
          Need(minimal_selection, {}, {}, std::nullopt, Count::one)},
         "nothing conform left out had been emitted by the full sync (no record of the left-out "
         "stream, no deselected field in its records): leaving it out proves nothing",
         check_selection},
        {{"sg.automatic_fields",
          {"SG-SEL-2"},
          report::Level::must,
          "with only automatic fields selected, records still carry every automatic field"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one),
          Need(minimal_selection, {}, {}, std::nullopt, Count::one)},
         "no stream emitted records",
         check_automatic_fields},
        {{"sg.incremental_no_older",
          {"SG-INC-2"},
          report::Level::must,
          "a sync from the final STATE emits nothing older than its bookmark (equal values: a "
          "SHOULD)"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one),
          Need(from_final_state, {}, {}, Basis<Role>{Reference::state, full_sync}, Count::one)},
         "no stream under test is incremental",
         check_incremental_no_older},
        {{"sg.future_state_no_older",
          {"SG-INC-2"},
          report::Level::must,
          "a sync from the final STATE with its bookmarks moved far ahead emits nothing older "
          "than them"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one),
          Need(future_state, {}, {}, Basis<Role>{Reference::state, full_sync}, Count::one)},
         "no incremental stream under test had a bookmark to move ahead",
         check_future_state},
        {{"sg.resume_no_loss",
          {"SG-INC-3"},
          report::Level::must,
          "resuming from any emitted STATE emits every record the full sync emitted after it"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one),
          Need(resumed, {}, {}, Basis<Role>{Reference::state, full_sync}, Count::one)},
         "the full sync emitted no record after the STATEs resumed from: nothing was owed",
         check_resume_no_loss},
        {{"sg.resume_currently_syncing",
          {"SG-INC-4"},
          report::Level::should,
          "a mid-list currently_syncing state syncs the interrupted stream first, then the pending "
          "ones, then those already synced"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one),
          Need(crafted_state, {}, {}, Basis<Role>{Reference::state, full_sync}, Count::one)},
         "neither the interrupted stream nor a pending one emitted records",
         check_currently_syncing},
        {{"sg.start_date_honoured",
          {"SG-START-1"},
          report::Level::must,
          "with a later start date the records are a subset, every replication key at or after "
          "it"},
         {Need(full_sync, {}, {}, std::nullopt, Count::one),
          Need(later_start_date, {}, {}, std::nullopt, Count::one)},
         "the full sync emitted no record of an incremental stream under test",
         check_start_date},
    };
}

}  // namespace conform::checks::sg
