#include <fmt/format.h>

#include <algorithm>

#include "report/certification.hpp"
#include "report/clauses.hpp"
#include "report/files.hpp"
#include "report/timeline.hpp"
#include "util/text.hpp"

namespace conform::report {

namespace {

// GitHub shows at most 1 MiB of a step summary; a run that breaks everything still fits.
constexpr std::size_t k_failures_shown = 20;

std::string_view mark(Status status) {
    switch (status) {
        case Status::passed:
            return "✅";
        case Status::warned:
            return "⚠️";
        case Status::failed:
            return "❌";
        case Status::skipped:
            return "⏭️";
        case Status::expected_failure:
            return "🔕";
        case Status::flaky:
            return "🔁";
    }
    return "?";
}

std::string_view mark(Certified level) {
    switch (level) {
        case Certified::certified:
            return "✅";
        case Certified::failed:
            return "❌";
        case Certified::incomplete:
            return "⚠️";
        case Certified::not_claimed:
        case Certified::not_tested:
            return "➖";
    }
    return "?";
}

// `raw` as valid UTF-8 with every control character but line feed and tab shown as '?', as the
// HTML writer shows them: connector output (ESC sequences, BEL, CR, C1 controls such as U+009B)
// must not reach a terminal that prints the summary, or a log that keeps it.
std::string printable(std::string_view raw) {
    std::string text = valid_utf8(raw);
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size(); ++at) {
        auto byte = static_cast<unsigned char>(text[at]);
        bool c1 = byte == 0xC2 && at + 1 < text.size() &&
                  static_cast<unsigned char>(text[at + 1]) >= 0x80 &&
                  static_cast<unsigned char>(text[at + 1]) <= 0x9F;
        if (c1) {
            out += '?';
            ++at;
        } else if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7F) {
            out += '?';
        } else {
            out += text[at];
        }
    }
    return out;
}

// Text for a table cell or a line of prose: no line breaks, no table or HTML syntax.
std::string inline_text(std::string_view raw) {
    std::string text = printable(raw);
    std::string out;
    for (char c : text) {
        if (c == '\n' || c == '\r' || c == '\t') {
            out += ' ';
        } else if (c == '|' || c == '<' || c == '>' || c == '*' || c == '_' || c == '`' ||
                   c == '[' || c == ']' || c == '\\') {
            out += '\\';
            out += c;
        } else {
            out += c;
        }
    }
    return out;
}

// Text inside an HTML element (a <summary>), where Markdown escapes would show literally.
std::string html_text(std::string_view raw) {
    std::string text = printable(raw);
    std::replace(text.begin(), text.end(), '\n', ' ');
    return markup_escaped(text);
}

// A fenced block that its content cannot close: the fence is longer than any backtick run in it.
std::string fenced(std::string_view raw, std::string_view language = {}) {
    std::string text = printable(raw);
    std::size_t longest = 0;
    std::size_t run = 0;
    for (char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    return fmt::format("{}{}\n{}\n{}\n", fence, language, text, fence);
}

Status overall(const RunReport& report) {
    auto totals = report.check_totals();
    if (totals.failed > 0) {
        return Status::failed;
    }
    if (totals.passed + totals.warned + totals.expected_failures + totals.flaky == 0) {
        return Status::skipped;
    }
    return totals.warned > 0 ? Status::warned : Status::passed;
}

// The checks counted apart (expected failures with the reason they are listed for, flaky ones
// with what they found before the rerun passed) and the stale known failures; "" for none.
std::string apart_markdown(const RunReport& report) {
    std::string lines;
    for (const auto& stale : report.stale_known_failures) {
        lines += fmt::format("- {} {}\n", mark(Status::failed), inline_text(stale));
    }
    for (const auto& scenario : report.scenarios) {
        for (const auto& check : scenario.checks) {
            if (check.status == Status::expected_failure) {
                lines += fmt::format("- {} `{}` in {}: expected failure: {}\n", mark(check.status),
                                     check.id, inline_text(scenario.id),
                                     inline_text(check.known_failure_reason));
            } else if (check.status == Status::flaky) {
                lines += fmt::format("- {} `{}` in {}: flaky, failed then passed on a rerun: {}\n",
                                     mark(check.status), check.id, inline_text(scenario.id),
                                     inline_text(check.flaky_first_failure));
            }
        }
    }
    return lines.empty() ? "" : "\n### Known failures and flaky checks\n\n" + lines;
}

// The lines around an example, numbered, the offending one marked with '>'.
std::string transcript_text(const Example& example) {
    std::string text;
    for (const auto& line : example.context) {
        text += fmt::format("{}{:>7} | {}\n", line.number == example.line ? "> " : "  ",
                            line.number, line.text);
    }
    if (!text.empty()) {
        text.pop_back();
    }
    return text;
}

std::string failure_markdown(const ScenarioResult& scenario, const CheckResult& check) {
    std::string text = fmt::format(
        "<details open><summary>{} <code>{}</code> in scenario <b>{}</b>: {} ({})</summary>\n\n",
        mark(check.status), html_text(check.id), html_text(scenario.id),
        html_text(fmt::format("{}", fmt::join(check.clauses, ", "))), level_name(check.level));
    for (const auto& clause : check.clauses) {
        text += fmt::format("> **{}** {}\n", clause, inline_text(clause_text(clause)));
    }
    for (const auto& example : check.examples) {
        auto where = location_of(example);
        text += fmt::format("\n- {}{}\n\n", inline_text(example.message),
                            where.empty() ? "" : " (" + inline_text(where) + ")");
        if (!example.context.empty()) {
            text += fenced(transcript_text(example));
        } else if (!example.excerpt.empty()) {
            text += fenced(excerpt(example.excerpt, 400), "json");
        }
    }
    if (check.occurrences > check.examples.size()) {
        text += fmt::format("\n{} occurrence(s) in all ({} not shown).\n", check.occurrences,
                            more_findings(check));
    }
    text += "\nRerun:\n\n" + fenced(scenario.rerun, "sh") + "\n</details>\n\n";
    return text;
}

}  // namespace

namespace {

// What changed against the control version or the baseline: every breaking change, then a
// collapsed list of the rest.
std::string differences_markdown(const RunReport& report) {
    if (!report.differences) {
        return {};
    }
    const auto& differences = *report.differences;
    std::string breaking;
    std::string other;
    for (const auto& change : differences.changes) {
        std::string line = fmt::format("- `{}` {}: {}", change.rule, inline_text(change.where),
                                       inline_text(change.detail));
        if (!change.accepted_reason.empty()) {
            other += line + fmt::format(" (accepted: {})\n", inline_text(change.accepted_reason));
        } else if (change.breaking) {
            breaking += "❌ " + line.substr(2) + "\n\n";
        } else {
            other += line + "\n";
        }
    }
    std::string text =
        fmt::format("\n### Differences from {}: {} breaking\n\n", inline_text(differences.control),
                    differences.unaccepted_breaking());
    text += breaking;
    if (!other.empty()) {
        text += "<details><summary>Harmless and accepted differences</summary>\n\n" + other +
                "\n</details>\n";
    }
    if (!differences.streams.empty()) {
        text +=
            "\n| Stream | Records | Added | Removed | Changed | STATE messages | Matched by "
            "|\n|---|---|---|---|---|---|---|\n";
        for (const auto& row : differences.streams) {
            text += fmt::format("| {} | {} → {} | {} | {} | {} | {} → {} | {} |\n",
                                inline_text(row.stream), row.control, row.target, row.added,
                                row.removed, row.changed, row.control_states, row.target_states,
                                inline_text(row.identity));
        }
    }
    if (!differences.notes.empty()) {
        text += "\n**Notes:**\n\n";
        for (const auto& note : differences.notes) {
            text += fmt::format("- {}\n", inline_text(note));
        }
    }
    return text;
}

// A diff's headline is its own verdict; the target's conformance result comes after it.
std::string diff_headline(const RunReport& report) {
    auto breaking = report.differences->unaccepted_breaking();
    auto status = overall(report);
    return fmt::format("## {} conform diff: {}: {}\n\n**Target's conformance run:** {} {}\n\n",
                       breaking == 0 ? "✅" : "❌", inline_text(report.connector),
                       breaking == 0 ? std::string("no breaking change")
                                     : fmt::format("{} breaking change(s)", breaking),
                       mark(status), status_name(status));
}

// The resumed checkpoints that lost or repeated records, or that every resume was clean.
std::string resumes_markdown(const RunReport& report) {
    std::size_t resumes = 0;
    std::vector<std::string> lines;
    for (const auto& scenario : report.scenarios) {
        for (const auto& run : scenario.runs) {
            for (const auto& resume : run.timeline.resumes) {
                ++resumes;
                if (resume.clean()) {
                    continue;
                }
                auto example =
                    resume.lost_example.empty() ? resume.repeated_example : resume.lost_example;
                lines.push_back(fmt::format(
                    "- scenario {}, run {}: checkpoint {} (stdout line {}, after {} records): "
                    "{}{}\n",
                    inline_text(scenario.id), inline_text(run.label), resume.checkpoint,
                    resume.line, resume.records_before, resume_outcome(resume),
                    example.empty() ? "" : " (first: " + inline_text(example) + ")"));
            }
        }
    }
    if (resumes == 0) {
        return {};
    }
    if (lines.empty()) {
        return fmt::format("\n**Checkpoint timeline:** {} resumed checkpoint(s), all clean.\n",
                           resumes);
    }
    std::string text = fmt::format(
        "\n### Checkpoint timeline\n\n{} of {} resumed checkpoint(s) lost or repeated "
        "records:\n\n",
        lines.size(), resumes);
    for (std::size_t i = 0; i < std::min(lines.size(), k_failures_shown); ++i) {
        text += lines[i];
    }
    if (lines.size() > k_failures_shown) {
        text += fmt::format("- …and {} more; the HTML or JSON report lists them all.\n",
                            lines.size() - k_failures_shown);
    }
    return text;
}

std::string stream_rows_markdown(const StreamsCoverage& streams) {
    std::string text =
        "| Stream | Available | Configured | Read | Records |\n|---|---|---|---|---|\n";
    auto yes_no = [](bool known, bool value) -> std::string_view {
        if (!known) {
            return "?";
        }
        return value ? "yes" : "no";
    };
    std::size_t shown = 0;
    for (const auto& stream : streams.streams) {
        if (shown++ == k_coverage_streams_shown) {
            text += fmt::format("\n…and {} more streams; the JSON report lists them all.\n",
                                streams.streams.size() - k_coverage_streams_shown);
            break;
        }
        text += fmt::format(
            "| `{}` | {} | {} | {} | {} |\n",
            inline_text(excerpt(stream.stream, k_report_name_bytes)),
            yes_no(streams.available_known, stream.available),
            stream.configured
                ? inline_text(fmt::format("yes ({})", fmt::join(stream.configured_modes, ", ")))
                : std::string("no"),
            inline_text(modes_read(stream)), stream.records());
    }
    return text;
}

// One line per stream whose configured catalog contradicts discover (docs/coverage.md).
std::string catalog_differences_markdown(const StreamsCoverage& streams) {
    auto lines = catalog_difference_lines(streams, k_coverage_streams_shown);
    std::string text;
    for (const auto& [stream, differences] : lines.shown) {
        text += fmt::format("- `{}`: {}\n", inline_text(excerpt(stream, k_report_name_bytes)),
                            inline_text(differences));
    }
    if (lines.more > 0) {
        text +=
            fmt::format("- …and {} more streams; the JSON report lists them all.\n", lines.more);
    }
    return text.empty() ? text : "\n**Configured catalog against discover:**\n\n" + text;
}

// What the run tested: the streams and what became of each clause not judged.
std::string coverage_markdown(const RunReport& report) {
    if (!report.coverage) {
        return {};
    }
    const auto& coverage = *report.coverage;
    std::string text = fmt::format("\n### Coverage\n\n**Streams:** {}\n\n",
                                   inline_text(streams_summary(coverage.streams)));
    if (coverage.streams.applicable && !coverage.streams.streams.empty()) {
        text += stream_rows_markdown(coverage.streams);
        text += catalog_differences_markdown(coverage.streams);
    }
    text += fmt::format("\n**Clauses:** {}\n", clause_counts(coverage.clauses));
    std::string rows;
    for (const auto& clause : coverage.clauses) {
        if (clause.state() != ClauseState::judged) {
            rows +=
                fmt::format("| {} | {} | {} |\n", clause.clause, clause_state_name(clause.state()),
                            inline_text(why_not_judged(clause)));
        }
    }
    if (!rows.empty()) {
        text +=
            "\n<details><summary>Clauses not judged</summary>\n\n| Clause | State | Why "
            "|\n|---|---|---|\n" +
            rows + "\n</details>\n";
    }
    return text;
}

}  // namespace

std::string to_markdown_summary(const RunReport& report) {
    auto totals = report.check_totals();
    auto status = overall(report);
    std::string text = report.differences
                           ? diff_headline(report)
                           : fmt::format("## {} conform: {} {}\n\n", mark(status),
                                         inline_text(report.connector), status_name(status));
    text += fmt::format("**Connector version:** {}{}\n\n", inline_text(version_or_unknown(report)),
                        report.connector_version_source.empty()
                            ? ""
                            : " (" + inline_text(report.connector_version_source) + ")");
    text += fmt::format(
        "**Checks:** {} passed, {} failed, {} warned, {} skipped{} · {:.1f} s · conform {}{}\n\n",
        totals.passed, totals.failed, totals.warned, totals.skipped, counted_apart(totals),
        static_cast<double>(report.duration_ms) / 1000.0, inline_text(report.conform_version),
        report.interrupted ? " · **interrupted**" : "");
    text += "| Area | Level | Why |\n|---|---|---|\n";
    for (const auto& verdict : certify(report)) {
        text += fmt::format("| {} | {} {} | {} |\n", verdict.area, mark(verdict.level),
                            certified_name(verdict.level), inline_text(verdict.reason));
    }
    auto unclaimed = unclaimed_summary(report, unclaimed_skips(report, report.claimed_extensions));
    if (!unclaimed.empty()) {
        text += fmt::format("\n{} {}\n", mark(Status::skipped), inline_text(unclaimed));
    }
    text += differences_markdown(report);
    std::size_t shown = 0;
    std::size_t failures = 0;
    std::string failure_text;
    for (const auto& scenario : report.scenarios) {
        for (const auto& check : scenario.checks) {
            if (check.status != Status::failed && check.status != Status::warned) {
                continue;
            }
            ++failures;
            if (shown < k_failures_shown) {
                ++shown;
                failure_text += failure_markdown(scenario, check);
            }
        }
    }
    if (failures > 0) {
        text += "\n### Failures and warnings\n\n" + failure_text;
        if (failures > shown) {
            text += fmt::format("…and {} more; the HTML or JSON report lists them all.\n\n",
                                failures - shown);
        }
    }
    text += apart_markdown(report);
    text += resumes_markdown(report);
    text += coverage_markdown(report);
    text +=
        "\n<details><summary>Scenarios</summary>\n\n| Scenario | Status | Checks "
        "|\n|---|---|---|\n";
    for (const auto& scenario : report.scenarios) {
        std::string checks;
        std::size_t folded = 0;
        for (const auto& check : scenario.checks) {
            if (!unclaimed_extension_of(scenario, check, report.claimed_extensions).empty()) {
                ++folded;  // said once, above
            } else if (check.status != Status::passed) {
                checks += fmt::format("{} `{}` ", mark(check.status), check.id);
            }
        }
        if (folded == scenario.checks.size() && folded > 0) {
            continue;
        }
        text += fmt::format(
            "| {} | {} {} | {} |\n", inline_text(scenario.id), mark(scenario.status),
            status_name(scenario.status),
            checks.empty() ? fmt::format("{} passed", scenario.checks.size() - folded) : checks);
    }
    return text + "\n</details>\n";
}

std::string to_svg_badge(const RunReport& report) {
    auto verdicts = certify(report);
    std::vector<std::string> certified;
    bool failed = false;
    bool incomplete = false;
    for (const auto& verdict : verdicts) {
        failed = failed || verdict.level == Certified::failed;
        incomplete = incomplete || verdict.level == Certified::incomplete ||
                     (verdict.area == "core" && verdict.level != Certified::certified);
        if (verdict.level == Certified::certified) {
            certified.push_back(verdict.area);
        }
    }
    std::string message = failed       ? "failed"
                          : incomplete ? "incomplete"
                                       : fmt::format("{}", fmt::join(certified, " + "));
    std::string colour = failed ? "#cf222e" : incomplete ? "#bf8700" : "#1a7f37";
    constexpr std::string_view k_label = "conform";
    // Verdana 11px averages about 7 px a character; the badge need not be exact.
    auto label_width = static_cast<int>(k_label.size()) * 7 + 10;
    auto message_width = static_cast<int>(message.size()) * 7 + 10;
    return fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"20\" role=\"img\" "
        "aria-label=\"{1}: {2}\"><title>{1}: {2}</title>"
        "<rect width=\"{3}\" height=\"20\" fill=\"#555\"/>"
        "<rect x=\"{3}\" width=\"{4}\" height=\"20\" fill=\"{5}\"/>"
        "<g fill=\"#fff\" font-family=\"Verdana,DejaVu Sans,sans-serif\" font-size=\"11\" "
        "text-anchor=\"middle\"><text x=\"{6}\" y=\"14\">{1}</text>"
        "<text x=\"{7}\" y=\"14\">{2}</text></g></svg>\n",
        label_width + message_width, k_label, message, label_width, message_width, colour,
        label_width / 2, label_width + message_width / 2);
}

}  // namespace conform::report
