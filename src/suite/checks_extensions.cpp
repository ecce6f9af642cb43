// The extension checks (X-*): resume, tail, range, merge patches, projections, compatibility.
#include <fmt/format.h>

#include <algorithm>

#include "checks/registry.hpp"
#include "suite/check_helpers.hpp"
#include "suite/compare.hpp"

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

// Steps that resume from a checkpoint of an earlier full run, without a range split.
std::vector<const StepResult*> resume_steps(const ScenarioContext& context) {
    std::vector<const StepResult*> steps;
    for (const auto& step : context.steps) {
        if (!step.step->state_from.empty() && step.step->split.empty()) {
            steps.push_back(&step);
        }
    }
    return steps;
}

struct ResumeComparison {
    DiffCounts lost;    // records after the checkpoint the resumed run did not emit
    Overlap reemitted;  // records committed by the checkpoint that the resumed run emitted again
    std::size_t checkpoint;
    const protocol::Observation* base;
};

std::vector<ResumeComparison> compare_resumes(const ScenarioContext& context,
                                              CheckOutcome& outcome) {
    std::vector<ResumeComparison> comparisons;
    auto steps = resume_steps(context);
    if (steps.empty()) {
        outcome.not_applicable = "no resume step in this scenario";
    }
    for (const auto* step : steps) {
        const auto* base = base_of(context, *step);
        if (base == nullptr || step->runs.empty()) {
            outcome.not_applicable =
                step->why_not.empty() ? "the base run did not run" : step->why_not;
            continue;
        }
        const auto& base_run = base->runs.front();
        for (std::size_t i = 0; i < step->runs.size(); ++i) {
            auto checkpoint = *step->plans[i].checkpoint;
            auto after = records_of(base_run, [checkpoint](const protocol::RecordEntry& entry) {
                return entry.checkpoint > checkpoint;
            });
            auto committed = records_of(base_run, [checkpoint](const protocol::RecordEntry& entry) {
                return entry.checkpoint <= checkpoint;
            });
            auto resumed = records_of(step->runs[i]);
            comparisons.push_back(
                {diff_records(after, resumed, CompareBy::identity, CompareBy::identity),
                 overlap_records(resumed, committed, CompareBy::identity), checkpoint, &base_run});
        }
    }
    return comparisons;
}

void check_resume_loss(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto& comparison : compare_resumes(context, outcome)) {
        auto text = fmt::format(
            "lost after resuming from checkpoint {} (line {}): emitted after it "
            "by the uninterrupted run, never by the resumed run",
            comparison.checkpoint + 1, comparison.base->checkpoints[comparison.checkpoint].line);
        report_diff(comparison.lost, context, outcome, text, "");
    }
}

void check_resume_exactly_once(const ScenarioContext& context, CheckOutcome& outcome) {
    auto names = stream_names(context);
    for (const auto& comparison : compare_resumes(context, outcome)) {
        for (const auto& record : comparison.reemitted.examples) {
            outcome.add(
                fmt::format("re-emitted after resuming from checkpoint {}: already "
                            "committed by it: {}",
                            comparison.checkpoint + 1, describe_record(record, names)));
        }
        outcome.occurrences += comparison.reemitted.count - comparison.reemitted.examples.size();
    }
}

// A loss confined to the records right after checkpoint k means STATE k claimed records that
// were emitted only after it.
void check_commit_boundaries(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto& comparison : compare_resumes(context, outcome)) {
        if (comparison.lost.missing_count == 0) {
            continue;
        }
        auto next = static_cast<std::uint32_t>(comparison.checkpoint + 1);
        bool all_in_next_window = std::all_of(
            comparison.lost.examples.missing.begin(), comparison.lost.examples.missing.end(),
            [next](const RecordRef& record) { return record.entry->checkpoint == next; });
        if (!all_in_next_window) {
            continue;
        }
        const auto& state = comparison.base->checkpoints[comparison.checkpoint];
        outcome.add(
            fmt::format("STATE {} (line {}) covers records emitted after it: resuming from "
                        "it skips the {} record(s) between it and the next STATE",
                        comparison.checkpoint + 1, state.line, comparison.lost.missing_count),
            comparison.base->label, state.line);
    }
}

void check_tail_off(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto& step : context.steps) {
        // An absent tail means false (X-TAIL-1); malformed-range runs are meant to fail.
        if (step.step->run != "read" || step.step->tail == "true" ||
            step.step->range == "malformed") {
            continue;
        }
        for (const auto& run : step.runs) {
            if (run.process.stop_reason == process::StopReason::timeout) {
                outcome.add(fmt::format("with tail {} the connector was still running after "
                                        "its timeout ({} ms)",
                                        step.step->tail, run.process.elapsed.count()),
                            run.label);
            } else if (!exited_cleanly(run)) {
                outcome.add(fmt::format("with tail {} expected exit code 0, got {}",
                                        step.step->tail, run.process.exit.describe()),
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

void check_tail_on(const ScenarioContext& context, CheckOutcome& outcome) {
    collect_findings(std::string(ids::tail_on), context, outcome);
    const auto* step = tail_step(context);
    if (step == nullptr) {
        outcome.not_applicable = "no tailing step in this scenario";
        return;
    }
    const auto& run = step->runs.front();
    const auto& config = *context.test_config;
    if (run.process.stop_reason != process::StopReason::requested) {
        outcome.add(fmt::format("with tail true the connector ended on its own ({}) after {} ms, "
                                "before the {} ms observation window closed",
                                run.process.exit.describe(), run.process.elapsed.count(),
                                config.observe.count()),
                    run.label);
        return;
    }
    if (run.records_after_mark == 0) {
        outcome.add(fmt::format("no record arrived after new data was injected at {} ms",
                                config.inject_after.count()),
                    run.label);
    }
    if (run.process.killed_after_grace) {
        outcome.add(fmt::format("did not exit within the {} ms grace period after SIGTERM and was "
                                "killed",
                                config.grace.count()),
                    run.label);
    }
}

void check_tail_resume(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto* tail = tail_step(context);
    const StepResult* resume = nullptr;
    const StepResult* truth = nullptr;
    for (const auto& step : context.steps) {
        if (tail != nullptr && step.step->state_from == tail->step->id) {
            resume = &step;
        } else if (step.step->run == "read" && step.step->state_from.empty() &&
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
    const auto& tail_run = tail->runs.front();
    auto committed_count = static_cast<std::uint32_t>(tail_run.checkpoints.size());
    auto committed = records_of(tail_run, [committed_count](const protocol::RecordEntry& entry) {
        return entry.checkpoint < committed_count;
    });
    auto delivered = committed;
    auto resumed = records_of(resume->runs.front());
    delivered.insert(delivered.end(), resumed.begin(), resumed.end());
    auto diff = diff_records(records_of(truth->runs.front()), delivered, CompareBy::identity,
                             CompareBy::identity);
    report_diff(diff, context, outcome,
                "lost: committed by neither the stopped tail run nor the run resumed from its last "
                "STATE",
                "");
}

// The first read step of the scenario that sets no range, split, state or other extension.
const StepResult* plain_read(const ScenarioContext& context) {
    for (const auto& step : context.steps) {
        const auto& s = *step.step;
        if (s.run == "read" && s.split.empty() && s.state_from.empty() && s.range == "absent" &&
            !s.neutral_extension_keys && s.projections == "none" && !step.runs.empty()) {
            return &step;
        }
    }
    return nullptr;
}

const StepResult* full_range_read(const ScenarioContext& context) {
    for (const auto& step : context.steps) {
        if (step.step->run == "read" && step.step->range == "full" && step.step->split.empty() &&
            step.step->state_from.empty() && !step.runs.empty()) {
            return &step;
        }
    }
    return plain_read(context);
}

std::vector<RecordRef> union_of(const StepResult& step) {
    std::vector<RecordRef> records;
    for (const auto& run : step.runs) {
        auto part = records_of(run);
        records.insert(records.end(), part.begin(), part.end());
    }
    return records;
}

void check_range_split(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto* full = full_range_read(context);
    if (full == nullptr) {
        outcome.not_applicable = "no full-range read in this scenario";
        return;
    }
    auto expected = records_of(full->runs.front());
    for (const auto& step : context.steps) {
        if (step.step->split.empty() || !step.step->state_from.empty()) {
            continue;
        }
        auto diff =
            diff_records(expected, union_of(step), CompareBy::identity, CompareBy::identity);
        report_diff(
            diff, context, outcome,
            fmt::format("split '{}': emitted by the full range, by no shard", step.step->split),
            fmt::format("split '{}': duplicated (emitted by more shards than the full range "
                        "emitted it)",
                        step.step->split));
    }
}

void check_range_subdivision(const ScenarioContext& context, CheckOutcome& outcome) {
    bool any = false;
    for (const auto& step : context.steps) {
        if (step.step->split.empty() || step.step->state_from.empty()) {
            continue;
        }
        any = true;
        const auto* base = base_of(context, step);
        if (base == nullptr || step.runs.empty()) {
            outcome.not_applicable = step.why_not;
            return;
        }
        auto checkpoint = *step.plans.front().checkpoint;
        auto after =
            records_of(base->runs.front(), [checkpoint](const protocol::RecordEntry& entry) {
                return entry.checkpoint > checkpoint;
            });
        auto diff = diff_records(after, union_of(step), CompareBy::identity, CompareBy::identity);
        report_diff(diff, context, outcome,
                    fmt::format("emitted by the full range after checkpoint {}, by neither child "
                                "range resumed from it",
                                checkpoint + 1),
                    fmt::format("emitted by the child ranges resumed from checkpoint {} but not by "
                                "the full range after it (duplicate or re-emitted)",
                                checkpoint + 1));
    }
    if (!any) {
        outcome.not_applicable = "no split resumed from a checkpoint in this scenario";
    }
}

void check_range_absent(const ScenarioContext& context, CheckOutcome& outcome) {
    const StepResult* absent = plain_read(context);
    const StepResult* full = nullptr;
    for (const auto& step : context.steps) {
        if (step.step->range == "full" && step.step->split.empty() && !step.runs.empty()) {
            full = &step;
        }
    }
    if (absent == nullptr || full == nullptr) {
        outcome.not_applicable = "needs a read without range and one with the full range";
        return;
    }
    auto diff = diff_records(records_of(full->runs.front()), records_of(absent->runs.front()),
                             CompareBy::content, CompareBy::content);
    report_diff(diff, context, outcome, "emitted with the full range, not without a range",
                "emitted without a range, not with the full range");
}

void check_range_malformed(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto& step : context.steps) {
        if (step.step->range != "malformed") {
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

void check_merge_equals_full(const ScenarioContext& context, CheckOutcome& outcome) {
    const StepResult* patches = nullptr;
    const StepResult* full = nullptr;
    for (const auto& step : context.steps) {
        if (step.step->state_from.empty() && !step.runs.empty()) {
            if (step.step->config == "merge") {
                patches = &step;
            } else if (step.step->config == "full_state") {
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
        if (reduced[i].materialized != whole[i].materialized) {
            outcome.add(fmt::format("checkpoint {}: the reduced patches give {} but the full state "
                                    "is {}",
                                    i + 1, reduced[i].materialized, whole[i].materialized),
                        patches->runs.front().label, reduced[i].line);
        }
    }
}

void check_projections(const ScenarioContext& context, CheckOutcome& outcome) {
    const StepResult* plain = nullptr;
    const StepResult* projected = nullptr;
    for (const auto& step : context.steps) {
        if (step.step->apply_projections && !step.runs.empty()) {
            plain = &step;
        } else if (step.step->projections == "configured" && !step.runs.empty()) {
            projected = &step;
        }
    }
    if (plain == nullptr || projected == nullptr) {
        outcome.not_applicable = "needs a plain read and one with the configured projections";
        return;
    }
    auto diff = diff_records(records_of(plain->runs.front()), records_of(projected->runs.front()),
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
    auto diff = diff_records(records_of(plain->runs.front()), records_of(with_keys),
                             CompareBy::content, CompareBy::content);
    report_diff(diff, context, outcome, "emitted without extension keys, not with them",
                "emitted with extension keys, not without them");
}

}  // namespace

const std::map<std::string_view, CheckFunction>& extension_checks() {
    static const std::map<std::string_view, CheckFunction> k_checks{
        {ids::state_commits, check_commit_boundaries},
        {ids::state_resume, check_resume_loss},
        {ids::state_exactly_once, check_resume_exactly_once},
        {ids::merge_resume, check_resume_loss},
        {ids::tail_off, check_tail_off},
        {ids::tail_on, check_tail_on},
        {ids::tail_resume, check_tail_resume},
        {ids::range_split, check_range_split},
        {ids::range_subdivide, check_range_subdivision},
        {ids::range_absent, check_range_absent},
        {ids::range_malformed, check_range_malformed},
        {ids::merge_equals_full, check_merge_equals_full},
        {ids::projections, check_projections},
        {ids::compat, check_compat},
    };
    return k_checks;
}

}  // namespace conform::suite
