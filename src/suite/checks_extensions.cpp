// The extension checks (X-*): resume, tail, range, merge patches, projections, compatibility.
#include <fmt/format.h>

#include <rapidjson/document.h>

#include <algorithm>
#include <set>

#include "json/merge_patch.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"

#include "checks/registry.hpp"
#include "suite/check_helpers.hpp"
#include "suite/commits.hpp"
#include "suite/compare.hpp"
#include "suite/field_diff.hpp"

namespace conform::suite {

namespace ids = checks::ids;

namespace {

// Reports the differences of `diff`, each kind with its own wording.
void report_diff(const DiffCounts& diff, const ScenarioContext& context, CheckOutcome& outcome,
                 std::string_view missing_text, std::string_view extra_text) {
    auto names = stream_names(context);
    if (!missing_text.empty()) {
        for (const auto& record : diff.examples.missing) {
            outcome.add(fmt::format("{}: {}", missing_text, describe_record(record, names)));
        }
        outcome.occurrences += diff.missing_count - diff.examples.missing.size();
    }
    if (!extra_text.empty()) {
        for (const auto& record : diff.examples.extra) {
            outcome.add(fmt::format("{}: {}", extra_text, describe_record(record, names)));
        }
        outcome.occurrences += diff.extra_count - diff.examples.extra.size();
    }
}

const StepResult* base_of(const ScenarioContext& context, const StepResult& step) {
    const auto* base = context.step(step.step->state_from);
    return base != nullptr && !base->runs.empty() ? base : nullptr;
}

bool is_incremental(const ScenarioContext& context, const protocol::RecordEntry& entry) {
    return context.catalog->streams[entry.stream].incremental();
}

std::string exit_text(const protocol::Observation& run) {
    return run.process.stop_reason == process::StopReason::timeout
               ? fmt::format("stopped at its timeout after {} ms", run.process.elapsed.count())
               : run.process.exit.describe();
}

// A resumed or sharded read that failed proves nothing about what it would have emitted: it fails
// the check, unless its baseline (the uninterrupted or full-range read) failed too, which is
// cli.read's finding; then the comparison is skipped rather than failed twice.
bool baseline_failed(const protocol::Observation& baseline, CheckOutcome& outcome) {
    if (exited_cleanly(baseline)) {
        return false;
    }
    outcome.skip(
        fmt::format("the baseline read '{}' failed ({}): nothing to compare with (see "
                    "cli.read)",
                    baseline.label, exit_text(baseline)));
    return true;
}

void require_clean_exit(const protocol::Observation& run, std::string_view what,
                        CheckOutcome& outcome, const protocol::Observation* baseline) {
    if (baseline != nullptr && !exited_cleanly(*baseline)) {
        return;  // baseline_failed() said why
    }
    if (!exited_cleanly(run)) {
        outcome.add(fmt::format("{} did not succeed: {}", what, exit_text(run)), run.label, 0,
                    run.process.stderr_text.size() > 300
                        ? run.process.stderr_text.substr(run.process.stderr_text.size() - 300)
                        : run.process.stderr_text);
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
};

ResumeExpectation expectation_after(const ScenarioContext& context,
                                    const protocol::Observation& base, std::size_t checkpoint) {
    auto commits = std::make_shared<const CommitModel>(base);
    auto owed = [commits, checkpoint](const protocol::RecordEntry& entry) {
        return commits->commit_of(entry) > checkpoint;
    };
    auto incremental = [&context](const protocol::RecordEntry& entry) {
        return is_incremental(context, entry);
    };
    return {
        RecordSet(base, owed),
        RecordSet(base, [=](const auto& entry) { return !owed(entry) && incremental(entry); }),
        RecordSet(base, [=](const auto& entry) { return !owed(entry) && !incremental(entry); })};
}

struct ResumeComparison {
    RecordSet owed;
    RecordSet resumed_records;
    DiffCounts lost;    // owed records the resumed run did not emit
    Overlap reemitted;  // incremental records committed by the checkpoint, emitted again
    Changed changed;    // owed records emitted again under the same key with other content
    std::size_t checkpoint;
    const protocol::Observation* base;
    const protocol::Observation* resumed;
};

// Steps that resume from a checkpoint. `shards`: those resuming range shards (X-RANGE-2) rather
// than a plain read (X-STATE-2).
std::vector<const StepResult*> resume_steps(const ScenarioContext& context, bool shards) {
    std::vector<const StepResult*> steps;
    for (const auto& step : context.steps) {
        if (step.step->state_from.empty() || step.step->splits()) {
            continue;
        }
        const auto* base = context.step(step.step->state_from);
        bool from_shards = base != nullptr && base->step->splits();
        if (from_shards == shards) {
            steps.push_back(&step);
        }
    }
    return steps;
}

// Keeps what the resume from `comparison.checkpoint` lost and repeated for the checkpoint timeline.
void note_resume(const ResumeComparison& comparison, const ScenarioContext& context,
                 CheckOutcome& outcome) {
    auto names = stream_names(context);
    const auto& state = comparison.base->checkpoints[comparison.checkpoint];
    report::ResumedCheckpoint resume;
    resume.checkpoint = comparison.checkpoint + 1;
    resume.line = state.line;
    resume.records_before = state.records_before;
    resume.run = comparison.resumed->label;
    resume.lost = comparison.lost.missing_count;
    if (!comparison.lost.examples.missing.empty()) {
        resume.lost_example = describe_record(comparison.lost.examples.missing.front(), names);
    }
    resume.repeated = comparison.reemitted.count;
    if (!comparison.reemitted.examples.empty()) {
        resume.repeated_example = describe_record(comparison.reemitted.examples.front(), names);
    }
    outcome.resumes.emplace_back(comparison.base, std::move(resume));
}

std::vector<ResumeComparison> compare_resumes(const ScenarioContext& context, CheckOutcome& outcome,
                                              bool shards = false) {
    std::vector<ResumeComparison> comparisons;
    auto steps = resume_steps(context, shards);
    if (steps.empty()) {
        outcome.skip(shards ? "no step resumes range shards from their own checkpoints"
                            : "no resume step in this scenario");
    }
    for (const auto* step : steps) {
        const auto* base = base_of(context, *step);
        if (base == nullptr || step->runs.empty()) {
            outcome.skip(step->why_not.empty() ? "the base run did not run" : step->why_not);
            continue;
        }
        for (std::size_t i = 0; i < step->runs.size(); ++i) {
            const auto& plan = step->plans[i];
            const auto& base_run = base->runs[plan.base_run];
            if (baseline_failed(base_run, outcome)) {
                continue;
            }
            auto expectation = expectation_after(context, base_run, *plan.checkpoint);
            RecordSet resumed(step->runs[i]);
            comparisons.push_back(
                {expectation.owed, resumed,
                 diff_records(expectation.owed, resumed, CompareBy::identity, CompareBy::identity),
                 overlap_records(resumed, expectation.committed, CompareBy::identity),
                 changed_records(expectation.owed, resumed), *plan.checkpoint, &base_run,
                 &step->runs[i]});
            note_resume(comparisons.back(), context, outcome);
        }
    }
    return comparisons;
}

// The same key with other content is not a lost record: it is what AP-READ-6 (a SHOULD) calls
// non-determinism, so it warns here too, naming the fields that differ.
void report_changed(const Changed& changed, const ScenarioContext& context, CheckOutcome& outcome,
                    std::string_view when) {
    auto names = stream_names(context);
    for (const auto& [expected, actual] : changed.examples) {
        auto fields = describe_changes(
            expected, actual, context.catalog->streams[expected.entry.stream].volatile_pointers);
        outcome.advise(
            fmt::format("{}: same key, other content: {} became {}{}; declare the "
                        "field volatile if it may change between reads (AP-READ-6)",
                        when, describe_record(expected, names), describe_record(actual, names),
                        fields.empty() ? "" : " (" + fields + ")"));
    }
    outcome.advisories += changed.count - changed.examples.size();
    outcome.occurrences += changed.count - changed.examples.size();
}

// Two reads that should emit the same records: a record missing or extra by identity is a
// finding at the check's level; the same key with other content only warns (report_changed).
void compare_reads(const protocol::Observation& expected, const protocol::Observation& actual,
                   const ScenarioContext& context, CheckOutcome& outcome,
                   std::string_view missing_text, std::string_view extra_text,
                   std::string_view when) {
    RecordSet expected_records(expected);
    RecordSet actual_records(actual);
    auto diff =
        diff_records(expected_records, actual_records, CompareBy::identity, CompareBy::identity);
    report_diff(diff, context, outcome, missing_text, extra_text);
    report_changed(changed_records(expected_records, actual_records), context, outcome, when);
}

void check_resume_loss(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto& comparison : compare_resumes(context, outcome)) {
        auto when =
            fmt::format("after resuming from checkpoint {} (line {})", comparison.checkpoint + 1,
                        comparison.base->checkpoints[comparison.checkpoint].line);
        require_clean_exit(*comparison.resumed, "the resumed read", outcome, comparison.base);
        auto text = fmt::format(
            "lost {}: emitted by the uninterrupted read and committed by no "
            "checkpoint up to it, never emitted by the resumed read",
            when);
        report_diff(comparison.lost, context, outcome, text, "");
        report_changed(comparison.changed, context, outcome, when);
    }
    outcome.note =
        "every stream owes what the checkpoint had not committed; a full-refresh stream "
        "may be read again whole";
}

void check_resume_exactly_once(const ScenarioContext& context, CheckOutcome& outcome) {
    auto names = stream_names(context);
    if (std::none_of(context.catalog->streams.begin(), context.catalog->streams.end(),
                     [](const auto& stream) { return stream.incremental(); })) {
        outcome.skip(
            "no incremental stream in the configured catalog: full-refresh streams may "
            "be read again whole");
        return;
    }
    for (const auto& comparison : compare_resumes(context, outcome)) {
        for (const auto& record : comparison.reemitted.examples) {
            outcome.add(
                fmt::format("re-emitted after resuming from checkpoint {}: already "
                            "committed by it: {}",
                            comparison.checkpoint + 1, describe_record(record, names)));
        }
        outcome.occurrences += comparison.reemitted.count - comparison.reemitted.examples.size();
    }
    outcome.note = "incremental streams only: a full-refresh stream is read whole again";
}

// A loss confined, stream by stream, to the records that the checkpoint after k commits means
// STATE k claimed records that were emitted only after it.
void check_commit_boundaries(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto& comparison : compare_resumes(context, outcome)) {
        if (comparison.lost.missing_count == 0) {
            continue;
        }
        CommitModel commits(*comparison.base);
        auto k = comparison.checkpoint;
        auto in_next_window = [&](const protocol::RecordEntry& entry) {
            return commits.commit_of(entry) == commits.next_covering(entry.stream, k + 1);
        };
        bool all_in_next_window = true;
        std::set<std::uint32_t> lost_streams;
        auto lost =
            missing_records(comparison.owed, comparison.resumed_records, CompareBy::identity);
        lost.scan([&](std::uint64_t, const protocol::RecordEntry& entry) {
            all_in_next_window = all_in_next_window && in_next_window(entry);
            lost_streams.insert(entry.stream);
        });
        if (!all_in_next_window) {
            continue;
        }
        std::uint64_t window = 0;
        comparison.base->records.scan([&](std::size_t, const protocol::RecordEntry& entry) {
            window += lost_streams.count(entry.stream) > 0 && in_next_window(entry);
        });
        const auto& state = comparison.base->checkpoints[k];
        outcome.add(fmt::format("STATE {} (line {}) covers records emitted after it: resuming "
                                "from it lost {} of the {} record(s) that the next STATE of "
                                "their stream commits",
                                k + 1, state.line, comparison.lost.missing_count, window),
                    comparison.base->label, state.line);
    }
}

void check_tail_off(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto& step : context.steps) {
        // An absent tail means false (X-TAIL-1); malformed-range runs are meant to fail.
        if (step.step->run != Command::read || step.step->tail == TailFlag::on ||
            step.step->range.kind == RangeChoice::Kind::malformed ||
            step.step->config == ConfigChoice::invalid) {
            continue;
        }
        for (const auto& run : step.runs) {
            if (run.process.stop_reason == process::StopReason::timeout) {
                outcome.add(fmt::format("with tail {} the connector was still running after "
                                        "its timeout ({} ms)",
                                        to_string(step.step->tail), run.process.elapsed.count()),
                            run.label);
            } else if (!exited_cleanly(run)) {
                outcome.add(fmt::format("with tail {} expected exit code 0, got {}",
                                        to_string(step.step->tail), run.process.exit.describe()),
                            run.label);
            }
        }
    }
}

const StepResult* tail_step(const ScenarioContext& context) {
    for (const auto& step : context.steps) {
        if (step.step->inject_while_running && !step.runs.empty()) {
            return &step;
        }
    }
    return nullptr;
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

void check_tail_on(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto* step = tail_step(context);
    if (step == nullptr) {
        outcome.skip("no tailing step in this scenario");
        return;
    }
    const auto& run = step->runs.front();
    const auto& config = *context.test_config;
    outcome.note = timeline(run);
    if (saw_event(run, "gave up waiting for the backlog")) {
        outcome.add(fmt::format("did not emit the data available at start (every record of step "
                                "'{}') within {} ms",
                                step->step->backlog_from, config.tail_wait.count()),
                    run.label);
    }
    if (run.process.stop_reason != process::StopReason::requested) {
        outcome.add(fmt::format("with tail true the connector ended on its own ({}) after {} ms, "
                                "before conform stopped it",
                                exit_text(run), run.process.elapsed.count()),
                    run.label);
        return;
    }
    if (run.process.killed_after_grace) {
        outcome.add(fmt::format("did not exit within the {} ms grace period after SIGTERM and was "
                                "killed",
                                config.grace.count()),
                    run.label);
    }
}

// The first plain read after the tailing step: what a read sees once the data was injected.
const StepResult* read_after(const ScenarioContext& context, const StepResult& tail) {
    bool past = false;
    for (const auto& step : context.steps) {
        if (&step == &tail) {
            past = true;
        } else if (past && step.step->run == Command::read && step.step->state_from.empty() &&
                   !step.runs.empty()) {
            return &step;
        }
    }
    return nullptr;
}

// The records a plain read emits after `later` that it did not emit in `earlier`: the injected
// data, identified without the inject command naming it.
RecordSet added_between(const protocol::Observation& earlier, const protocol::Observation& later) {
    return extra_records(RecordSet(earlier), RecordSet(later), CompareBy::identity);
}

void check_tail_delivers(const ScenarioContext& context, CheckOutcome& outcome) {
    collect_findings(std::string(ids::tail_delivers), context, outcome);
    const auto* step = tail_step(context);
    if (step == nullptr) {
        outcome.skip("no tailing step in this scenario");
        return;
    }
    if (context.test_config->inject_command.empty()) {
        outcome.skip("the test config has no \"tail\": {\"inject_command\"} to add data with");
        return;
    }
    const auto* before = context.step(step->step->backlog_from);
    const auto* after = read_after(context, *step);
    if (before == nullptr || before->runs.empty() || after == nullptr) {
        outcome.skip("needs a plain read before the tailing run and one after it");
        return;
    }
    const auto& run = step->runs.front();
    outcome.note = timeline(run);
    if (!saw_event(run, "injected")) {
        outcome.skip(
            "the tailing run ended before conform injected new data (tail.on_streams says why)");
        return;
    }
    auto injected = added_between(before->runs.front(), after->runs.front());
    if (injected.empty()) {
        outcome.skip(
            "the inject command added no record that a plain read emits: check "
            "tail.inject_command");
        return;
    }
    RecordSet delivered(
        run, [&run](const protocol::RecordEntry& entry) { return entry.line > run.mark_line; });
    auto diff = diff_records(injected, delivered, CompareBy::identity, CompareBy::identity);
    report_diff(diff, context, outcome,
                "added while the connector ran (a later plain read emits it), never delivered by "
                "the tailing run",
                "");
    if (diff.missing_count > 0) {
        return;
    }
    std::uint64_t last_new = 0;
    shared_records(delivered, injected, CompareBy::identity)
        .scan([&last_new](std::uint64_t, const protocol::RecordEntry& entry) {
            last_new = std::max(last_new, entry.line);
        });
    if (run.checkpoints.empty() || run.checkpoints.back().line < last_new) {
        outcome.add(fmt::format("the new data (last at line {}) was never followed by a STATE "
                                "before SIGTERM: nothing committed it",
                                last_new),
                    run.label, last_new);
    }
}

// Data added after a read's final STATE is delivered by the next read resumed from that STATE.
void check_next_read_delivers(const ScenarioContext& context, CheckOutcome& outcome) {
    auto steps = resume_steps(context, false);
    const StepResult* truth = nullptr;
    for (const auto& step : context.steps) {
        if (step.step->run == Command::read && step.step->state_from.empty() &&
            !step.runs.empty()) {
            truth = &step;  // the last plain read: it sees all the added data
        }
    }
    if (steps.empty() || truth == nullptr) {
        outcome.skip("needs a read resumed from a final state and a plain read after it");
        return;
    }
    const auto* next = steps.front();
    const auto* first = base_of(context, *next);
    if (first == nullptr || next->runs.empty()) {
        outcome.skip(next->why_not.empty() ? "the first read did not run" : next->why_not);
        return;
    }
    if (baseline_failed(first->runs.front(), outcome) ||
        baseline_failed(truth->runs.front(), outcome)) {
        return;
    }
    auto added = added_between(first->runs.front(), truth->runs.front());
    if (added.empty()) {
        outcome.skip(
            "the inject command added no record that a plain read emits: check "
            "tail.inject_command");
        return;
    }
    require_clean_exit(next->runs.front(), "the next read", outcome, &first->runs.front());
    auto diff = diff_records(added, RecordSet(next->runs.front()), CompareBy::identity,
                             CompareBy::identity);
    report_diff(diff, context, outcome,
                "added after the final STATE (a plain read emits it), not delivered by the read "
                "resumed from that STATE",
                "");
    outcome.note = fmt::format("{} record(s) added after the first read", added.size());
}

void check_tail_resume(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto* tail = tail_step(context);
    const StepResult* resume = nullptr;
    const StepResult* truth = nullptr;
    for (const auto& step : context.steps) {
        if (tail != nullptr && step.step->state_from == tail->step->id) {
            resume = &step;
        } else if (step.step->run == Command::read && step.step->state_from.empty() &&
                   !step.step->inject_while_running) {
            truth = &step;
        }
    }
    if (tail == nullptr || resume == nullptr || truth == nullptr || truth->runs.empty()) {
        outcome.not_applicable = resume != nullptr && !resume->why_not.empty()
                                     ? resume->why_not
                                     : "needs a tailing step, a resume from it and a plain read";
        return;
    }
    if (resume->runs.empty()) {
        outcome.not_applicable = resume->why_not;
        return;
    }
    if (baseline_failed(truth->runs.front(), outcome)) {
        return;
    }
    const auto& tail_run = tail->runs.front();
    CommitModel commits(tail_run);
    RecordSet delivered(tail_run, [&commits](const protocol::RecordEntry& entry) {
        return commits.commit_of(entry) != CommitModel::k_never;
    });
    require_clean_exit(resume->runs.front(), "the read resumed from the tail run's last STATE",
                       outcome, &truth->runs.front());
    delivered.add(resume->runs.front());
    auto diff = diff_records(RecordSet(truth->runs.front()), delivered, CompareBy::identity,
                             CompareBy::identity);
    report_diff(diff, context, outcome,
                "lost: committed by neither the stopped tail run nor the run resumed from its last "
                "STATE",
                "");
}

const StepResult* plain_read(const ScenarioContext& context) {
    return context.first_run_with(Role::plain_read);
}

const StepResult* full_range_read(const ScenarioContext& context) {
    const auto* full = context.first_run_with(Role::full_range_read);
    return full != nullptr ? full : plain_read(context);
}

RecordSet union_of(const StepResult& step) {
    RecordSet records;
    for (const auto& run : step.runs) {
        records.add(run);
    }
    return records;
}

void check_range_split(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto* full = full_range_read(context);
    if (full == nullptr) {
        outcome.not_applicable = "no full-range read in this scenario";
        return;
    }
    RecordSet expected(full->runs.front());
    if (baseline_failed(full->runs.front(), outcome)) {
        return;
    }
    for (const auto& step : context.steps) {
        if (!step.step->splits() || !step.step->state_from.empty()) {
            continue;
        }
        if (step.runs.empty()) {
            outcome.skip(step.why_not);
            continue;
        }
        for (const auto& run : step.runs) {
            require_clean_exit(run, "the shard's read", outcome, &full->runs.front());
        }
        if (!step.note.empty()) {
            outcome.note += (outcome.note.empty() ? "" : "; ") + step.note;
        }
        report_changed(changed_records(expected, union_of(step)), context, outcome,
                       fmt::format("split '{}'", to_string(step.step->split)));
        auto diff =
            diff_records(expected, union_of(step), CompareBy::identity, CompareBy::identity);
        report_diff(
            diff, context, outcome,
            fmt::format("split '{}': emitted by the full range, by no shard",
                        to_string(step.step->split)),
            fmt::format("split '{}': duplicated (emitted by more shards than the full range "
                        "emitted it)",
                        to_string(step.step->split)));
    }
}

void check_range_subdivision(const ScenarioContext& context, CheckOutcome& outcome) {
    bool any = false;
    for (const auto& step : context.steps) {
        if (!step.step->splits() || step.step->state_from.empty()) {
            continue;
        }
        any = true;
        const auto* base = base_of(context, step);
        if (base == nullptr || step.runs.empty()) {
            outcome.skip(step.why_not.empty() ? "the parent range did not run" : step.why_not);
            continue;
        }
        if (baseline_failed(base->runs.front(), outcome)) {
            continue;
        }
        for (const auto& run : step.runs) {
            require_clean_exit(run, "the child range's read", outcome, &base->runs.front());
        }
        auto checkpoint = *step.plans.front().checkpoint;
        auto expectation = expectation_after(context, base->runs.front(), checkpoint);
        auto children = union_of(step);
        auto diff =
            diff_records(expectation.owed, children, CompareBy::identity, CompareBy::identity);
        auto beyond_owed = extra_records(expectation.owed, children, CompareBy::identity);
        report_diff(diff, context, outcome,
                    fmt::format("emitted by the full range after checkpoint {}, by neither child "
                                "range resumed from it",
                                checkpoint + 1),
                    "");
        report_changed(changed_records(expectation.owed, children), context, outcome,
                       fmt::format("child ranges resumed from checkpoint {}", checkpoint + 1));
        // Re-emitting what the parent's checkpoint committed is X-STATE-3's SHOULD; a record
        // beyond that is a duplicate among the children.
        auto reemitted = overlap_records(beyond_owed, expectation.committed, CompareBy::identity);
        auto names = stream_names(context);
        for (const auto& record : reemitted.examples) {
            outcome.advise(
                fmt::format("re-emitted by a child range although the parent's "
                            "checkpoint {} committed it: {}",
                            checkpoint + 1, describe_record(record, names)));
        }
        outcome.advisories += reemitted.count - reemitted.examples.size();
        outcome.occurrences += reemitted.count - reemitted.examples.size();
        auto reread =
            overlap_records(beyond_owed, expectation.committed_to_reread, CompareBy::identity, 0);
        auto duplicates = diff.extra_count - reemitted.count - reread.count;
        if (duplicates > 0) {
            outcome.add(
                fmt::format("{} record(s) emitted by the child ranges beyond what the full "
                            "range owed after checkpoint {} (duplicates across children)",
                            duplicates, checkpoint + 1));
        }
    }
    auto shard_resumes = resume_steps(context, true).empty()
                             ? std::vector<ResumeComparison>{}
                             : compare_resumes(context, outcome, true);
    for (const auto& comparison : shard_resumes) {
        auto when = fmt::format("after resuming the shard {} from its own checkpoint {}",
                                comparison.base->label, comparison.checkpoint + 1);
        require_clean_exit(*comparison.resumed, "the resumed shard's read", outcome,
                           comparison.base);
        report_diff(comparison.lost, context, outcome, "lost " + when, "");
        report_changed(comparison.changed, context, outcome, when);
        auto names = stream_names(context);
        for (const auto& record : comparison.reemitted.examples) {
            outcome.advise(fmt::format("re-emitted {}: already committed by it: {}", when,
                                       describe_record(record, names)));
        }
        outcome.advisories += comparison.reemitted.count - comparison.reemitted.examples.size();
        outcome.occurrences += comparison.reemitted.count - comparison.reemitted.examples.size();
        any = true;
    }
    if (!any) {
        outcome.skip("no split resumed from a checkpoint in this scenario");
    }
    outcome.note = "loss is a MUST; re-emission of committed records a SHOULD (X-STATE-3)";
}

void check_range_absent(const ScenarioContext& context, CheckOutcome& outcome) {
    const StepResult* absent = plain_read(context);
    const StepResult* full = context.first_run_with(Role::full_range_read);
    if (absent == nullptr || full == nullptr) {
        outcome.not_applicable = "needs a read without range and one with the full range";
        return;
    }
    compare_reads(full->runs.front(), absent->runs.front(), context, outcome,
                  "emitted with the full range, not without a range",
                  "emitted without a range, not with the full range", "without a range");
}

void check_range_malformed(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto& step : context.steps) {
        if (step.step->range.kind != RangeChoice::Kind::malformed) {
            continue;
        }
        for (const auto& run : step.runs) {
            auto records = run.count("RECORD");
            if (run.process.exit.succeeded() || records > 0 ||
                run.process.stop_reason == process::StopReason::timeout) {
                outcome.add(fmt::format("a malformed range was accepted: {}, {} record(s) emitted",
                                        run.process.stop_reason == process::StopReason::timeout
                                            ? "timed out"
                                            : run.process.exit.describe(),
                                        records),
                            run.label);
            }
        }
    }
}

// The state as RFC 7396 reads it: applied as a patch to {}, so members set to null are absent (a
// full state may spell "no value" as null where a patch reduction simply has no member).
std::string as_merge_result(const std::string& materialized) {
    if (materialized.empty()) {
        return materialized;
    }
    auto document = json::parse_json_text(materialized, "reduced state");
    auto& allocator = document.GetAllocator();
    auto read_as_patch = [&allocator](rapidjson::Value& value) {
        rapidjson::Value result(rapidjson::kObjectType);
        json::apply_merge_patch(result, value, allocator);
        value = result;
    };
    if (document.IsArray()) {
        for (auto& entry : document.GetArray()) {  // one entry per stream
            read_as_patch(entry);
        }
    } else {
        read_as_patch(document);
    }
    return json::to_canonical_json(document);
}

void check_merge_equals_full(const ScenarioContext& context, CheckOutcome& outcome) {
    const StepResult* patches = nullptr;
    const StepResult* full = nullptr;
    for (const auto& step : context.steps) {
        if (step.step->state_from.empty() && !step.runs.empty()) {
            if (step.step->config == ConfigChoice::merge) {
                patches = &step;
            } else if (step.step->config == ConfigChoice::full_state) {
                full = &step;
            }
        }
    }
    if (patches == nullptr || full == nullptr) {
        outcome.not_applicable = "needs a read with merge-patch states and one with full states";
        return;
    }
    const auto& reduced = patches->runs.front().checkpoints;
    const auto& whole = full->runs.front().checkpoints;
    if (reduced.size() != whole.size()) {
        outcome.add(fmt::format("{} merge-patch checkpoints but {} full-state checkpoints",
                                reduced.size(), whole.size()));
    }
    for (std::size_t i = 0; i < std::min(reduced.size(), whole.size()); ++i) {
        auto patched = as_merge_result(reduced[i].materialized);
        auto full_state = as_merge_result(whole[i].materialized);
        if (patched != full_state) {
            outcome.add(fmt::format("checkpoint {}: the reduced patches give {} but the full state "
                                    "is {}",
                                    i + 1, patched, full_state),
                        patches->runs.front().label, reduced[i].line);
        }
    }
    outcome.note = "each checkpoint compared as RFC 7396 reads it: a member set to null is absent";
}

void check_projections(const ScenarioContext& context, CheckOutcome& outcome) {
    const StepResult* plain = nullptr;
    const StepResult* projected = nullptr;
    for (const auto& step : context.steps) {
        if (step.step->apply_projections && !step.runs.empty()) {
            plain = &step;
        } else if (step.step->projections == ProjectionChoice::configured && !step.runs.empty()) {
            projected = &step;
        }
    }
    if (plain == nullptr || projected == nullptr) {
        outcome.not_applicable = "needs a plain read and one with the configured projections";
        return;
    }
    auto diff = diff_records(RecordSet(plain->runs.front()), RecordSet(projected->runs.front()),
                             CompareBy::projected, CompareBy::content);
    report_diff(
        diff, context, outcome,
        "the plain record with the projections applied by conform was not emitted by the "
        "run with projections",
        "emitted by the run with projections but differs from every projected plain record");
}

void check_compat(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto* plain = plain_read(context);
    const StepResult* neutral = nullptr;
    for (const auto& step : context.steps) {
        if (step.step->neutral_extension_keys && !step.runs.empty()) {
            neutral = &step;
        }
    }
    if (plain == nullptr || neutral == nullptr) {
        outcome.not_applicable = "needs a plain read and one with neutral extension keys";
        return;
    }
    const auto& with_keys = neutral->runs.front();
    if (with_keys.process.exit.describe() != plain->runs.front().process.exit.describe()) {
        outcome.add(fmt::format("with neutral extension keys the read ended with {}, without them "
                                "with {}",
                                with_keys.process.exit.describe(),
                                plain->runs.front().process.exit.describe()),
                    with_keys.label, 0, with_keys.process.stderr_text.substr(0, 300));
    }
    compare_reads(plain->runs.front(), with_keys, context, outcome,
                  "emitted without extension keys, not with them",
                  "emitted with extension keys, not without them", "with neutral extension keys");
}

}  // namespace

std::vector<CheckDefinition> extension_checks() {
    using enum checks::Level;
    using enum Role;
    constexpr auto across = CheckKind::across_runs;
    return {
        {{ids::state_commits,
          {"X-STATE-1"},
          must,
          "each STATE commits exactly the records before it"},
         across,
         {resumed_read},
         check_commit_boundaries},
        {{ids::state_resume, {"X-STATE-2"}, must, "resuming from a checkpoint loses nothing"},
         across,
         {resumed_read},
         check_resume_loss},
        {{ids::state_new_data,
          {"X-STATE-2"},
          must,
          "data added after the final STATE is delivered by the next incremental read"},
         across,
         {inject_after, resumed_read},
         check_next_read_delivers},
        {{ids::state_exactly_once,
          {"X-STATE-3"},
          should,
          "resuming from a checkpoint re-emits nothing already committed"},
         across,
         {resumed_read},
         check_resume_exactly_once},
        {{ids::tail_off, {"X-TAIL-1"}, must, "with tail false the connector exits 0 in time"},
         across,
         {read},
         check_tail_off},
        {{ids::tail_on,
          {"X-TAIL-2"},
          must,
          "with tail true the connector delivers the backlog, keeps running and stops on SIGTERM"},
         across,
         {tailing_read},
         check_tail_on},
        {{ids::tail_delivers,
          {"X-TAIL-2"},
          must,
          "with tail true the connector delivers data added while it runs, then a STATE"},
         across,
         {tailing_read},
         check_tail_delivers},
        {{ids::tail_resume, {"X-TAIL-3"}, must, "resuming a stopped tail run loses nothing"},
         across,
         {tailing_read, resumed_read},
         check_tail_resume},
        {{ids::range_split,
          {"X-RANGE-1"},
          must,
          "split ranges together emit the full range's records exactly once"},
         across,
         {shard_reads},
         check_range_split},
        {{ids::range_subdivide,
          {"X-RANGE-2"},
          must,
          "child ranges resumed from the parent's state emit exactly what the parent would"},
         across,
         {shard_reads, resumed_read},
         check_range_subdivision},
        {{ids::range_absent, {"X-RANGE-3"}, must, "an absent range behaves as the full range"},
         across,
         {plain_read, full_range_read},
         check_range_absent},
        {{ids::range_malformed, {"X-RANGE-4"}, should, "a malformed range fails without data"},
         across,
         {malformed_range},
         check_range_malformed},
        {{ids::merge_resume,
          {"X-MERGE-2"},
          must,
          "resuming from merge-reduced states loses nothing"},
         across,
         {merge_read, resumed_read},
         check_resume_loss},
        {{ids::merge_equals_full,
          {"X-MERGE-3"},
          should,
          "reduced patch states equal the full states at every checkpoint"},
         across,
         {merge_read, full_state_read},
         check_merge_equals_full},
        {{ids::projections,
          {"X-PROJ-1"},
          must,
          "records with projections equal the plain records with the projections applied"},
         across,
         {projected_read},
         check_projections},
        {{ids::compat, {"X-COMPAT-1"}, must, "extension keys at neutral values change nothing"},
         across,
         {plain_read, neutral_keys},
         check_compat},
    };
}

}  // namespace conform::suite
