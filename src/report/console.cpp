#include "report/console.hpp"

#include "report/certification.hpp"
#include "report/files.hpp"
#include "util/text.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace conform::report {

namespace {

// Text that came from a connector (excerpts, messages, labels) made safe for a terminal: C0 and
// C1 control characters (ESC, CSI, OSC, BEL, backspace, carriage return, ...) and DEL are shown
// as \xNN / \u{NN} instead of being sent, so output cannot move the cursor, set the title,
// recolour, hide lines or talk to the terminal. Invalid UTF-8 bytes are shown as \xNN too.
std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        auto byte = static_cast<unsigned char>(text[at]);
        if (byte < 0x20 || byte == 0x7F) {
            out += fmt::format("\\x{:02x}", byte);
            ++at;
            continue;
        }
        if (byte < 0x80) {
            out.push_back(static_cast<char>(byte));
            ++at;
            continue;
        }
        std::size_t length = (byte >> 5) == 0x6    ? 2
                             : (byte >> 4) == 0xE  ? 3
                             : (byte >> 3) == 0x1E ? 4
                                                   : 0;
        bool valid = length > 0 && at + length <= text.size();
        for (std::size_t i = 1; valid && i < length; ++i) {
            valid = (static_cast<unsigned char>(text[at + i]) & 0xC0) == 0x80;
        }
        if (!valid) {
            out += fmt::format("\\x{:02x}", byte);
            ++at;
            continue;
        }
        // C1 controls U+0080..U+009F are 0xC2 0x80..0x9F in UTF-8.
        auto second = static_cast<unsigned char>(text[at + 1]);
        if (byte == 0xC2 && second < 0xA0) {
            out += fmt::format("\\u{{{:x}}}", second);
        } else {
            out.append(text.substr(at, length));
        }
        at += length;
    }
    return out;
}

// Why a scenario was skipped: the reason of the first check it exists for that was (its other
// checks may have passed on what every run is judged on).
const std::string& skip_reason(const ScenarioResult& result) {
    auto reason = std::find_if(
        result.checks.begin(), result.checks.end(),
        [](const CheckResult& check) { return check.purpose && check.status == Status::skipped; });
    return (reason == result.checks.end() ? result.checks.front() : *reason).note;
}

class ConsoleReporter : public Reporter {
public:
    ConsoleReporter(std::FILE* out, bool verbose, std::vector<std::string> claimed)
        : m_out(out),
          m_verbose(verbose),
          m_tty(isatty(fileno(out)) != 0),
          m_claimed(std::move(claimed)) {}

    void scenario_started(const std::string& id, const std::string& title) override {
        m_current = id;
        if (m_verbose) {
            print("{} {}\n", paint("▶", "36"), printable(fmt::format("{}: {}", id, title)));
        }
    }

    void run_progress(const std::string& label, std::uint64_t records,
                      std::chrono::milliseconds elapsed) override {
        if (!m_tty) {
            return;
        }
        double seconds = static_cast<double>(elapsed.count()) / 1000.0;
        double rate = seconds > 0 ? static_cast<double>(records) / seconds : 0;
        print("\r\033[2K  {} {}: {} records, {:.0f} records/s, {:.1f} s", paint("…", "2"),
              printable(fmt::format("{} ({})", m_current, label)), records, rate, seconds);
        m_progress_shown = true;
    }

    void scenario_finished(const ScenarioResult& result) override {
        clear_progress();
        bool whole_scenario_skipped = result.status == Status::skipped && !result.checks.empty();
        if (whole_scenario_skipped && !m_verbose && folded(result, result.checks.front())) {
            return;  // run_finished sums it up with the others of unclaimed extensions
        }
        print("{} {:<34} {}  ({} ms)\n", badge(result.status), printable(result.id),
              printable(result.title), result.duration_ms);
        if (whole_scenario_skipped && !m_verbose) {
            print("    skipped: {}\n", printable(skip_reason(result)));
        }
        m_last_note.clear();
        for (const auto& check : result.checks) {
            if (check.status == Status::failed || check.status == Status::warned ||
                (m_verbose && check.status == Status::skipped)) {
                print_check(check);
            } else if (m_verbose && check.status == Status::passed && !check.note.empty()) {
                // What a pass compared, and what it left out, is part of the verdict.
                print("  {} {}: {}\n", badge(check.status), check.id, note_text(check));
            } else if (check.status == Status::skipped && !whole_scenario_skipped &&
                       !folded(result, check)) {
                print("  {} {}: {}\n", badge(check.status), check.id, printable(check.note));
            } else if (check.status == Status::expected_failure) {
                print("  {} {}: known failure: {}\n", badge(check.status), check.id,
                      printable(check.known_failure_reason));
            } else if (check.status == Status::flaky) {
                print("  {} {}: failed, then passed on a rerun: {}\n", badge(check.status),
                      check.id, printable(check.flaky_first_failure));
            }
        }
        if (result.status == Status::failed || result.status == Status::warned) {
            print("    rerun: {}\n", printable(result.rerun));
        }
        for (const auto& run : result.runs) {
            if (!run.cleanup_problem.empty()) {
                print("    warning: after run {}: {}\n", printable(run.label),
                      printable(run.cleanup_problem));
            }
        }
        if (m_verbose) {
            for (const auto& run : result.runs) {
                print("    run {}: {} ({}{} ms)\n", printable(run.label), printable(run.exit),
                      run.counts_messages
                          ? fmt::format("{} records, {} states, ", run.records, run.states)
                          : fmt::format("{} stdout line(s), ", run.lines),
                      run.duration_ms);
            }
        }
    }

    void run_finished(const RunReport& report) override {
        clear_progress();
        auto totals = report.check_totals();
        std::size_t failed_scenarios = 0;
        for (const auto& scenario : report.scenarios) {
            failed_scenarios += scenario.status == Status::failed ? 1 : 0;
        }
        auto unclaimed = unclaimed_summary(report, unclaimed_skips(report, m_claimed));
        if (!unclaimed.empty()) {
            print("{} {}\n", badge(Status::skipped), printable(unclaimed));
        }
        for (const auto& stale : report.stale_known_failures) {
            print("{} {}\n", badge(Status::failed), printable(stale));
        }
        print(
            "\n{} scenarios, {} failed; checks: {} passed, {} failed, {} warned, {} skipped{} "
            "({:.1f} s)\n",
            report.scenarios.size(), failed_scenarios, totals.passed, totals.failed, totals.warned,
            totals.skipped, counted_apart(totals),
            static_cast<double>(report.duration_ms) / 1000.0);
        std::vector<std::string> levels;
        for (const auto& verdict : certify(report)) {
            levels.push_back(fmt::format("{} {}", verdict.area, certified_name(verdict.level)));
        }
        print("certification: {}\n", fmt::join(levels, ", "));
        if (report.coverage) {
            print("coverage: streams {}; clauses {}\n",
                  printable(streams_summary(report.coverage->streams)),
                  clause_counts(report.coverage->clauses));
            print_catalog_differences(report.coverage->streams);
        }
    }

private:
    // One line per stream whose configured catalog contradicts discover, the first few of them.
    void print_catalog_differences(const StreamsCoverage& streams) {
        constexpr std::size_t k_streams_shown = 20;
        auto lines = catalog_difference_lines(streams, k_streams_shown);
        for (const auto& [stream, differences] : lines.shown) {
            print("catalog: '{}': {}\n", printable(excerpt(stream, k_report_name_bytes)),
                  printable(differences));
        }
        if (lines.more > 0) {
            print("catalog: and {} more streams (the JSON report lists them)\n", lines.more);
        }
    }

    // A skip of an extension the connector does not claim: one line at the end says it for all.
    bool folded(const ScenarioResult& scenario, const CheckResult& check) const {
        return !unclaimed_extension_of(scenario, check, m_claimed).empty();
    }

    template <typename... Args>
    void print(fmt::format_string<Args...> format, Args&&... args) {
        fmt::print(m_out, format, std::forward<Args>(args)...);
        std::fflush(m_out);
    }

    std::string paint(std::string_view text, std::string_view code) const {
        return m_tty ? fmt::format("\033[{}m{}\033[0m", code, text) : std::string(text);
    }

    std::string badge(Status status) const {
        switch (status) {
            case Status::passed:
                return paint("PASS", "32");
            case Status::warned:
                return paint("WARN", "33");
            case Status::failed:
                return paint("FAIL", "31;1");
            case Status::skipped:
                return paint("SKIP", "2");
            case Status::expected_failure:
                return paint("XFAIL", "35");
            case Status::flaky:
                return paint("FLAKY", "33;1");
        }
        return "?";
    }

    void print_check(const CheckResult& check) {
        print("  {} {} [{}] {}\n", badge(check.status), printable(check.id),
              printable(fmt::format("{}", fmt::join(check.clauses, ", "))), printable(check.title));
        for (const auto& example : check.examples) {
            auto where = location_of(example);
            print("      - {}{}\n", printable(example.message),
                  where.empty() ? "" : " (" + printable(where) + ")");
            if (!example.excerpt.empty()) {
                print("        seen: {}\n", printable(example.excerpt));
            }
        }
        if (auto more = more_findings(check); !more.empty()) {
            print("      … and {}\n", more);
        }
        if (!check.note.empty()) {
            print("      note: {}\n", note_text(check));
        }
    }

    // A skip reason the skipped check before printed already (every check of a scenario whose
    // step did not run) is not printed again.
    std::string note_text(const CheckResult& check) {
        if (check.status != Status::skipped) {
            m_last_note.clear();
            return printable(check.note);
        }
        if (check.note == m_last_note) {
            return "as above";
        }
        m_last_note = check.note;
        return printable(check.note);
    }

    void clear_progress() {
        if (m_progress_shown) {
            print("\r\033[2K");
            m_progress_shown = false;
        }
    }

    std::FILE* m_out;
    bool m_verbose;
    bool m_tty;
    bool m_progress_shown = false;
    std::string m_current;
    std::string m_last_note;
    std::vector<std::string> m_claimed;
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(std::FILE* out, bool verbose,
                                                std::vector<std::string> claimed_extensions) {
    return std::make_unique<ConsoleReporter>(out, verbose, std::move(claimed_extensions));
}

}  // namespace conform::report
