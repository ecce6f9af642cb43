// The checks of Estuary's protocol extensions (X-*): resume, tail, range, merge patches,
// projections, compatibility. Each reads exactly the steps its needs match.
#include <fmt/format.h>

#include <rapidjson/document.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "checks/airbyte/airbyte.hpp"
#include "checks/airbyte/helpers.hpp"
#include "json/merge_patch.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "suite/commits.hpp"
#include "suite/compare.hpp"
#include "suite/field_diff.hpp"

namespace conform::checks::airbyte {

namespace {

using engine::Reference;
using suite::CommitModel;
using suite::CompareBy;
using suite::DiffCounts;
using suite::RecordSet;
using suite::StepResult;

// Reports the differences of `diff`, each kind with its own wording (an empty text leaves that
// kind out).
// Where a record example was seen, so the report can show its line.
engine::Where where_of(const suite::RecordRef& record) {
    return {record.run == nullptr ? std::string() : record.run->label, record.entry.line};
}

void report_diff(const DiffCounts& diff, const std::vector<std::string>& names, Verdict& verdict,
                 std::string_view missing_text, std::string_view extra_text) {
    if (!missing_text.empty()) {
        for (const auto& record : diff.examples.missing) {
            verdict.fail(fmt::format("{}: {}", missing_text, describe_record(record, names)),
                         where_of(record));
        }
        verdict.count_more(diff.missing_count - diff.examples.missing.size());
    }
    if (!extra_text.empty()) {
        for (const auto& record : diff.examples.extra) {
            verdict.fail(fmt::format("{}: {}", extra_text, describe_record(record, names)),
                         where_of(record));
        }
        verdict.count_more(diff.extra_count - diff.examples.extra.size());
    }
}

// --- Streams without a primary key --------------------------------------------------------------
// Without a primary key a record's only identity is its content: a record whose values changed
// between two reads is one missing and one extra record, which conform cannot tell from a lost
// record and an unrelated new one. Per stream it fails only what the counts prove: the missing
// records beyond the extra ones (each extra one may be a changed version of one missing record),
// and the extra ones beyond the missing; the rest is advice, said once per stream and check.

bool has_primary_key(const Inputs& inputs, std::uint32_t stream) {
    return !inputs.catalog().streams[stream].primary_key.empty();
}

RecordSet::Filter keyed_streams(const Inputs& inputs) {
    return [&inputs](const protocol::RecordEntry& entry) {
        return has_primary_key(inputs, entry.stream);
    };
}

RecordSet::Filter keyless_streams(const Inputs& inputs) {
    return [&inputs](const protocol::RecordEntry& entry) {
        return !has_primary_key(inputs, entry.stream);
    };
}

std::uint64_t beyond(std::uint64_t count, std::uint64_t other) {
    return count > other ? count - other : 0;
}

// The records of streams without a key that differed in content but may be changed versions of
// each other, over every comparison of one check.
class UndecidedKeyless {
public:
    void add(std::uint32_t stream, std::uint64_t records, std::string_view when) {
        auto& undecided = m_streams[stream];
        undecided.records += records;
        if (undecided.comparisons++ == 0) {
            undecided.first_when = when;
        }
    }

    std::string describe(const Inputs& inputs, std::uint32_t stream) const {
        const auto& undecided = m_streams.at(stream);
        return fmt::format("without a primary key, {} record(s) of '{}' differ in content {}{}",
                           undecided.records, inputs.stream_names()[stream], undecided.first_when,
                           undecided.comparisons > 1 ? fmt::format(" and in {} more comparison(s)",
                                                                   undecided.comparisons - 1)
                                                     : std::string());
    }

    std::vector<std::uint32_t> streams() const {
        std::vector<std::uint32_t> streams;
        for (const auto& [stream, undecided] : m_streams) {
            streams.push_back(stream);
        }
        return streams;
    }

private:
    struct Stream {
        std::uint64_t records = 0;
        std::uint64_t comparisons = 0;
        std::string first_when;
    };
    std::map<std::uint32_t, Stream> m_streams;
};

constexpr std::string_view k_cannot_tell =
    "conform cannot tell a lost record from a changed one (declare a primary key in the test "
    "config's catalog to judge them)";

// A comparison's one advisory per stream without a key (a SHOULD: AP-READ-6's non-determinism is
// the likely cause, as for a changed record with a key).
void advise_undecided(const UndecidedKeyless& undecided, const Inputs& inputs, Verdict& verdict) {
    for (auto stream : undecided.streams()) {
        verdict.advise(fmt::format("{}: {}", undecided.describe(inputs, stream), k_cannot_tell));
    }
}

std::optional<suite::RecordRef> first_of_stream(const std::vector<suite::RecordRef>& records,
                                                std::uint32_t stream) {
    auto found = std::find_if(records.begin(), records.end(), [stream](const auto& record) {
        return record.entry.stream == stream;
    });
    return found == records.end() ? std::nullopt : std::optional(*found);
}

struct DiffTexts {
    std::string_view missing;
    std::string_view extra;  // empty: extra records are no finding
    std::string_view when;
    // The same key with other content warns (AP-READ-6); the tail and next-read checks only ask
    // for the records to be delivered.
    bool warn_changed = true;
};

void fail_proven(std::string_view text, std::uint64_t proven, std::string_view stream,
                 std::string_view counts, const std::optional<suite::RecordRef>& example,
                 const std::vector<std::string>& names, Verdict& verdict) {
    verdict.fail(fmt::format("{}: at least {} record(s) of '{}', a stream without a primary key "
                             "({}){}",
                             text, proven, stream, counts,
                             example ? ", e.g. " + describe_record(*example, names) : ""),
                 example ? where_of(*example) : engine::Where{});
}

// `diff` compared records of streams without a key by content: per stream, fails the missing
// records beyond the extra ones and the extra beyond the missing, and keeps the rest undecided.
// Returns the records proven missing.
std::uint64_t report_keyless(const DiffCounts& diff, const Inputs& inputs, Verdict& verdict,
                             const DiffTexts& texts, UndecidedKeyless& undecided) {
    auto names = inputs.stream_names();
    std::uint64_t proven_missing = 0;
    for (const auto& [stream, counts] : diff.by_stream) {
        auto counted = fmt::format(
            "{} missing by content, {} other record(s) that may be changed "
            "versions of them",
            counts.missing, counts.extra);
        if (auto lost = beyond(counts.missing, counts.extra); lost > 0) {
            proven_missing += lost;
            fail_proven(texts.missing, lost, names[stream], counted,
                        first_of_stream(diff.examples.missing, stream), names, verdict);
        }
        if (auto extra = beyond(counts.extra, counts.missing); extra > 0 && !texts.extra.empty()) {
            fail_proven(
                texts.extra, extra, names[stream],
                fmt::format("{} extra by content, {} missing", counts.extra, counts.missing),
                first_of_stream(diff.examples.extra, stream), names, verdict);
        }
        if (auto changed = std::min(counts.missing, counts.extra); changed > 0) {
            undecided.add(stream, changed, texts.when);
        }
    }
    return proven_missing;
}

bool is_incremental(const Inputs& inputs, const protocol::RecordEntry& entry) {
    return inputs.catalog().streams[entry.stream].incremental();
}

// A resumed or sharded read that failed proves nothing about what it would have emitted: it fails
// the check, unless its baseline (the uninterrupted or full-range read) failed too, which is
// cli.read's finding; then the comparison is skipped rather than failed twice.
bool baseline_failed(const protocol::Observation& baseline, Verdict& verdict) {
    if (exited_cleanly(baseline)) {
        return false;
    }
    verdict.skip(
        fmt::format("the baseline read '{}' failed ({}): nothing to compare with (see "
                    "cli.read)",
                    baseline.label, baseline.process.ending()));
    return true;
}

void require_clean_exit(const protocol::Observation& run, std::string_view what, Verdict& verdict,
                        const protocol::Observation* baseline) {
    if (baseline != nullptr && !exited_cleanly(*baseline)) {
        return;  // baseline_failed() said why
    }
    if (!exited_cleanly(run)) {
        verdict.fail(fmt::format("{} did not succeed: {}", what, run.process.ending()),
                     {run.label, 0, stderr_tail(run)});
    }
}

// What resuming from checkpoint k of `base` owes: every record that no checkpoint up to k
// committed, in every stream. A full-refresh stream may be read whole again, resumed, or skipped
// once a checkpoint marked it complete: all of these deliver what is owed, so only incremental
// streams are held to exactly-once.
struct ResumeExpectation {
    RecordSet owed;
    RecordSet committed;            // incremental records committed by k
    RecordSet committed_to_reread;  // full-refresh records committed by k
    RecordSet all_committed;
};

ResumeExpectation expectation_after(const Inputs& inputs, const protocol::Observation& base,
                                    std::size_t checkpoint) {
    auto commits = std::make_shared<const CommitModel>(base);
    auto owed = [commits, checkpoint](const protocol::RecordEntry& entry) {
        return commits->commit_of(entry) > checkpoint;
    };
    auto incremental = [&inputs](const protocol::RecordEntry& entry) {
        return is_incremental(inputs, entry);
    };
    return {RecordSet(base, owed),
            RecordSet(base, [=](const auto& entry) { return !owed(entry) && incremental(entry); }),
            RecordSet(base, [=](const auto& entry) { return !owed(entry) && !incremental(entry); }),
            RecordSet(base, [=](const auto& entry) { return !owed(entry); })};
}

// The test config says the stream emits every record again on each read (reemitting_streams).
bool reemits_by_design(const Inputs& inputs, std::uint32_t stream) {
    const auto& listed = inputs.test_config().reemitting_streams;
    return std::find(listed.begin(), listed.end(), inputs.catalog().streams[stream].name) !=
           listed.end();
}

struct ResumeComparison {
    RecordSet owed;
    RecordSet resumed_records;
    DiffCounts lost;  // owed records of streams with a key the resumed run did not emit
    // Streams without a key: owed records the resumed run did not emit (missing) and records of
    // the resumed run the uninterrupted one never emitted (extra), by content.
    DiffCounts keyless;
    suite::Overlap reemitted;  // incremental records committed by the checkpoint, emitted again
    suite::Changed changed;    // owed records emitted again under the same key with other content
    std::size_t checkpoint;
    const protocol::Observation* base;
    const protocol::Observation* resumed;
    // The resumed read failed: what it emitted proves nothing, so nothing above was compared.
    bool resumed_failed = false;

    std::uint64_t records_compared() const {
        return base->records.size() + resumed->records.size();
    }
    std::uint64_t proven_lost() const {
        std::uint64_t count = lost.missing_count;
        for (const auto& [stream, counts] : keyless.by_stream) {
            count += beyond(counts.missing, counts.extra);
        }
        return count;
    }
};

// Per stream without a key, what the resumed read lacks of what was owed, and what it emitted
// that the uninterrupted read never did (each may be an owed record with other values).
DiffCounts compare_keyless_resume(const Inputs& inputs, const RecordSet& owed,
                                  const protocol::Observation& base, const RecordSet& resumed) {
    auto keyless = keyless_streams(inputs);
    auto counts = lost_records(owed.where(keyless), resumed.where(keyless));
    auto fresh = diff_records(RecordSet(base, keyless), resumed.where(keyless), CompareBy::content,
                              CompareBy::content);
    counts.examples.extra = std::move(fresh.examples.extra);
    counts.extra_count = fresh.extra_count;
    for (const auto& [stream, fresh_counts] : fresh.by_stream) {
        counts.by_stream[stream].extra = fresh_counts.extra;
    }
    return counts;
}

// A record without its primary key has no identity: comparisons by identity leave it out, and
// say so (read.primary_key_present reports it).
void note_keyless(const protocol::Observation& run, Verdict& verdict) {
    if (run.records_without_key > 0) {
        verdict.note(
            fmt::format("{} record(s) of '{}' lack their primary key and were left out "
                        "of the comparison (see read.primary_key_present)",
                        run.records_without_key, run.label));
    }
}

// What a check that needs a resumed read's records says of one that failed: that read's failure
// is state.resume_no_loss's (or the shard check's) one finding.
void skip_failed_resume(const ResumeComparison& comparison, Verdict& verdict) {
    verdict.skip(
        fmt::format("the read resumed from checkpoint {} did not succeed ({}): its "
                    "records were not compared",
                    comparison.checkpoint + 1, comparison.resumed->process.ending()));
}

// Keeps what the resume from `comparison.checkpoint` lost and repeated for the checkpoint timeline.
void note_resume(const ResumeComparison& comparison, const Inputs& inputs) {
    auto names = inputs.stream_names();
    const auto& state = comparison.base->checkpoints[comparison.checkpoint];
    report::ResumedCheckpoint resume;
    resume.checkpoint = comparison.checkpoint + 1;
    resume.line = state.line;
    resume.records_before = state.records_before;
    resume.run = comparison.resumed->label;
    resume.lost = comparison.proven_lost();
    if (!comparison.lost.examples.missing.empty()) {
        resume.lost_example = describe_record(comparison.lost.examples.missing.front(), names);
    }
    resume.repeated = comparison.reemitted.count;
    if (!comparison.reemitted.examples.empty()) {
        resume.repeated_example = describe_record(comparison.reemitted.examples.front(), names);
    }
    inputs.note_resume(*comparison.base, std::move(resume));
}

// Compares every run of the resumed `steps` with what its checkpoint of the base run owed.
std::vector<ResumeComparison> compare_resumes(const Inputs& inputs,
                                              const std::vector<const StepResult*>& steps,
                                              Verdict& verdict) {
    std::vector<ResumeComparison> comparisons;
    for (const auto* step : steps) {
        const auto* base = inputs.base_of(*step);
        if (base == nullptr || !base->ran()) {
            continue;  // the step did not run either: the framework says why
        }
        for (std::size_t i = 0; i < step->runs.size(); ++i) {
            const auto& plan = step->plans[i];
            const auto& base_run = base->runs[plan.base_run];
            if (baseline_failed(base_run, verdict)) {
                continue;
            }
            const auto& resumed_run = step->runs[i];
            if (!exited_cleanly(resumed_run)) {
                comparisons.push_back(
                    {{}, {}, {}, {}, {}, {}, *plan.checkpoint, &base_run, &resumed_run, true});
                continue;
            }
            auto expectation = expectation_after(inputs, base_run, *plan.checkpoint);
            RecordSet resumed(resumed_run);
            RecordSet resumed_once(resumed_run, [&inputs](const protocol::RecordEntry& entry) {
                return !reemits_by_design(inputs, entry.stream);
            });
            note_keyless(base_run, verdict);
            note_keyless(resumed_run, verdict);
            auto keyed = keyed_streams(inputs);
            comparisons.push_back(
                {expectation.owed, resumed,
                 lost_records(expectation.owed.where(keyed), resumed.where(keyed)),
                 compare_keyless_resume(inputs, expectation.owed, base_run, resumed),
                 overlap_records(resumed_once, expectation.committed, CompareBy::identity),
                 changed_records(expectation.owed, resumed), *plan.checkpoint, &base_run,
                 &resumed_run});
            note_resume(comparisons.back(), inputs);
        }
    }
    return comparisons;
}

// The same key with other content is not a lost record: it is what AP-READ-6 (a SHOULD) calls
// non-determinism, so it warns here too, naming the fields that differ.
void report_changed(const suite::Changed& changed, const Inputs& inputs, Verdict& verdict,
                    std::string_view when) {
    auto names = inputs.stream_names();
    for (const auto& [expected, actual] : changed.examples) {
        auto fields = suite::describe_changes(
            expected, actual, inputs.catalog().streams[expected.entry.stream].volatile_pointers);
        verdict.advise(
            fmt::format("{}: same key, other content: {} became {}{}; declare the "
                        "field volatile if it may change between reads (AP-READ-6)",
                        when, describe_record(expected, names), describe_record(actual, names),
                        fields.empty() ? "" : " (" + fields + ")"));
    }
    verdict.count_more(0, changed.count - changed.examples.size());
}

// Records that should be the same: a record missing or extra by identity is a finding at the
// check's level; the same key with other content only warns (report_changed); streams without a
// key fail only what the counts prove (report_keyless). Returns the records proven missing.
std::uint64_t compare_records(const RecordSet& expected, const RecordSet& actual,
                              const Inputs& inputs, Verdict& verdict, const DiffTexts& texts,
                              UndecidedKeyless& undecided) {
    auto keyed = keyed_streams(inputs);
    auto keyless = keyless_streams(inputs);
    auto diff = diff_records(expected.where(keyed), actual.where(keyed), CompareBy::identity,
                             CompareBy::identity);
    report_diff(diff, inputs.stream_names(), verdict, texts.missing, texts.extra);
    if (texts.warn_changed) {
        report_changed(changed_records(expected, actual), inputs, verdict, texts.when);
    }
    auto keyless_diff = diff_records(expected.where(keyless), actual.where(keyless),
                                     CompareBy::content, CompareBy::content);
    return diff.missing_count + report_keyless(keyless_diff, inputs, verdict, texts, undecided);
}

// Two reads that should emit the same records (compare_records).
void compare_reads(const protocol::Observation& expected, const protocol::Observation& actual,
                   const Inputs& inputs, Verdict& verdict, const DiffTexts& texts) {
    verdict.judged(expected.records.size() + actual.records.size());
    UndecidedKeyless undecided;
    compare_records(RecordSet(expected), RecordSet(actual), inputs, verdict, texts, undecided);
    advise_undecided(undecided, inputs, verdict);
}

std::string checkpoint_text(const ResumeComparison& comparison) {
    return fmt::format("checkpoint {} (line {})", comparison.checkpoint + 1,
                       comparison.base->checkpoints[comparison.checkpoint].line);
}

void check_resume_loss(const Inputs& inputs, Verdict& verdict) {
    std::uint64_t failed_resumes = 0;
    UndecidedKeyless undecided;
    for (const auto& comparison : compare_resumes(inputs, inputs.steps(0), verdict)) {
        auto when = "after resuming from " + checkpoint_text(comparison);
        if (comparison.resumed_failed) {
            verdict.judged();
            require_clean_exit(*comparison.resumed,
                               "the read resumed from " + checkpoint_text(comparison), verdict,
                               comparison.base);
            ++failed_resumes;
            continue;
        }
        verdict.judged(comparison.records_compared());
        auto text = fmt::format(
            "lost {}: emitted by the uninterrupted read and committed by no "
            "checkpoint up to it, never emitted by the resumed read",
            when);
        report_diff(comparison.lost, inputs.stream_names(), verdict, text, "");
        report_keyless(comparison.keyless, inputs, verdict, {text, "", when}, undecided);
        report_changed(comparison.changed, inputs, verdict, when);
    }
    advise_undecided(undecided, inputs, verdict);
    if (failed_resumes > 0) {
        verdict.note(
            fmt::format("the records of the {} resumed read(s) that failed are not "
                        "compared: each failure is the one finding",
                        failed_resumes));
    }
    verdict.note(
        "every stream owes what the checkpoint had not committed; a full-refresh stream "
        "may be read again whole");
}

// The same record re-emitted after several checkpoints is one example naming them all, standing
// for one finding per re-emission.
class ReemittedRecords {
public:
    void add(const suite::RecordRef& record, std::size_t checkpoint) {
        auto identity = std::make_pair(record.entry.stream, record.entry.identity);
        auto [found, inserted] = m_index.try_emplace(identity, m_groups.size());
        if (inserted) {
            m_groups.push_back({record, {}});
        }
        m_groups[found->second].checkpoints.push_back(checkpoint);
    }

    void report(const std::vector<std::string>& names, Verdict& verdict) const {
        for (const auto& group : m_groups) {
            const auto& checkpoints = group.checkpoints;
            verdict.fail(
                fmt::format("re-emitted after resuming from checkpoint{} {}: already committed "
                            "by {}: {}",
                            checkpoints.size() == 1 ? "" : "s", fmt::join(checkpoints, ", "),
                            checkpoints.size() == 1 ? "it" : "each",
                            describe_record(group.first, names)),
                where_of(group.first), checkpoints.size());
        }
    }

private:
    struct Group {
        suite::RecordRef first;
        std::vector<std::size_t> checkpoints;
    };
    std::map<std::pair<std::uint32_t, json::Digest>, std::size_t> m_index;
    std::vector<Group> m_groups;
};

void check_resume_exactly_once(const Inputs& inputs, Verdict& verdict) {
    auto names = inputs.stream_names();
    const auto& streams = inputs.catalog().streams;
    if (std::none_of(streams.begin(), streams.end(),
                     [](const auto& stream) { return stream.incremental(); })) {
        verdict.skip(
            "no incremental stream in the configured catalog: full-refresh streams may "
            "be read again whole");
        return;
    }
    ReemittedRecords reemitted;
    for (const auto& comparison : compare_resumes(inputs, inputs.steps(0), verdict)) {
        if (comparison.resumed_failed) {
            skip_failed_resume(comparison, verdict);
            continue;
        }
        verdict.judged(comparison.records_compared());
        for (const auto& record : comparison.reemitted.examples) {
            reemitted.add(record, comparison.checkpoint + 1);
        }
        verdict.count_more(comparison.reemitted.count - comparison.reemitted.examples.size());
    }
    reemitted.report(names, verdict);
    verdict.note("incremental streams only: a full-refresh stream is read whole again");
    if (!inputs.test_config().reemitting_streams.empty()) {
        verdict.note(
            fmt::format("not judged, as the test config's reemitting_streams says they "
                        "emit every record again by design: {}",
                        fmt::join(inputs.test_config().reemitting_streams, ", ")));
    }
}

// A loss confined, stream by stream, to the records that the checkpoint after k commits means
// STATE k claimed records that were emitted only after it.
// The streams whose lost records a resume comparison knows: those with a key, and those without
// one whose resumed read emitted nothing the uninterrupted read lacked (no record changed).
RecordSet::Filter lost_known(const Inputs& inputs, const ResumeComparison& comparison) {
    return [&inputs, &comparison](const protocol::RecordEntry& entry) {
        auto found = comparison.keyless.by_stream.find(entry.stream);
        return has_primary_key(inputs, entry.stream) ||
               found == comparison.keyless.by_stream.end() || found->second.extra == 0;
    };
}

void check_commit_boundaries(const Inputs& inputs, Verdict& verdict) {
    UndecidedKeyless undecided;
    for (const auto& comparison : compare_resumes(inputs, inputs.steps(0), verdict)) {
        if (comparison.resumed_failed) {
            skip_failed_resume(comparison, verdict);
            continue;
        }
        verdict.judged(comparison.records_compared());
        for (const auto& [stream, counts] : comparison.keyless.by_stream) {
            if (counts.missing > 0 && counts.extra > 0) {
                undecided.add(stream, counts.missing,
                              "after resuming from " + checkpoint_text(comparison));
            }
        }
        auto known = lost_known(inputs, comparison);
        auto lost =
            lost_subset(comparison.owed.where(known), comparison.resumed_records.where(known));
        if (lost.empty()) {
            continue;
        }
        CommitModel commits(*comparison.base);
        auto k = comparison.checkpoint;
        auto in_next_window = [&](const protocol::RecordEntry& entry) {
            return commits.commit_of(entry) == commits.next_covering(entry.stream, k + 1);
        };
        bool all_in_next_window = true;
        std::map<std::uint32_t, std::set<std::uint64_t>> lost_lines;  // per stream
        lost.scan([&](std::uint64_t, const protocol::RecordEntry& entry) {
            all_in_next_window = all_in_next_window && in_next_window(entry);
            lost_lines[entry.stream].insert(entry.line);
        });
        if (!all_in_next_window) {
            continue;
        }
        // A STATE ahead of its records loses the first records after it, those it claimed; a
        // record skipped later in the window is the resumed read's loss, not the STATE's.
        std::uint64_t window = 0;
        bool prefix = true;
        std::map<std::uint32_t, std::size_t> seen_in_window;
        comparison.base->records.scan([&](std::size_t, const protocol::RecordEntry& entry) {
            auto found = lost_lines.find(entry.stream);
            if (found == lost_lines.end() || !in_next_window(entry)) {
                return;
            }
            ++window;
            bool is_lost = found->second.count(entry.line) > 0;
            bool within_prefix = seen_in_window[entry.stream]++ < found->second.size();
            prefix = prefix && is_lost == within_prefix;
        });
        if (!prefix) {
            continue;
        }
        const auto& state = comparison.base->checkpoints[k];
        verdict.fail(fmt::format("STATE {} (line {}) covers records emitted after it: resuming "
                                 "from it lost {} of the {} record(s) that the next STATE of "
                                 "their stream commits",
                                 k + 1, state.line, lost.size(), window),
                     {comparison.base->label, state.line});
    }
    std::vector<std::string> undecided_streams;
    for (auto stream : undecided.streams()) {
        undecided_streams.push_back(undecided.describe(inputs, stream));
    }
    if (!undecided_streams.empty()) {
        verdict.skip(fmt::format("{}: not judged, as {}", fmt::join(undecided_streams, "; "),
                                 k_cannot_tell));
    }
}

void check_tail_off(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            verdict.judged();
            if (run.process.stop_reason == process::StopReason::timeout) {
                verdict.fail(fmt::format("with tail {} the connector was still running after "
                                         "its timeout ({} ms)",
                                         to_string(step->step->tail), run.process.elapsed.count()),
                             {run.label});
            } else if (!exited_cleanly(run)) {
                verdict.fail(fmt::format("with tail {} expected exit code 0, got {} (whatever "
                                         "the cause: a read that fails without the key fails "
                                         "here too; see cli.read)",
                                         to_string(step->step->tail), run.process.exit.describe()),
                             {run.label});
            }
        }
    }
}

std::string timeline(const protocol::Observation& run) {
    std::string text;
    for (const auto& [what, at] : run.tail_events) {
        text += fmt::format("{}{} at {} ms", text.empty() ? "" : "; ", what, at);
    }
    return text.empty() ? "no event seen" : text;
}

bool saw_event(const protocol::Observation& run, std::string_view prefix) {
    return std::any_of(run.tail_events.begin(), run.tail_events.end(),
                       [prefix](const auto& event) { return event.first.starts_with(prefix); });
}

void check_tail_on(const Inputs& inputs, Verdict& verdict) {
    const auto& step = inputs.first(0);
    const auto& run = step.runs.front();
    const auto& config = inputs.test_config();
    verdict.judged();
    verdict.note(timeline(run));
    if (saw_event(run, "gave up waiting for the backlog")) {
        verdict.fail(fmt::format("did not emit the data available at start (every record of step "
                                 "'{}') within {} ms",
                                 step.step->backlog_from, config.tail_wait.count()),
                     {run.label});
    }
    if (run.process.stop_reason != process::StopReason::requested) {
        verdict.fail(fmt::format("with tail true the connector ended on its own ({}) after {} ms, "
                                 "before conform stopped it",
                                 run.process.ending(), run.process.elapsed.count()),
                     {run.label});
        return;
    }
    if (run.process.killed_after_grace) {
        verdict.fail(fmt::format("did not exit within the {} ms grace period after SIGTERM and was "
                                 "killed",
                                 config.grace.count()),
                     {run.label});
    }
}

// The records a plain read emits after `later` that it did not emit in `earlier`: the injected
// data, identified without the inject command naming it.
RecordSet added_between(const protocol::Observation& earlier, const protocol::Observation& later) {
    return extra_records(RecordSet(earlier), RecordSet(later), CompareBy::identity);
}

// X-TAIL-3 for a tailing run: the last of `fresh` (its records beyond the backlog) is followed by
// a STATE before the run was stopped.
void fail_unless_committed(const protocol::Observation& run, const RecordSet& fresh,
                           Verdict& verdict) {
    std::uint64_t last_new = 0;
    fresh.scan([&last_new](std::uint64_t, const protocol::RecordEntry& entry) {
        last_new = std::max(last_new, entry.line);
    });
    if (run.checkpoints.empty() || run.checkpoints.back().line < last_new) {
        verdict.fail(fmt::format("the new data (last at line {}) was never followed by a STATE "
                                 "before SIGTERM: nothing committed it",
                                 last_new),
                     {run.label, last_new});
    }
}

// When no later plain read shows the injected data, the tailing run is judged by itself: after
// the injection it emits a record whose content its backlog lacks (by content: an injected update
// keeps its key), and a STATE after it.
void judge_tail_delivery_alone(const protocol::Observation& run, const RecordSet& delivered,
                               const protocol::Observation& backlog, Verdict& verdict) {
    auto fresh = extra_records(RecordSet(backlog), delivered, CompareBy::content);
    verdict.judged(std::max<std::uint64_t>(fresh.size(), 1));
    if (fresh.empty()) {
        verdict.fail(
            "conform injected new data while the connector tailed, but the tailing run emitted no "
            "record beyond its backlog afterwards (and a later plain read shows no new record "
            "either: if tail.inject_command adds data this connector reads, it never delivers it)",
            {run.label, run.mark_line});
        return;
    }
    verdict.note(fmt::format(
        "a later plain read shows no injected record; judged by the {} record(s) the tailing run "
        "emitted beyond its backlog after the injection",
        fresh.size()));
    fail_unless_committed(run, fresh, verdict);
}

void check_tail_delivers(const Inputs& inputs, Verdict& verdict) {
    const auto& step = inputs.first(0);
    const auto& run = step.runs.front();
    if (!step.inject_problem.empty()) {
        verdict.fail(step.inject_problem, {run.label});
    }
    if (inputs.test_config().inject_command.empty()) {
        verdict.skip(inputs.test_config().lacks("inject_command") + " to add data with");
        return;
    }
    const auto* before = inputs.base_of(step, Reference::backlog);
    const auto& after = inputs.first(1);
    verdict.note(timeline(run));
    if (before == nullptr || !before->ran()) {
        verdict.skip("the backlog read before the tailing run did not run");
        return;
    }
    if (!saw_event(run, "injected")) {
        verdict.skip(
            "the tailing run ended before conform injected new data (tail.on_streams says why)");
        return;
    }
    RecordSet delivered(
        run, [&run](const protocol::RecordEntry& entry) { return entry.line > run.mark_line; });
    auto injected = added_between(before->runs.front(), after.runs.front());
    if (injected.empty()) {
        judge_tail_delivery_alone(run, delivered, before->runs.front(), verdict);
        return;
    }
    verdict.judged(injected.size());
    UndecidedKeyless undecided;
    auto missing = compare_records(injected, delivered, inputs, verdict,
                                   {"added while the connector ran (a later plain read emits it), "
                                    "never delivered by the tailing run",
                                    "", "in the tailing run", false},
                                   undecided);
    advise_undecided(undecided, inputs, verdict);
    if (missing > 0) {
        return;
    }
    fail_unless_committed(run, shared_records(delivered, injected, CompareBy::identity), verdict);
}

// Data added after a read's final STATE is delivered by the next read resumed from that STATE.
void check_next_read_delivers(const Inputs& inputs, Verdict& verdict) {
    const auto& first = inputs.first(0);
    const auto& next = inputs.first(1);
    const auto& truth = inputs.first(2);
    if (baseline_failed(first.runs.front(), verdict) ||
        baseline_failed(truth.runs.front(), verdict)) {
        return;
    }
    auto added = added_between(first.runs.front(), truth.runs.front());
    if (added.empty()) {
        verdict.skip(first.inject_problem.empty()
                         ? std::string("the inject command added no record that a plain read "
                                       "emits: check tail.inject_command")
                         : first.inject_problem + " (the test config's tail.inject_command)");
        return;
    }
    if (!first.inject_problem.empty()) {
        verdict.note(first.inject_problem);  // yet it added records
    }
    verdict.judged(added.size());
    require_clean_exit(next.runs.front(), "the next read", verdict, &first.runs.front());
    UndecidedKeyless undecided;
    compare_records(added, RecordSet(next.runs.front()), inputs, verdict,
                    {"added after the final STATE (a plain read emits it), not delivered by the "
                     "read resumed from that STATE",
                     "", "in the next read", false},
                    undecided);
    advise_undecided(undecided, inputs, verdict);
    verdict.note(fmt::format("{} record(s) added after the first read", added.size()));
}

void check_tail_resume(const Inputs& inputs, Verdict& verdict) {
    const auto& tail_run = inputs.first(0).runs.front();
    const auto& resumed = inputs.first(1).runs.front();
    const auto& truth = inputs.first(2).runs.front();
    if (baseline_failed(truth, verdict)) {
        return;
    }
    CommitModel commits(tail_run);
    RecordSet delivered(tail_run, [&commits](const protocol::RecordEntry& entry) {
        return commits.commit_of(entry) != CommitModel::k_never;
    });
    require_clean_exit(resumed, "the read resumed from the tail run's last STATE", verdict, &truth);
    delivered.add(resumed);
    verdict.judged(truth.records.size());
    UndecidedKeyless undecided;
    compare_records(RecordSet(truth), delivered, inputs, verdict,
                    {"lost: committed by neither the stopped tail run nor the run resumed from its "
                     "last STATE",
                     "", "after resuming the tail run", false},
                    undecided);
    advise_undecided(undecided, inputs, verdict);
}

RecordSet union_of(const StepResult& step) {
    RecordSet records;
    for (const auto& run : step.runs) {
        records.add(run);
    }
    return records;
}

std::uint64_t records_of(const StepResult& step) {
    std::uint64_t count = 0;
    for (const auto& run : step.runs) {
        count += run.records.size();
    }
    return count;
}

void check_range_split(const Inputs& inputs, Verdict& verdict) {
    const auto& full = inputs.first(0).runs.front();
    RecordSet expected(full);
    if (baseline_failed(full, verdict)) {
        return;
    }
    UndecidedKeyless undecided;
    for (const auto* step : inputs.steps(1)) {
        if (!step->ran()) {
            continue;
        }
        verdict.judged(full.records.size() + records_of(*step));
        for (const auto& run : step->runs) {
            require_clean_exit(run, "the shard's read", verdict, &full);
        }
        verdict.note(step->note);
        auto split = to_string(step->step->split);
        auto missing = fmt::format("split '{}': emitted by the full range, by no shard", split);
        auto extra = fmt::format(
            "split '{}': duplicated (emitted by more shards than the full range emitted it)",
            split);
        auto when = fmt::format("in split '{}'", split);
        compare_records(expected, union_of(*step), inputs, verdict, {missing, extra, when},
                        undecided);
    }
    advise_undecided(undecided, inputs, verdict);
}

// Streams without a key: what the children lack of what was owed, and what they emitted beyond it
// that no checkpoint committed either (a duplicate, or a changed version of a missing record).
DiffCounts compare_keyless_children(const Inputs& inputs, const ResumeExpectation& expectation,
                                    const RecordSet& children) {
    auto keyless = keyless_streams(inputs);
    auto owed = expectation.owed.where(keyless);
    auto counts =
        diff_records(owed, children.where(keyless), CompareBy::content, CompareBy::content);
    auto beyond_owed = extra_records(owed, children.where(keyless), CompareBy::content);
    auto unexplained = diff_records(expectation.all_committed.where(keyless), beyond_owed,
                                    CompareBy::content, CompareBy::content);
    counts.examples.extra = std::move(unexplained.examples.extra);
    counts.extra_count = unexplained.extra_count;
    for (auto& [stream, stream_counts] : counts.by_stream) {
        stream_counts.extra = 0;
    }
    for (const auto& [stream, unexplained_counts] : unexplained.by_stream) {
        counts.by_stream[stream].extra = unexplained_counts.extra;
    }
    return counts;
}

// Child ranges resumed from the parent's checkpoint deliver what the parent owed after it.
void compare_children(const Inputs& inputs, const StepResult& step, Verdict& verdict,
                      UndecidedKeyless& undecided) {
    const auto* base = inputs.base_of(step);
    if (base == nullptr || !base->ran() || !step.ran() ||
        baseline_failed(base->runs.front(), verdict)) {
        return;
    }
    const auto& parent = base->runs.front();
    for (const auto& run : step.runs) {
        require_clean_exit(run, "the child range's read", verdict, &parent);
    }
    verdict.judged(parent.records.size() + records_of(step));
    auto checkpoint = *step.plans.front().checkpoint;
    auto expectation = expectation_after(inputs, parent, checkpoint);
    auto children = union_of(step);
    auto names = inputs.stream_names();
    auto keyed = keyed_streams(inputs);
    auto diff = diff_records(expectation.owed.where(keyed), children.where(keyed),
                             CompareBy::identity, CompareBy::identity);
    auto beyond_owed = extra_records(expectation.owed, children, CompareBy::identity);
    auto missing_text = fmt::format(
        "emitted by the full range after checkpoint {}, by neither child range resumed from it",
        checkpoint + 1);
    auto duplicate_text = fmt::format(
        "emitted by the child ranges beyond what the full range owed after checkpoint {} "
        "(duplicates across children)",
        checkpoint + 1);
    report_diff(diff, names, verdict, missing_text, "");
    report_keyless(compare_keyless_children(inputs, expectation, children), inputs, verdict,
                   {missing_text, duplicate_text,
                    fmt::format("in the child ranges resumed from checkpoint {}", checkpoint + 1)},
                   undecided);
    report_changed(changed_records(expectation.owed, children), inputs, verdict,
                   fmt::format("child ranges resumed from checkpoint {}", checkpoint + 1));
    // Re-emitting what the parent's checkpoint committed is X-STATE-3's SHOULD; a record beyond
    // that is a duplicate among the children.
    auto reemitted = overlap_records(beyond_owed, expectation.committed, CompareBy::identity);
    for (const auto& record : reemitted.examples) {
        verdict.advise(
            fmt::format("re-emitted by a child range although the parent's "
                        "checkpoint {} committed it: {}",
                        checkpoint + 1, describe_record(record, names)));
    }
    verdict.count_more(0, reemitted.count - reemitted.examples.size());
    auto keyed_beyond_owed = beyond_owed.where(keyed);
    auto keyed_reemitted =
        overlap_records(keyed_beyond_owed, expectation.committed, CompareBy::identity, 0);
    auto reread =
        overlap_records(keyed_beyond_owed, expectation.committed_to_reread, CompareBy::identity, 0);
    auto duplicates = diff.extra_count - keyed_reemitted.count - reread.count;
    if (duplicates > 0) {
        verdict.fail(
            fmt::format("{} record(s) emitted by the child ranges beyond what the full "
                        "range owed after checkpoint {} (duplicates across children)",
                        duplicates, checkpoint + 1));
    }
}

void check_range_subdivision(const Inputs& inputs, Verdict& verdict) {
    UndecidedKeyless undecided;
    for (const auto* step : inputs.steps(0)) {
        compare_children(inputs, *step, verdict, undecided);
    }
    auto names = inputs.stream_names();
    for (const auto& comparison : compare_resumes(inputs, inputs.steps(1), verdict)) {
        auto when = fmt::format("after resuming the shard {} from its own checkpoint {}",
                                comparison.base->label, comparison.checkpoint + 1);
        verdict.judged(comparison.resumed_failed ? 1 : comparison.records_compared());
        require_clean_exit(*comparison.resumed, "the resumed shard's read", verdict,
                           comparison.base);
        if (comparison.resumed_failed) {
            continue;
        }
        report_diff(comparison.lost, names, verdict, "lost " + when, "");
        report_keyless(comparison.keyless, inputs, verdict, {"lost " + when, "", when}, undecided);
        report_changed(comparison.changed, inputs, verdict, when);
        for (const auto& record : comparison.reemitted.examples) {
            verdict.advise(fmt::format("re-emitted {}: already committed by it: {}", when,
                                       describe_record(record, names)));
        }
        verdict.count_more(0, comparison.reemitted.count - comparison.reemitted.examples.size());
    }
    advise_undecided(undecided, inputs, verdict);
    verdict.note("loss is a MUST; re-emission of committed records a SHOULD (X-STATE-3)");
}

void check_range_absent(const Inputs& inputs, Verdict& verdict) {
    compare_reads(inputs.first(1).runs.front(), inputs.first(0).runs.front(), inputs, verdict,
                  {"emitted with the full range, not without a range",
                   "emitted without a range, not with the full range", "without a range"});
}

void check_range_malformed(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            verdict.judged();
            auto records = run.count("RECORD");
            if (run.process.exit.succeeded() || records > 0 ||
                run.process.stop_reason == process::StopReason::timeout) {
                verdict.fail(fmt::format("a malformed range was accepted: {}, {} record(s) emitted",
                                         run.process.stop_reason == process::StopReason::timeout
                                             ? "timed out"
                                             : run.process.exit.describe(),
                                         records),
                             {run.label});
            }
        }
    }
}

// The reduced state as a map of stream -> state, each read as RFC 7396 reads it (applied as a
// patch to {}, so members set to null are absent): a legacy object keyed by stream name and
// per-stream STREAM states holding the same stream states then compare equal, as resuming from
// either gives the same states. A GLOBAL state's shared state is kept under "(shared)".
std::string comparable_state(const std::string& materialized) {
    if (materialized.empty()) {
        return materialized;
    }
    auto document = json::parse_json_text(materialized, "reduced state");
    auto& allocator = document.GetAllocator();
    rapidjson::Value streams(rapidjson::kObjectType);
    auto add = [&](const std::string& name, const rapidjson::Value& state) {
        rapidjson::Value read(rapidjson::kObjectType);
        rapidjson::Value patch(state, allocator);
        json::apply_merge_patch(read, patch, allocator);
        streams.AddMember(rapidjson::Value(name.c_str(), allocator), read, allocator);
    };
    auto add_stream = [&](const rapidjson::Value& entry) {
        auto descriptor = entry.FindMember("stream_descriptor");
        auto state = entry.FindMember("stream_state");
        if (descriptor == entry.MemberEnd() || state == entry.MemberEnd()) {
            return;
        }
        std::string name =
            descriptor->value.HasMember("name") && descriptor->value["name"].IsString()
                ? descriptor->value["name"].GetString()
                : "?";
        if (descriptor->value.HasMember("namespace") && descriptor->value["namespace"].IsString()) {
            name = std::string(descriptor->value["namespace"].GetString()) + "." + name;
        }
        add(name, state->value);
    };
    if (document.IsObject()) {
        for (const auto& member : document.GetObject()) {
            add(member.name.GetString(), member.value);
        }
    } else if (document.IsArray()) {
        for (const auto& entry : document.GetArray()) {
            if (entry.HasMember("stream") && entry["stream"].IsObject()) {
                add_stream(entry["stream"]);
            } else if (entry.HasMember("global") && entry["global"].IsObject()) {
                const auto& global = entry["global"];
                if (global.HasMember("shared_state")) {
                    add("(shared)", global["shared_state"]);
                }
                if (global.HasMember("stream_states") && global["stream_states"].IsArray()) {
                    for (const auto& stream : global["stream_states"].GetArray()) {
                        add_stream(stream);
                    }
                }
            }
        }
    }
    return json::to_canonical_json(streams);
}

void check_merge_equals_full(const Inputs& inputs, Verdict& verdict) {
    const auto& patches = inputs.first(0).runs.front();
    const auto& reduced = patches.checkpoints;
    const auto& whole = inputs.first(1).runs.front().checkpoints;
    if (reduced.size() != whole.size()) {
        verdict.fail(fmt::format("{} merge-patch checkpoints but {} full-state checkpoints",
                                 reduced.size(), whole.size()));
    }
    auto compared = std::min(reduced.size(), whole.size());
    verdict.judged(compared);
    for (std::size_t i = 0; i < compared; ++i) {
        auto patched = comparable_state(reduced[i].materialized);
        auto full_state = comparable_state(whole[i].materialized);
        if (patched != full_state) {
            verdict.fail(fmt::format("checkpoint {}: the reduced patches give {} but the full "
                                     "state is {}",
                                     i + 1, patched, full_state),
                         {patches.label, reduced[i].line});
        }
    }
    verdict.note(
        "each checkpoint compared as stream -> state, each state as RFC 7396 reads it (a "
        "member set to null is absent), whatever envelope carried it");
}

void report_unprojected(const protocol::Observation& projected, Verdict& verdict) {
    for (const auto& record : projected.unprojected) {
        verdict.fail(fmt::format("\"{}\" is still a top-level field and nothing is at {}: the "
                                 "projection was not applied",
                                 record.field, record.pointer),
                     {projected.label, record.line});
    }
    verdict.count_more(projected.unprojected_count - projected.unprojected.size());
}

// X-PROJ-1 is about where fields are placed, not about the data, which may change between the
// two reads (AP-READ-6 judges that): records of streams with a primary key are paired by key, and
// a pair that differs only warns once every field was placed.
void check_projections(const Inputs& inputs, Verdict& verdict) {
    const auto& plain = inputs.first(0).runs.front();
    const auto& projected = inputs.first(1).runs.front();
    verdict.judged(plain.records.size() + projected.records.size());
    if (projected.unprojected_count > 0) {
        report_unprojected(projected, verdict);
        return;
    }
    auto names = inputs.stream_names();
    auto diff = diff_records(RecordSet(plain), RecordSet(projected), CompareBy::projected,
                             CompareBy::content);
    bool by_key = plain.records_without_key == 0 && projected.records_without_key == 0;
    if (!by_key || diff.missing_count + diff.extra_count == 0) {
        report_diff(
            diff, names, verdict,
            "the plain record with the projections applied by conform was not emitted by the "
            "run with projections",
            "emitted by the run with projections but differs from every projected plain record");
        return;
    }
    const auto& catalog = inputs.catalog();
    auto keyed = [&catalog](const protocol::RecordEntry& entry) {
        return !catalog.streams[entry.stream].primary_key.empty();
    };
    auto keyless = [&keyed](const protocol::RecordEntry& entry) { return !keyed(entry); };
    UndecidedKeyless undecided;
    report_keyless(diff_records(RecordSet(plain, keyless), RecordSet(projected, keyless),
                                CompareBy::projected, CompareBy::content),
                   inputs, verdict,
                   {"the plain record with the projections applied was not emitted by the run "
                    "with projections",
                    "emitted by the run with projections but differs from every projected plain "
                    "record",
                    "with projections, though every projected field was placed,"},
                   undecided);
    advise_undecided(undecided, inputs, verdict);
    auto lost = lost_records(RecordSet(plain, keyed), RecordSet(projected, keyed));
    auto gained = lost_records(RecordSet(projected, keyed), RecordSet(plain, keyed));
    report_diff(lost, names, verdict,
                "the plain read emitted this key, the run with projections "
                "never did",
                "");
    report_diff(gained, names, verdict,
                "the run with projections emitted this key, the plain "
                "read never did",
                "");
    auto changed = changed_records(RecordSet(plain, keyed), RecordSet(projected, keyed), 5,
                                   CompareBy::projected);
    for (const auto& [expected, actual] : changed.examples) {
        verdict.advise(
            fmt::format("the same key with other content than the projected plain "
                        "record, though every projected field was placed (the data "
                        "changed between the reads?): {}",
                        describe_record(actual, names)));
    }
    verdict.count_more(changed.count - changed.examples.size());
}

void check_compat(const Inputs& inputs, Verdict& verdict) {
    const auto& plain = inputs.first(0).runs.front();
    const auto& with_keys = inputs.first(1).runs.front();
    if (with_keys.process.exit.describe() != plain.process.exit.describe()) {
        verdict.fail(fmt::format("with neutral extension keys the read ended with {}, without "
                                 "them with {}",
                                 with_keys.process.exit.describe(), plain.process.exit.describe()),
                     {with_keys.label, 0, with_keys.process.stderr_text.substr(0, 300)});
    }
    compare_reads(plain, with_keys, inputs, verdict,
                  {"emitted without extension keys, not with them",
                   "emitted with extension keys, not without them", "with neutral extension keys"});
}

}  // namespace

suite::Checks estuary_checks() {
    using enum report::Level;
    using enum suite::Role;
    using engine::Basis;
    using engine::Count;
    using Need = suite::Need;
    const auto resumed_from_unsplit =
        Need{resumed_read, {}, {}, Basis<suite::Role>{Reference::state, unsplit_read}};
    const auto state_of = [](suite::Role role) {
        return Basis<suite::Role>{Reference::state, role};
    };
    return {
        {{"state.commit_boundaries",
          {"X-STATE-1"},
          must,
          "each STATE commits exactly the records before it"},
         {resumed_from_unsplit},
         "the reads compared emitted no record",
         check_commit_boundaries},
        {{"state.resume_no_loss", {"X-STATE-2"}, must, "resuming from a checkpoint loses nothing"},
         {resumed_from_unsplit},
         "the reads compared emitted no record",
         check_resume_loss},
        {{"state.next_read_delivers_new_data",
          {"X-STATE-2"},
          must,
          "data added after the final STATE is delivered by the next incremental read"},
         {Need{read, {inject_after}, {resumed_read}, std::nullopt, Count::one},
          Need{resumed_read, {}, {}, state_of(inject_after), Count::one},
          Need{plain_read, {}, {inject_after}, std::nullopt, Count::one, 1}},
         "no record was added between the reads",
         check_next_read_delivers},
        {{"state.resume_exactly_once",
          {"X-STATE-3"},
          should,
          "resuming from a checkpoint re-emits nothing already committed"},
         {resumed_from_unsplit},
         "the reads compared emitted no record",
         check_resume_exactly_once},
        {{"tail.off_exits", {"X-TAIL-1"}, must, "with tail false the connector exits 0 in time"},
         {{finite_read}},
         "no read with tail false ran",
         check_tail_off},
        {{"tail.on_streams",
          {"X-TAIL-2"},
          must,
          "with tail true the connector delivers the backlog, keeps running and stops on SIGTERM"},
         {Need{tailing_read, {}, {}, std::nullopt, Count::one}},
         "no tailing read ran",
         check_tail_on},
        {{"tail.delivers_new_data",
          {"X-TAIL-2"},
          must,
          "with tail true the connector delivers data added while it runs, then a STATE"},
         {Need{
              tailing_read, {}, {}, Basis<suite::Role>{Reference::backlog, plain_read}, Count::one},
          Need{plain_read, {inject_after}, {}, std::nullopt, Count::one, 0}},
         "no data was injected while the connector ran",
         check_tail_delivers},
        {{"tail.resume_no_loss", {"X-TAIL-3"}, must, "resuming a stopped tail run loses nothing"},
         {Need{tailing_read, {}, {}, std::nullopt, Count::one},
          Need{resumed_read, {}, {}, state_of(tailing_read), Count::one},
          Need{plain_read, {}, {inject_after}, std::nullopt, Count::one, 0}},
         "the plain read emitted no record",
         check_tail_resume},
        {{"range.split_union",
          {"X-RANGE-1"},
          must,
          "split ranges together emit the full range's records exactly once"},
         {Need{full_range_read, {}, {}, std::nullopt, Count::one},
          Need{shard_reads, {}, {resumed_shards}}},
         "the full range and its shards emitted no record",
         check_range_split},
        {{"range.state_subdivision",
          {"X-RANGE-2"},
          must,
          "child ranges resumed from the parent's state emit exactly what the parent would"},
         {Need{resumed_shards, {}, {}, state_of(full_range_read)},
          Need{resumed_read, {}, {}, state_of(shard_reads), Count::any}},
         "the reads compared emitted no record",
         check_range_subdivision},
        {{"range.absent_is_full", {"X-RANGE-3"}, must, "an absent range behaves as the full range"},
         {Need{plain_read, {}, {}, std::nullopt, Count::one},
          Need{full_range_read, {}, {}, std::nullopt, Count::one}},
         "the reads emitted no record",
         check_range_absent},
        {{"range.malformed_rejected",
          {"X-RANGE-4"},
          should,
          "a malformed range fails without data"},
         {{malformed_range}},
         "no read with a malformed range ran",
         check_range_malformed},
        {{"merge.resume_no_loss",
          {"X-MERGE-2"},
          must,
          "resuming from merge-reduced states loses nothing"},
         {Need{resumed_read, {merge_read}, {}, state_of(merge_read)}},
         "the reads compared emitted no record",
         check_resume_loss},
        {{"merge.patches_equal_full",
          {"X-MERGE-3"},
          should,
          "reduced patch states equal the full states at every checkpoint"},
         {Need{merge_read, {}, {resumed_read}, std::nullopt, Count::one},
          Need{full_state_read, {}, {resumed_read}, std::nullopt, Count::one}},
         "neither read emitted a STATE",
         check_merge_equals_full},
        {{"projections.differential",
          {"X-PROJ-1"},
          must,
          "records with projections equal the plain records with the projections applied"},
         {Need{projections_applied, {}, {}, std::nullopt, Count::one},
          Need{projected_read, {}, {}, std::nullopt, Count::one}},
         "the reads emitted no record",
         check_projections},
        {{"compat.neutral_keys",
          {"X-COMPAT-1"},
          must,
          "extension keys at neutral values change nothing"},
         {Need{plain_read, {}, {}, std::nullopt, Count::one},
          Need{neutral_keys, {}, {}, std::nullopt, Count::one}},
         "the reads emitted no record",
         check_compat},
    };
}

}  // namespace conform::checks::airbyte
