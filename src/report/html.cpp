#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "report/certification.hpp"
#include "report/clauses.hpp"
#include "report/files.hpp"
#include "report/timeline.hpp"
#include "util/text.hpp"

namespace conform::report {

namespace {

// Nothing may load: no script, no fetch, no remote font or image. Styles are inline.
constexpr std::string_view k_content_security_policy =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'";

constexpr std::string_view k_style = R"css(
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:16px;color:#1b1f24}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
h3{font-size:15px;margin:18px 0 6px}table{border-collapse:collapse;width:100%;margin:6px 0}
td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}th{background:#f6f8fa}
code,pre{font:12px/1.4 ui-monospace,monospace}pre{background:#f6f8fa;padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;margin:4px 0}
.badge{display:inline-block;border-radius:4px;padding:0 6px;color:#fff;font-weight:600;font-size:12px}
.passed,.certified{background:#1a7f37}.failed{background:#cf222e}.warned,.incomplete{background:#bf8700}
.skipped,.not-tested,.not-claimed,.accepted,.not-selected{background:#6e7781}.judged{background:#1a7f37}.no-check{background:#57606a}.expected-failure{background:#8250df}.flaky{background:#9a6700}
.failure{border-left:4px solid #cf222e;padding:4px 12px;margin:12px 0;background:#fff8f8}
.label{color:#57606a;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
.meta td:first-child{width:170px;color:#57606a}.matrix td{padding:1px 4px}.matrix .cell{width:14px;height:14px;display:inline-block;border-radius:2px;margin:1px}
)css";

// A CSS class from a status or level name ("not tested" -> "not-tested").
std::string css_class(std::string_view name) {
    std::string css(name);
    std::replace(css.begin(), css.end(), ' ', '-');
    return css;
}

std::string badge(std::string_view name) {
    return fmt::format("<span class=\"badge {}\">{}</span>", css_class(name), markup_escaped(name));
}

std::string anchor(std::string_view scenario, std::string_view check = {}) {
    std::string id = "s-" + std::string(scenario);
    if (!check.empty()) {
        id += "--" + std::string(check);
    }
    for (char& c : id) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') {
            c = '_';
        }
    }
    return id;
}

std::string clause_list(const CheckResult& check) {
    std::string html;
    for (const auto& clause : check.clauses) {
        auto text = clause_text(clause);
        html += fmt::format("<li><b>{}</b> {}</li>", markup_escaped(clause),
                            markup_escaped(text.empty() ? "(not in docs/CONTRACT.md)" : text));
    }
    return "<ul>" + html + "</ul>";
}

std::string overall_status(const RunReport& report) {
    auto totals = report.check_totals();
    if (report.interrupted) {
        return "incomplete";
    }
    if (totals.failed > 0) {
        return "failed";
    }
    return totals.passed + totals.warned + totals.expected_failures + totals.flaky == 0 ? "skipped"
                                                                                        : "passed";
}

// The version with where it was read, or "unknown" said plainly.
std::string version_html(const RunReport& report) {
    if (report.connector_version.empty()) {
        return "unknown (no version label on the image, no --connector-version)";
    }
    std::string html = "<code>" + markup_escaped(report.connector_version) + "</code>";
    if (!report.connector_version_source.empty()) {
        html += " (" + markup_escaped(report.connector_version_source) + ")";
    }
    return html;
}

std::string metadata_section(const RunReport& report) {
    auto totals = report.check_totals();
    std::string claimed = report.claimed_extensions.empty()
                              ? "none"
                              : fmt::format("{}", fmt::join(report.claimed_extensions, ", "));
    std::string html = "<table class=\"meta\">";
    auto row = [&html](std::string_view name, const std::string& value) {
        html += fmt::format("<tr><td>{}</td><td>{}</td></tr>", name, value);
    };
    row("Connector", "<code>" + markup_escaped(report.connector) + "</code>");
    row("Connector version", version_html(report));
    row("Test config", "<code>" + markup_escaped(report.test_config) + "</code>");
    row("Claimed extensions", markup_escaped(claimed));
    row("Started (UTC)", markup_escaped(report.started_at));
    row("Duration", fmt::format("{:.1f} s", static_cast<double>(report.duration_ms) / 1000.0));
    row("conform version", markup_escaped(report.conform_version));
    row("Mode", report.strict ? "strict (SHOULD clauses fail)" : "default (SHOULD clauses warn)");
    row("Checks",
        fmt::format("{} passed, {} failed, {} warned, {} skipped{}", totals.passed, totals.failed,
                    totals.warned, totals.skipped, markup_escaped(counted_apart(totals))));
    if (!report.known_failures_file.empty()) {
        row("Known failures", "<code>" + markup_escaped(report.known_failures_file) + "</code>");
    }
    for (const auto& stale : report.stale_known_failures) {
        row("Stale known failure", markup_escaped(stale));
    }
    if (report.filtered) {
        row("Selection", "--only/--skip left part of the suites out");
    }
    if (report.recorded_transcript) {
        row("Selection", "one recorded read, judged offline (conform validate)");
    }
    if (report.interrupted) {
        row("Interrupted", "yes: only the scenarios that finished before are listed");
    }
    return html + "</table>";
}

std::string certification_section(const RunReport& report) {
    std::string html =
        "<h2 id=\"certification\">Certification</h2><table><tr><th>Area</th><th>Level</th>"
        "<th>Why</th></tr>";
    for (const auto& verdict : certify(report)) {
        html +=
            fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>", markup_escaped(verdict.area),
                        badge(certified_name(verdict.level)), markup_escaped(verdict.reason));
    }
    return html + "</table>";
}

std::string_view difference_kind(const Difference& change) {
    if (!change.accepted_reason.empty()) {
        return "accepted";
    }
    return change.breaking ? "failed" : "passed";
}

// What changed against the control version or the baseline, breaking changes first.
std::string differences_section(const RunReport& report) {
    if (!report.differences) {
        return {};
    }
    const auto& differences = *report.differences;
    std::string html = fmt::format(
        "<h2 id=\"differences\">Differences from {}</h2><p>{} difference(s), {} breaking and not "
        "accepted</p><table><tr><th></th><th>Rule</th><th>Where</th><th>Detail</th></tr>",
        markup_escaped(differences.control), differences.changes.size(),
        differences.unaccepted_breaking());
    auto ordered = differences.changes;
    std::stable_partition(ordered.begin(), ordered.end(),
                          [](const Difference& change) { return change.breaking; });
    for (const auto& change : ordered) {
        std::string label = !change.accepted_reason.empty() ? "accepted"
                            : change.breaking               ? "breaking"
                                                            : "harmless";
        std::string detail = markup_escaped(change.detail);
        if (!change.accepted_reason.empty()) {
            detail += "<br><i>accepted: " + markup_escaped(change.accepted_reason) + "</i>";
        }
        html += fmt::format(
            "<tr><td><span class=\"badge {}\">{}</span></td><td><code>{}</code></td><td>{}</td>"
            "<td>{}</td></tr>",
            difference_kind(change), label, markup_escaped(change.rule),
            markup_escaped(change.where), detail);
    }
    html += "</table>";
    if (!differences.streams.empty()) {
        html +=
            "<h3>Records per stream</h3><table><tr><th>Stream</th><th>Records</th><th>Added</th>"
            "<th>Removed</th><th>Changed</th><th>STATE messages</th><th>Matched by</th></tr>";
        for (const auto& row : differences.streams) {
            html += fmt::format(
                "<tr><td><code>{}</code></td><td>{} &rarr; {}</td><td>{}</td><td>{}</td><td>{}</td>"
                "<td>{} &rarr; {}</td><td>{}</td></tr>",
                markup_escaped(row.stream), row.control, row.target, row.added, row.removed,
                row.changed, row.control_states, row.target_states, markup_escaped(row.identity));
        }
        html += "</table>";
    }
    if (!differences.notes.empty()) {
        html += "<h3>Notes</h3><ul>";
        for (const auto& note : differences.notes) {
            html += "<li>" + markup_escaped(note) + "</li>";
        }
        html += "</ul>";
    }
    return html;
}

// A diff's headline is its own verdict; the target's conformance result comes after it.
std::string diff_headline(const RunReport& report) {
    auto breaking = report.differences->unaccepted_breaking();
    return fmt::format(
        "<h1>conform diff: {} <span class=\"badge {}\">{}</span></h1><p>{} compared with "
        "{}. The target's own conformance run: {}</p>",
        breaking == 0 ? "no breaking change" : fmt::format("{} breaking change(s)", breaking),
        breaking == 0 ? "passed" : "failed", breaking == 0 ? "compatible" : "breaking",
        markup_escaped(report.connector), markup_escaped(report.differences->control),
        badge(overall_status(report)));
}

// One row per stream: whether it is available and configured, and what the reads did with it.
std::string stream_rows_html(const StreamsCoverage& streams) {
    std::string html =
        "<table><tr><th>Stream</th><th>Available</th><th>Configured</th><th>Read</th>"
        "<th>Records</th></tr>";
    std::size_t shown = 0;
    for (const auto& stream : streams.streams) {
        if (shown++ == k_coverage_streams_shown) {
            html += fmt::format(
                "<tr><td colspan=\"5\">…and {} more (the JSON report lists them "
                "all)</td></tr>",
                streams.streams.size() - k_coverage_streams_shown);
            break;
        }
        std::string available = !streams.available_known ? "?" : (stream.available ? "yes" : "no");
        std::string configured =
            stream.configured ? fmt::format("yes ({})", fmt::join(stream.configured_modes, ", "))
                              : "no";
        html += fmt::format(
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            markup_escaped(excerpt(stream.stream, k_report_name_bytes)), available,
            markup_escaped(configured), markup_escaped(modes_read(stream)), stream.records());
    }
    return html + "</table>";
}

// One item per stream whose configured catalog contradicts discover (docs/coverage.md).
std::string catalog_differences_html(const StreamsCoverage& streams) {
    auto lines = catalog_difference_lines(streams, k_coverage_streams_shown);
    std::string items;
    for (const auto& [stream, differences] : lines.shown) {
        items += fmt::format("<li><code>{}</code>: {}</li>",
                             markup_escaped(excerpt(stream, k_report_name_bytes)),
                             markup_escaped(differences));
    }
    if (lines.more > 0) {
        items += fmt::format("<li>…and {} more streams (the JSON report lists them all)</li>",
                             lines.more);
    }
    return items.empty()
               ? items
               : "<p><b>Configured catalog against discover:</b></p><ul>" + items + "</ul>";
}

// What the run tested (docs/coverage.md): streams, then every clause of the protocol with what
// became of it.
std::string coverage_section(const RunReport& report) {
    if (!report.coverage) {
        return {};
    }
    const auto& coverage = *report.coverage;
    std::string html = fmt::format("<h2 id=\"coverage\">Coverage</h2><p><b>Streams:</b> {}</p>",
                                   markup_escaped(streams_summary(coverage.streams)));
    if (coverage.streams.applicable && !coverage.streams.streams.empty()) {
        html += stream_rows_html(coverage.streams);
        html += catalog_differences_html(coverage.streams);
    }
    html += fmt::format(
        "<p><b>Clauses:</b> {}</p><table><tr><th>Clause</th><th>State</th>"
        "<th>Checks</th><th>Why not judged</th></tr>",
        clause_counts(coverage.clauses));
    for (const auto& clause : coverage.clauses) {
        auto state = clause_state_name(clause.state());
        html += fmt::format("<tr><td title=\"{}\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                            markup_escaped(clause_text(clause.clause)),
                            markup_escaped(clause.clause), badge(state),
                            markup_escaped(fmt::format("{}", fmt::join(clause.checks, ", "))),
                            markup_escaped(why_not_judged(clause)));
    }
    return html + "</table>";
}

std::string matrix_section(const RunReport& report) {
    std::string html =
        "<h2 id=\"matrix\">Pass/fail matrix</h2><p class=\"label\">one square per check; hover "
        "for its id, click for its result</p><table class=\"matrix\">";
    for (const auto& scenario : report.scenarios) {
        html +=
            fmt::format("<tr><td><a href=\"#{}\">{}</a></td><td>{}</td><td>", anchor(scenario.id),
                        markup_escaped(scenario.id), badge(status_name(scenario.status)));
        for (const auto& check : scenario.checks) {
            html +=
                fmt::format("<a href=\"#{}\" title=\"{}: {}\"><span class=\"cell {}\"></span></a>",
                            anchor(scenario.id, check.id), markup_escaped(check.id),
                            status_name(check.status), css_class(status_name(check.status)));
        }
        html += "</td></tr>";
    }
    return html + "</table>";
}

// Horizontal bars of records per connector run: range shards side by side show a lost or
// doubled share at a glance.
std::string records_chart(const std::vector<RunSummary>& runs) {
    constexpr int k_label_width = 330;
    constexpr int k_bar_width = 360;
    constexpr int k_row_height = 18;
    std::uint64_t most = 1;
    for (const auto& run : runs) {
        most = std::max(most, run.records);
    }
    auto height = static_cast<int>(runs.size()) * k_row_height + 4;
    std::string svg = fmt::format(
        "<svg role=\"img\" width=\"{}\" height=\"{}\" "
        "aria-label=\"records per run\">",
        k_label_width + k_bar_width + 70, height);
    int y = 2;
    for (const auto& run : runs) {
        auto width = static_cast<int>(static_cast<double>(run.records) * k_bar_width /
                                      static_cast<double>(most));
        svg += fmt::format(
            "<text x=\"0\" y=\"{}\" font-size=\"11\" font-family=\"monospace\">{}</text>"
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"12\" fill=\"#0969da\"/>"
            "<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>",
            y + 11, markup_escaped(excerpt(run.label, 48)), k_label_width, y, std::max(width, 1),
            k_label_width + std::max(width, 1) + 4, y + 11, run.records);
        y += k_row_height;
    }
    return svg + "</svg>";
}

// The lines around an example, numbered, the offending one marked.
std::string transcript_html(const Example& example) {
    std::string html = "<pre class=\"transcript\">";
    for (const auto& line : example.context) {
        auto text = fmt::format("{}{:>7} | {}", line.number == example.line ? "> " : "  ",
                                line.number, line.text);
        html += line.number == example.line
                    ? "<mark class=\"offending\">" + markup_escaped(text) + "</mark>\n"
                    : markup_escaped(text) + "\n";
    }
    return html + "</pre>";
}

std::string example_html(const Example& example) {
    std::string where =
        example.run.empty() ? "" : "run <code>" + markup_escaped(example.run) + "</code>";
    if (example.line > 0) {
        where += fmt::format("{}stdout line {}", where.empty() ? "" : ", ", example.line);
    }
    std::string html =
        fmt::format("<p><span class=\"label\">expected versus seen</span><br>{}</p>",
                    markup_escaped(excerpt(example.message, k_report_message_bytes)));
    if (!where.empty()) {
        html += "<p class=\"label\">" + where + "</p>";
    }
    if (!example.context.empty()) {
        html += "<p class=\"label\">transcript around it</p>" + transcript_html(example);
    } else if (!example.excerpt.empty()) {
        html +=
            "<p class=\"label\">transcript</p><pre>" + markup_escaped(example.excerpt) + "</pre>";
    }
    return html;
}

std::string failure_html(const ScenarioResult& scenario, const CheckResult& check) {
    std::string html = fmt::format(
        "<div class=\"failure\" id=\"fail-{}\"><h3>{} <code>{}</code> in scenario <a "
        "href=\"#{}\">{}</a></h3><p>{} ({})</p>{}",
        anchor(scenario.id, check.id), badge(status_name(check.status)), markup_escaped(check.id),
        anchor(scenario.id), markup_escaped(scenario.id), markup_escaped(check.title),
        level_name(check.level), clause_list(check));
    for (const auto& example : check.examples) {
        html += example_html(example);
    }
    if (check.occurrences > check.examples.size()) {
        html += fmt::format("<p>{} occurrence(s) in all; the first {} are shown ({} not).</p>",
                            check.occurrences, check.examples.size(),
                            markup_escaped(more_findings(check)));
    }
    html += "<p class=\"label\">rerun this scenario</p><pre class=\"rerun\">" +
            markup_escaped(scenario.rerun) + "</pre></div>";
    return html;
}

std::string failures_section(const RunReport& report) {
    std::string html;
    for (const auto& scenario : report.scenarios) {
        for (const auto& check : scenario.checks) {
            if (check.status == Status::failed || check.status == Status::warned) {
                html += failure_html(scenario, check);
            }
        }
    }
    if (html.empty()) {
        return "<h2 id=\"failures\">Failures and warnings</h2><p>None.</p>";
    }
    return "<h2 id=\"failures\">Failures and warnings</h2>" + html;
}

// The commands a Meltano extension's scenario ran: no records or states to count.
std::string commands_table(const std::vector<RunSummary>& runs) {
    std::string html =
        "<table><tr><th>Command</th><th>Run</th><th>Exit</th><th>ms</th><th>stdout lines</th>"
        "</tr>";
    for (const auto& run : runs) {
        html += fmt::format(
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>",
            markup_escaped(run.label), markup_escaped(run.command), markup_escaped(run.exit),
            run.duration_ms, run.lines);
    }
    return html + "</table>";
}

std::string runs_table(const std::vector<RunSummary>& runs) {
    if (std::none_of(runs.begin(), runs.end(),
                     [](const RunSummary& run) { return run.counts_messages; })) {
        return commands_table(runs);
    }
    std::string html =
        "<table><tr><th>Run</th><th>Command</th><th>Exit</th><th>ms</th><th>Records</th>"
        "<th>States</th><th>Lines</th></tr>";
    for (const auto& run : runs) {
        html += fmt::format(
            "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "<td>{}</td></tr>",
            markup_escaped(run.label), markup_escaped(run.command), markup_escaped(run.exit),
            run.duration_ms, run.records, run.states, run.lines);
        if (!run.cleanup_problem.empty()) {
            html += fmt::format(
                "<tr><td colspan=\"7\"><strong>Cleanup after {} failed</strong>: {}</td></tr>",
                markup_escaped(run.label), markup_escaped(run.cleanup_problem));
        }
        if (!run.stderr_tail.empty()) {
            html += fmt::format(
                "<tr><td colspan=\"7\"><details><summary>stderr of {} (tail)</summary><pre>{}"
                "</pre></details></td></tr>",
                markup_escaped(run.label), markup_escaped(run.stderr_tail));
        }
    }
    return html + "</table>";
}

std::string scenario_html(const ScenarioResult& scenario) {
    std::string html = fmt::format(
        "<h3 id=\"{}\">{} {} <small>({}, {})</small></h3><p>{}</p>", anchor(scenario.id),
        badge(status_name(scenario.status)), markup_escaped(scenario.id),
        markup_escaped(scenario.suite),
        scenario.extension.empty() ? "core" : "extension " + markup_escaped(scenario.extension),
        markup_escaped(scenario.title));
    html +=
        "<table><tr><th>Check</th><th>Status</th><th>Clauses</th><th>Title / note</th>"
        "<th>ms</th></tr>";
    for (const auto& check : scenario.checks) {
        std::string clauses;
        for (const auto& clause : check.clauses) {
            clauses += fmt::format("<span title=\"{}\">{}</span> ",
                                   markup_escaped(clause_text(clause)), markup_escaped(clause));
        }
        std::string detail = markup_escaped(check.title);
        if (!check.note.empty()) {
            detail +=
                "<br><i>" + markup_escaped(excerpt(check.note, k_report_message_bytes)) + "</i>";
        }
        if (check.status == Status::expected_failure) {
            detail += "<br>expected failure: " + markup_escaped(check.known_failure_reason);
        } else if (check.status == Status::flaky) {
            detail += "<br>flaky: failed, then passed on a rerun: " +
                      markup_escaped(check.flaky_first_failure);
        }
        if (check.status == Status::failed || check.status == Status::warned) {
            detail +=
                fmt::format(" <a href=\"#fail-{}\">details</a>", anchor(scenario.id, check.id));
        }
        html += fmt::format(
            "<tr id=\"{}\"><td><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
            "</tr>",
            anchor(scenario.id, check.id), markup_escaped(check.id),
            badge(status_name(check.status)), clauses, detail, check.duration_ms);
    }
    html += "</table>";
    if (scenario.runs.size() > 1 && scenario.runs.front().counts_messages) {
        html += "<p class=\"label\">records per connector run</p>" + records_chart(scenario.runs);
    }
    html += checkpoint_timelines_html(scenario.runs);
    if (!scenario.runs.empty()) {
        html += runs_table(scenario.runs);
    }
    html += "<p class=\"label\">rerun</p><pre>" + markup_escaped(scenario.rerun) + "</pre>";
    return html;
}

std::string page_head(std::string_view title) {
    return fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<title>{}</title><style>{}</style></head><body>\n",
        k_content_security_policy, markup_escaped(title), k_style);
}

// Makes the ids and in-page links of one connector's section unique on a registry page. Every
// id and link is conform's own; escaped text cannot contain a raw quote.
std::string with_id_prefix(std::string html, std::string_view prefix) {
    for (std::string_view from : {"id=\"", "href=\"#"}) {
        std::string to = std::string(from) + std::string(prefix);
        for (auto at = html.find(from); at != std::string::npos;
             at = html.find(from, at + to.size())) {
            html.replace(at, from.size(), to);
        }
    }
    return html;
}

}  // namespace

std::string to_html_registry(const std::vector<RunReport>& reports) {
    std::string html = page_head("conform registry report");
    html += fmt::format("<h1>conform registry report: {} connector(s)</h1>", reports.size());
    html += "<table><tr><th>Connector</th><th>Version</th><th>Started (UTC)</th><th>Checks</th>";
    for (const auto& verdict : certify(RunReport{})) {
        html += "<th>" + markup_escaped(verdict.area) + "</th>";
    }
    html += "</tr>";
    for (std::size_t i = 0; i < reports.size(); ++i) {
        auto totals = reports[i].check_totals();
        html += fmt::format(
            "<tr><td><a href=\"#c{}\"><code>{}</code></a></td><td>{}</td><td>{}</td><td>{} "
            "passed, {} failed</td>",
            i, markup_escaped(reports[i].connector), markup_escaped(version_or_unknown(reports[i])),
            markup_escaped(reports[i].started_at), totals.passed, totals.failed);
        for (const auto& verdict : certify(reports[i])) {
            html += fmt::format("<td title=\"{}\">{}</td>", markup_escaped(verdict.reason),
                                badge(certified_name(verdict.level)));
        }
        html += "</tr>";
    }
    html += "</table>";
    for (std::size_t i = 0; i < reports.size(); ++i) {
        auto section = fmt::format("<h2 id=\"\">{}</h2>", markup_escaped(reports[i].connector)) +
                       metadata_section(reports[i]) + certification_section(reports[i]) +
                       failures_section(reports[i]) + matrix_section(reports[i]);
        for (const auto& scenario : reports[i].scenarios) {
            section += scenario_html(scenario);
        }
        html += with_id_prefix(section, fmt::format("c{}", i));
    }
    return html + "\n</body></html>\n";
}

std::string to_html_report(const RunReport& report) {
    std::string html = page_head("conform report: " + report.connector);
    html += report.differences ? diff_headline(report)
                               : fmt::format("<h1>conform certification report {}</h1>",
                                             badge(overall_status(report)));
    html += metadata_section(report);
    html += certification_section(report);
    html += differences_section(report);
    html += failures_section(report);
    html += matrix_section(report);
    html += coverage_section(report);
    html += "<h2 id=\"scenarios\">Scenarios</h2>";
    for (const auto& scenario : report.scenarios) {
        html += scenario_html(scenario);
    }
    html += "\n</body></html>\n";
    return html;
}

}  // namespace conform::report
