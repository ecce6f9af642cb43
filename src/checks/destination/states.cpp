// The destination checks of STATE echoes (DST-STATE-*): their order and completeness, their
// destinationStats, and what a kill after an echo and the resume from it leave in the destination.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checks/destination/destination.hpp"
#include "checks/destination/helpers.hpp"
#include "util/text.hpp"

namespace conform::checks::dst {

namespace {

using destination::Input;
using destination::InputMessage;
using destination::SyncMode;

std::string state_text(const Input& input, std::size_t index) {
    const auto& state = input.messages[index];
    return fmt::format("STATE {} (input line {})", state.state_number, state.number);
}

// The key echoes are ordered by: their stream for per-stream STATEs, one key for the others.
std::string order_key(const InputMessage& state) {
    return state.all_streams || !state.stream ? std::string("*") : std::to_string(*state.stream);
}

void judge_echo_order(const Run& run, const Input& input, Verdict& verdict) {
    std::map<std::string, std::size_t> last;
    for (const auto& echo : run.echoes) {
        if (!echo.input_index) {
            verdict.fail("echoed a STATE it was never sent: " + echo.mismatch,
                         {run.label, echo.line, echo.text});
            continue;
        }
        auto key = order_key(input.messages[*echo.input_index]);
        auto found = last.find(key);
        if (found != last.end() && found->second >= *echo.input_index) {
            verdict.fail(
                fmt::format("echoed {} after {}: STATEs are echoed in the order received, "
                            "each once",
                            state_text(input, *echo.input_index), state_text(input, found->second)),
                {run.label, echo.line, echo.text});
            continue;
        }
        last[key] = *echo.input_index;
    }
}

// The last STATE of each stream (the last one for GLOBAL or LEGACY states) must be echoed by a
// write that exits 0; skipping others only coarsens the checkpoints.
void judge_echo_completeness(const Inputs& inputs, const Run& run, const Input& input,
                             Verdict& verdict) {
    std::vector<bool> echoed(input.messages.size(), false);
    for (const auto& echo : run.echoes) {
        if (echo.input_index) {
            echoed[*echo.input_index] = true;
        }
    }
    std::vector<std::optional<std::size_t>> finals;
    if (input.per_stream_states) {
        for (std::size_t s = 0; s < inputs.catalog().streams().size(); ++s) {
            finals.push_back(last_state_index(input, s));
        }
    } else {
        finals.push_back(last_state_index(input, std::nullopt));
    }
    for (std::size_t f = 0; f < finals.size(); ++f) {
        if (finals[f] && !echoed[*finals[f]]) {
            verdict.fail(fmt::format("the last STATE{} ({}) was never echoed though the write "
                                     "exited 0: the next sync would start over from an older "
                                     "state",
                                     input.per_stream_states
                                         ? fmt::format(" of stream '{}'", stream_name(inputs, f))
                                         : "",
                                     state_text(input, *finals[f])),
                         {run.label});
        }
    }
    std::size_t skipped = 0;
    std::optional<std::size_t> first;
    for (std::size_t i = 0; i < input.messages.size(); ++i) {
        bool final_state = std::find(finals.begin(), finals.end(), i) != finals.end();
        if (input.messages[i].kind == InputMessage::Kind::state && !echoed[i] && !final_state) {
            ++skipped;
            first = first.value_or(i);
        }
    }
    if (skipped > 0) {
        verdict.advise(
            fmt::format("{} of the {} STATEs sent were not echoed (the first: {}): the "
                        "destination checkpoints less often than the source, and a "
                        "resumed sync sends more again",
                        skipped, input.count(InputMessage::Kind::state), state_text(input, *first)),
            {run.label});
    }
}

// DST-STATE-1: echoes are STATEs the write was sent, in order, each once; one that exits 0 has
// echoed the last of each stream (SHOULD: every one).
void check_states_echoed(const Inputs& inputs, Verdict& verdict) {
    for_each_run(inputs, 0, [&](const StepResult& step, const Run& run) {
        if (step.input == nullptr || step.input->count(InputMessage::Kind::state) == 0) {
            return;
        }
        verdict.judged(step.input->count(InputMessage::Kind::state));
        judge_echo_order(run, *step.input, verdict);
        if (run.exited_cleanly()) {
            judge_echo_completeness(inputs, run, *step.input, verdict);
        }
    });
}

// DST-STATE-3: destinationStats.recordCount counts the records of the STATE's stream since the
// one before (since the one echoed before, when the destination skipped some).
void check_destination_stats(const Inputs& inputs, Verdict& verdict) {
    for_each_run(inputs, 0, [&](const StepResult& step, const Run& run) {
        if (step.input == nullptr) {
            return;
        }
        const auto& input = *step.input;
        std::map<std::string, std::uint64_t> since_echo;  // by order key
        std::map<std::string, std::size_t> previous;
        for (const auto& echo : run.echoes) {
            if (!echo.input_index) {
                continue;
            }
            const auto& state = input.messages[*echo.input_index];
            auto key = order_key(state);
            std::uint64_t cumulative = 0;
            for (std::size_t i = previous.contains(key) ? previous[key] + 1 : 0;
                 i <= *echo.input_index; ++i) {
                const auto& message = input.messages[i];
                if (message.kind == InputMessage::Kind::state && order_key(message) == key) {
                    cumulative += message.records_since;
                }
            }
            previous[key] = *echo.input_index;
            if (!echo.destination_count) {
                continue;
            }
            verdict.judged();
            auto count = *echo.destination_count;
            if (count != static_cast<double>(state.records_since) &&
                count != static_cast<double>(cumulative)) {
                verdict.fail(
                    fmt::format("{} came after {} record(s){}; its echo says "
                                "destinationStats.recordCount {}",
                                state_text(input, *echo.input_index), state.records_since,
                                state.all_streams ? ""
                                                  : fmt::format(" of stream '{}'",
                                                                stream_name(inputs, *state.stream)),
                                count),
                    {run.label, echo.line, echo.text});
            }
        }
    });
}

// Why what landed cannot be judged, or nothing when it can.
std::optional<std::string> unreadable(const StepResult& verify) {
    if (!verify.verify) {
        return "verify did not run";
    }
    if (!verify.verify->problem.empty()) {
        return "what landed could not be read: " + verify.verify->problem;
    }
    return std::nullopt;
}

// What must be in a stream right after the kill: the completed syncs' records and those of the
// killed write before its last echoed STATE of the stream. `judged`: the stream shows rows as it
// commits them (append, append_dedup, and an overwrite stream that shows any row of the killed
// write; one that shows none may keep them hidden until the sync ends).
struct AtKill {
    bool judged = false;
    std::unordered_map<json::Digest, std::uint64_t> required;         // append: by content
    std::unordered_map<json::Digest, const InputMessage*> committed;  // records of the killed write
};

AtKill required_at_kill(const Inputs& inputs, const StepResult& verify, const StepResult& killed,
                        std::size_t stream) {
    AtKill at_kill;
    const auto& input = *killed.input;
    at_kill.judged = inputs.catalog().streams()[stream].mode != SyncMode::overwrite;
    auto through =
        committed_through(input, killed.run()->echoes, inputs.catalog().streams().size())[stream];
    auto earlier = destination::appended(verify.history, stream);
    for (const auto& [content, bounds] : earlier) {
        at_kill.required[content] += bounds.required;
    }
    for (std::size_t i = 0; through && i < *through; ++i) {
        const auto& message = input.messages[i];
        if (message.kind == InputMessage::Kind::record && message.stream == stream) {
            ++at_kill.required[message.content];
            at_kill.committed[message.content] = &message;
        }
    }
    if (!at_kill.judged && verify.verify && verify.verify->problem.empty()) {
        for (const auto& row : verify.verify->landed.rows) {
            bool of_killed = std::any_of(
                input.messages.begin(), input.messages.end(), [&](const InputMessage& message) {
                    return message.stream == stream && message.content == row.content;
                });
            at_kill.judged = at_kill.judged ||
                             (row.stream == stream && of_killed && !earlier.contains(row.content));
        }
    }
    return at_kill;
}

// The rows of syncs completed before the killed one, which neither the kill nor the resume may
// take away: an append stream keeps every copy, an append_dedup stream every key (an overwrite
// stream may have begun replacing them).
std::uint64_t judge_earlier_rows(const Inputs& inputs, const StepResult& verified, int killed_sync,
                                 std::size_t stream, std::string_view when, Verdict& verdict) {
    std::uint64_t judged = 0;
    const auto& catalog = inputs.catalog();
    const auto& landed = verified.verify->landed;
    auto mode = catalog.streams()[stream].mode;
    if (mode == SyncMode::append_dedup) {
        auto keys = destination::rows_by_key(landed, stream);
        for (const auto& [key, latest] : destination::latest_by_key(verified.history, stream)) {
            if (latest.sync == killed_sync) {
                continue;
            }
            ++judged;
            verdict.judged();
            if (!keys.contains(key)) {
                verdict.fail(
                    fmt::format("{} is not in the destination {}: the killed sync sent "
                                "no record of its key",
                                destination::describe(catalog, *latest.record, latest.sync), when));
            }
        }
    } else if (mode == SyncMode::append) {
        auto counts = destination::count_by_content(landed, stream);
        for (const auto& [content, bounds] : destination::appended(verified.history, stream)) {
            if (bounds.sync == killed_sync || bounds.example == nullptr) {
                continue;
            }
            ++judged;
            verdict.judged();
            if (counts[content] < bounds.required) {
                verdict.fail(fmt::format(
                    "{} is in the destination {} time(s) {}, where the completed syncs before "
                    "appended it {} time(s)",
                    destination::describe(catalog, *bounds.example, bounds.sync), counts[content],
                    when, bounds.required));
            }
        }
    }
    return judged;
}

void note_earlier_rows(std::uint64_t judged, Verdict& verdict) {
    if (judged > 0) {
        verdict.note(
            fmt::format("{} record(s) of the syncs completed before the killed one held "
                        "too (append copies, append_dedup keys)",
                        judged));
    }
}

// Where the write was killed: a buffered destination's echoes come in bursts, so more of them may
// have come before the kill than the test config's kill_after_echo.
void note_kill(const Inputs& inputs, const destination::Run& killed, Verdict& verdict) {
    auto asked = inputs.test_config().kill_after_echo;
    auto matched = static_cast<std::size_t>(
        std::count_if(killed.echoes.begin(), killed.echoes.end(),
                      [](const destination::Echo& echo) { return echo.input_index.has_value(); }));
    if (matched > asked) {
        verdict.note(
            fmt::format("killed after STATE echo {} (kill_after_echo {}: the echoes "
                        "before the kill came in one burst)",
                        matched, asked));
    } else {
        verdict.note(fmt::format("killed right after STATE echo {}", asked));
    }
}

// DST-STATE-2: right after the kill, every record before an echoed STATE is in the destination
// (append and append_dedup streams, which show rows as they commit them).
void check_state_after_commit(const Inputs& inputs, Verdict& verdict) {
    const auto& killed = inputs.first(0);
    const auto& verify = inputs.first(1);
    if (!killed.run()->killed) {
        verdict.skip("the write was not killed: " + killed.run()->not_killed);
        return;
    }
    if (auto problem = unreadable(verify)) {
        verdict.fail(*problem);
        return;
    }
    const auto& landed = verify.verify->landed;
    const auto& streams = inputs.catalog().streams();
    std::vector<std::string> hidden;
    std::uint64_t earlier = 0;
    for (std::size_t s = 0; s < streams.size(); ++s) {
        auto at_kill = required_at_kill(inputs, verify, killed, s);
        if (!at_kill.judged) {
            hidden.push_back(streams[s].airbyte.display_name());
            continue;
        }
        auto counts = destination::count_by_content(landed, s);
        auto keys = destination::rows_by_key(landed, s);
        for (const auto& [content, record] : at_kill.committed) {
            verdict.judged();
            bool present = streams[s].mode != SyncMode::append_dedup
                               ? counts[content] >= at_kill.required[content]
                               : record->key && keys.contains(*record->key);
            if (!present) {
                verdict.fail(
                    fmt::format("{} came before a STATE the destination echoed, but is "
                                "not in it after the kill: a STATE is echoed only once "
                                "the records before it are durable",
                                destination::describe(inputs.catalog(), *record, killed.sync)));
            }
        }
        earlier +=
            judge_earlier_rows(inputs, verify, killed.sync, s, "right after the kill", verdict);
    }
    note_earlier_rows(earlier, verdict);
    note_kill(inputs, *killed.run(), verdict);
    if (!hidden.empty()) {
        verdict.note(
            fmt::format("{} showed no row of the killed write (an overwrite may keep "
                        "them hidden until the sync ends): judged after the resume",
                        fmt::join(hidden, ", ")));
    }
}

// DST-STATE-4: after the resume the destination holds every record of the killed sync; a record
// sent again may be there twice where the mode appends, never twice under one key in
// append_dedup. A record that was missing right after the kill although a STATE after it was
// echoed is dst.state_after_commit's finding, not counted twice.
void check_resume_no_loss(const Inputs& inputs, Verdict& verdict) {
    const auto& killed = inputs.first(0);
    const auto& at_kill = inputs.first(1);
    const auto& resumed = inputs.first(2);
    if (!killed.run()->killed) {
        verdict.skip("the write was not killed: " + killed.run()->not_killed);
        return;
    }
    if (auto problem = unreadable(resumed)) {
        verdict.fail(*problem);
        return;
    }
    const auto& history = resumed.history;
    if (history.empty() || !history.back().completed) {
        verdict.skip("the resumed write did not exit 0 (see dst.write_exit)");
        return;
    }
    int sync = killed.sync;
    const auto& landed = resumed.verify->landed;
    const auto* kill_landed = !unreadable(at_kill) ? &at_kill.verify->landed : nullptr;
    const auto& streams = inputs.catalog().streams();
    std::uint64_t explained = 0;
    std::uint64_t earlier = 0;
    std::uint64_t not_deduplicated = 0;
    for (std::size_t s = 0; s < streams.size(); ++s) {
        auto mode = streams[s].mode;
        earlier += judge_earlier_rows(inputs, resumed, sync, s, "after the resume", verdict);
        auto committed = required_at_kill(inputs, at_kill, killed, s);
        auto kill_counts = kill_landed != nullptr
                               ? destination::count_by_content(*kill_landed, s)
                               : std::unordered_map<json::Digest, std::uint64_t>{};
        auto kill_keys = kill_landed != nullptr ? destination::rows_by_key(*kill_landed, s)
                                                : decltype(destination::rows_by_key(landed, s)){};
        // Not durable when its STATE was echoed: missing right after the kill.
        auto lost_at_kill = [&](const InputMessage& record) {
            if (kill_landed == nullptr || !committed.judged ||
                !committed.committed.contains(record.content)) {
                return false;
            }
            return mode != SyncMode::append_dedup
                       ? kill_counts[record.content] < committed.required[record.content]
                       : record.key && !kill_keys.contains(*record.key);
        };
        if (mode == SyncMode::append_dedup) {
            // Several rows under a key before the resume: the destination does not deduplicate
            // (dst.dedup_latest's finding), and the resume is not the cause.
            bool undeduplicated_at_kill =
                std::any_of(kill_keys.begin(), kill_keys.end(),
                            [](const auto& rows) { return rows.second.size() > 1; });
            auto keys = destination::rows_by_key(landed, s);
            for (const auto& [key, latest] : destination::latest_by_key(history, s)) {
                if (latest.sync != sync) {
                    continue;
                }
                verdict.judged();
                auto found = keys.find(key);
                auto rows = found == keys.end() ? 0 : found->second.size();
                if (rows == 0 && lost_at_kill(*latest.record)) {
                    ++explained;
                } else if (rows == 0) {
                    verdict.fail("lost after the resume: " +
                                 destination::describe(inputs.catalog(), *latest.record, sync));
                } else if (rows > 1 && undeduplicated_at_kill) {
                    ++not_deduplicated;
                } else if (rows > 1) {
                    verdict.fail(fmt::format(
                        "{} rows under one key after the resume, append_dedup "
                        "keeps one: {}",
                        rows, destination::describe(inputs.catalog(), *found->second[1])));
                }
            }
            continue;
        }
        auto counts = destination::count_by_content(landed, s);
        auto expected = mode == SyncMode::append ? destination::appended(history, s)
                                                 : destination::overwritten(history, s);
        for (const auto& [content, bounds] : expected) {
            if (bounds.sync != sync || bounds.example == nullptr) {
                continue;
            }
            verdict.judged();
            auto count = counts[content];
            if (count < bounds.required && lost_at_kill(*bounds.example)) {
                ++explained;
            } else if (count < bounds.required) {
                verdict.fail(
                    fmt::format("lost after the resume: {} ({} of {} in the destination)",
                                destination::describe(inputs.catalog(), *bounds.example, sync),
                                count, bounds.required));
            } else if (count > bounds.allowed) {
                verdict.fail(
                    fmt::format("{} is in the destination {} times, sent {} times: more "
                                "than sending it again explains",
                                destination::describe(inputs.catalog(), *bounds.example, sync),
                                count, bounds.allowed));
            }
        }
    }
    note_earlier_rows(earlier, verdict);
    if (not_deduplicated > 0) {
        verdict.note(
            fmt::format("{} append_dedup key(s) with several rows after the resume had "
                        "several right after the kill too: the destination does not "
                        "deduplicate (dst.dedup_latest reports it), not a loss or "
                        "repeat of the resume",
                        not_deduplicated));
    }
    if (explained > 0) {
        verdict.note(
            fmt::format("{} record(s) missing after the resume were missing right after "
                        "the kill too, though a STATE after them was echoed: "
                        "dst.state_after_commit reports them",
                        explained));
    }
}

}  // namespace

destination::Checks state_checks() {
    using enum report::Level;
    using enum destination::Role;
    using engine::Count;
    return {
        {{"dst.states_echoed",
          {"DST-STATE-1"},
          must,
          "every input STATE is echoed in order, once; the last of each stream by a write that "
          "exits 0"},
         {{write, {}, {bad_records}}},
         "no write was sent a STATE",
         check_states_echoed},
        {{"dst.destination_stats",
          {"DST-STATE-3"},
          must,
          "destinationStats.recordCount of an echoed STATE counts the records before it"},
         {{write, {}, {bad_records}}},
         "no echo of a STATE it was sent carried destinationStats",
         check_destination_stats},
        {{"dst.state_after_commit",
          {"DST-STATE-2"},
          must,
          "killed right after a STATE echo, the destination holds every record before it"},
         {{killed, {}, {}, std::nullopt, Count::one},
          {after_kill, {}, {}, std::nullopt, Count::one}},
         "no record came before an echoed STATE of an append or append_dedup stream",
         check_state_after_commit,
         nullptr,
         true},
        {{"dst.resume_no_loss",
          {"DST-STATE-4"},
          must,
          "killed and resumed from its echoed STATEs, the destination loses no record of the sync"},
         {{killed, {}, {}, std::nullopt, Count::one},
          {after_kill, {}, {}, std::nullopt, Count::one},
          {after_resume, {}, {}, std::nullopt, Count::one}},
         "the killed sync sent no record",
         check_resume_no_loss,
         nullptr,
         true},
    };
}

}  // namespace conform::checks::dst
