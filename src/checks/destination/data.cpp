// The destination checks of what landed (DST-DATA-*): the rows the test config's verify command
// prints, against what each sync mode makes of the syncs conform sent.
#include <fmt/format.h>

#include <unordered_set>

#include "checks/destination/destination.hpp"
#include "checks/destination/helpers.hpp"

namespace conform::checks::dst {

namespace {

using destination::Landed;
using destination::SyncMode;

// What landed, or nothing (and a failure) when it could not be read.
const Landed* landed_of(const StepResult& verify, Verdict& verdict) {
    if (!verify.verify) {
        verdict.skip("verify did not run");
        return nullptr;
    }
    if (!verify.verify->problem.empty()) {
        verdict.fail("what landed could not be read: " + verify.verify->problem);
        return nullptr;
    }
    return &verify.verify->landed;
}

// Every sync conform sent, by content: to tell a row of an earlier sync from one never sent.
std::unordered_set<json::Digest> ever_sent(const std::vector<destination::Sent>& history,
                                           std::size_t stream) {
    std::unordered_set<json::Digest> sent;
    for (const auto& each : history) {
        for (const auto& message : each.input->messages) {
            if (message.kind == destination::InputMessage::Kind::record &&
                message.stream == stream) {
                sent.insert(message.content);
            }
        }
    }
    return sent;
}

void fail_unknown_rows(const Inputs& inputs, const Landed& landed, std::size_t stream,
                       const std::unordered_set<json::Digest>& sent, Verdict& verdict) {
    for (const auto& row : landed.rows) {
        if (row.stream == stream && !sent.contains(row.content)) {
            verdict.fail(
                "a row that matches no record conform sent (verify prints the data as "
                "the records carried it?): " +
                    destination::describe(inputs.catalog(), row),
                {"verify", row.line, row.text});
        }
    }
}

// The records of `stream` the syncs leave in the destination, against its rows: each between
// its required and allowed counts (only the required one unless `judge_copies`).
void judge_counts(const Inputs& inputs, const Landed& landed, std::size_t stream,
                  const destination::ByContent& expected, std::string_view why_kept,
                  Verdict& verdict, bool judge_copies = true) {
    auto counts = destination::count_by_content(landed, stream);
    for (const auto& [content, bounds] : expected) {
        if (bounds.example == nullptr) {
            continue;
        }
        verdict.judged();
        auto count = counts[content];
        auto what = destination::describe(inputs.catalog(), *bounds.example, bounds.sync);
        if (count < bounds.required) {
            verdict.fail(fmt::format("{} is not in the destination ({} of {}): {}", what, count,
                                     bounds.required, why_kept));
        } else if (judge_copies && count > bounds.allowed) {
            verdict.fail(fmt::format("{} is in the destination {} times, sent {} times", what,
                                     count, bounds.allowed));
        }
    }
}

// Why what landed after `history` is not judged: a write of it failed (dst.write_exit's finding;
// what a failed sync leaves is not what its sync mode says). Empty when every write completed.
std::string failed_write_of(const std::vector<destination::Sent>& history) {
    for (const auto& each : history) {
        if (!each.completed) {
            return fmt::format(
                "the write of sync {} did not complete (see dst.write_exit): what "
                "landed after it is not held to the sync modes",
                each.sync);
        }
    }
    return "";
}

template <typename Judge>
void for_streams(const Inputs& inputs, SyncMode mode, Verdict& verdict, Judge judge) {
    if (auto failed = failed_write_of(inputs.first(0).history); !failed.empty()) {
        verdict.skip(failed);
        return;
    }
    const auto* landed = landed_of(inputs.first(0), verdict);
    if (landed == nullptr) {
        return;
    }
    const auto& streams = inputs.catalog().streams();
    for (std::size_t s = 0; s < streams.size(); ++s) {
        if (streams[s].mode == mode) {
            judge(*landed, s, inputs.first(0).history);
        }
    }
}

// DST-DATA-1: an append stream holds every record of every sync.
void check_append(const Inputs& inputs, Verdict& verdict) {
    for_streams(inputs, SyncMode::append, verdict,
                [&](const Landed& landed, std::size_t s, const auto& history) {
                    judge_counts(inputs, landed, s, destination::appended(history, s),
                                 "an append stream keeps every sync's records", verdict);
                    fail_unknown_rows(inputs, landed, s, ever_sent(history, s), verdict);
                });
}

// DST-DATA-2: an overwrite stream holds the records of the last sync, and none of the earlier.
void check_overwrite(const Inputs& inputs, Verdict& verdict) {
    for_streams(
        inputs, SyncMode::overwrite, verdict,
        [&](const Landed& landed, std::size_t s, const auto& history) {
            auto last = destination::overwritten(history, s);
            judge_counts(inputs, landed, s, last, "the last sync's records replace the stream",
                         verdict);
            auto all = destination::appended(history, s);
            for (const auto& row : landed.rows) {
                auto earlier = all.find(row.content);
                if (row.stream == s && !last.contains(row.content) && earlier != all.end()) {
                    verdict.fail(fmt::format("{} of sync {} is still there after a later sync "
                                             "overwrote the stream",
                                             destination::describe(inputs.catalog(), row),
                                             earlier->second.sync),
                                 {"verify", row.line, row.text});
                }
            }
            fail_unknown_rows(inputs, landed, s, ever_sent(history, s), verdict);
        });
}

// DST-DATA-4: an append_dedup stream holds one row per key: the record with the latest cursor.
void check_dedup(const Inputs& inputs, Verdict& verdict) {
    for_streams(
        inputs, SyncMode::append_dedup, verdict,
        [&](const Landed& landed, std::size_t s, const auto& history) {
            auto keys = destination::rows_by_key(landed, s);
            auto latest = destination::latest_by_key(history, s);
            for (const auto& [key, kept] : latest) {
                verdict.judged();
                auto what = destination::describe(inputs.catalog(), *kept.record, kept.sync);
                auto found = keys.find(key);
                if (found == keys.end()) {
                    verdict.fail("no row for the key of " + what);
                } else if (found->second.size() > 1) {
                    verdict.fail(fmt::format("{} rows for the key of {}: append_dedup keeps one",
                                             found->second.size(), what));
                } else if (found->second.front()->content != kept.record->content) {
                    const auto& row = *found->second.front();
                    verdict.fail(fmt::format("{} is not the latest version of its key: {} is",
                                             destination::describe(inputs.catalog(), row), what),
                                 {"verify", row.line, row.text});
                }
            }
            std::unordered_set<json::Digest> sent_keys;
            for (const auto& each : history) {
                for (const auto& message : each.input->messages) {
                    if (message.stream == s && message.key) {
                        sent_keys.insert(*message.key);
                    }
                }
            }
            for (const auto& row : landed.rows) {
                if (row.stream == s && (!row.key || !sent_keys.contains(*row.key))) {
                    verdict.fail("a row under a key conform never sent: " +
                                     destination::describe(inputs.catalog(), row),
                                 {"verify", row.line, row.text});
                }
            }
        });
}

// DST-DATA-3: until the sync that overwrites a stream succeeds, the previous sync's records stay.
void check_interrupted_overwrite(const Inputs& inputs, Verdict& verdict) {
    const auto& killed = inputs.first(0);
    if (!inputs.test_config().refreshes) {
        verdict.skip(
            "the test config says the destination has no refreshes (\"refreshes\": "
            "false): an interrupted overwrite may lose the previous sync");
        return;
    }
    if (!killed.run()->killed) {
        verdict.skip("the write was not killed: " + killed.run()->not_killed);
        return;
    }
    const auto* landed = landed_of(inputs.first(1), verdict);
    if (landed == nullptr) {
        return;
    }
    const auto& streams = inputs.catalog().streams();
    for (std::size_t s = 0; s < streams.size(); ++s) {
        if (streams[s].mode == SyncMode::overwrite) {
            judge_counts(inputs, *landed, s, destination::overwritten(inputs.first(1).history, s),
                         "an interrupted sync must not remove the previous sync's records", verdict,
                         false);
        }
    }
}

}  // namespace

destination::Checks data_checks() {
    using enum report::Level;
    using enum destination::Role;
    using engine::Count;
    destination::Need after_the_syncs{after_syncs, {}, {}, std::nullopt, Count::one};
    return {
        {{"dst.append_lands_all",
          {"DST-DATA-1"},
          must,
          "an append stream holds every record of every sync"},
         {after_the_syncs},
         "the catalog has no append stream",
         check_append,
         nullptr,
         true},
        {{"dst.overwrite_keeps_last",
          {"DST-DATA-2"},
          must,
          "an overwrite stream holds the last sync's records and none of the earlier ones"},
         {after_the_syncs},
         "the catalog has no overwrite stream",
         check_overwrite,
         nullptr,
         true},
        {{"dst.overwrite_interrupted_keeps_prior",
          {"DST-DATA-3"},
          must,
          "an interrupted overwrite leaves the previous sync's records in place"},
         {{killed, {}, {}, std::nullopt, Count::one},
          {after_kill, {}, {}, std::nullopt, Count::one}},
         "the catalog has no overwrite stream",
         check_interrupted_overwrite,
         nullptr,
         true},
        {{"dst.dedup_latest",
          {"DST-DATA-4"},
          must,
          "an append_dedup stream holds one row per key, with the latest cursor"},
         {after_the_syncs},
         "the catalog has no append_dedup stream",
         check_dedup,
         nullptr,
         true},
    };
}

}  // namespace conform::checks::dst
