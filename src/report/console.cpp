#include "report/console.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <string>

namespace conform::report {

namespace {

class ConsoleReporter : public Reporter {
public:
    ConsoleReporter(std::FILE* out, bool verbose)
        : m_out(out), m_verbose(verbose), m_tty(isatty(fileno(out)) != 0) {}

    void scenario_started(const std::string& id, const std::string& title) override {
        m_current = id;
        if (m_verbose) {
            print("{} {}\n", paint("▶", "36"), fmt::format("{}: {}", id, title));
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
              fmt::format("{} ({})", m_current, label), records, rate, seconds);
        m_progress_shown = true;
    }

    void scenario_finished(const ScenarioResult& result) override {
        clear_progress();
        print("{} {:<34} {}  ({} ms)\n", badge(result.status), result.id, result.title,
              result.duration_ms);
        bool whole_scenario_skipped = result.status == Status::skipped && !result.checks.empty();
        if (whole_scenario_skipped && !m_verbose) {
            print("    skipped: {}\n", result.checks.front().note);
        }
        for (const auto& check : result.checks) {
            if (check.status == Status::failed || check.status == Status::warned ||
                (m_verbose && check.status == Status::skipped)) {
                print_check(check);
            } else if (check.status == Status::skipped && !whole_scenario_skipped) {
                print("  {} {}: {}\n", badge(check.status), check.id, check.note);
            }
        }
        if (result.status == Status::failed || result.status == Status::warned) {
            print("    rerun: {}\n", result.rerun);
        }
        if (m_verbose) {
            for (const auto& run : result.runs) {
                print("    run {}: {} ({} records, {} states, {} ms)\n", run.label, run.exit,
                      run.records, run.states, run.duration_ms);
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
        print(
            "\n{} scenarios, {} failed; checks: {} passed, {} failed, {} warned, {} skipped "
            "({:.1f} s)\n",
            report.scenarios.size(), failed_scenarios, totals.passed, totals.failed, totals.warned,
            totals.skipped, static_cast<double>(report.duration_ms) / 1000.0);
    }

private:
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
        }
        return "?";
    }

    void print_check(const CheckResult& check) {
        print("  {} {} [{}] {}\n", badge(check.status), check.id, fmt::join(check.clauses, ", "),
              check.title);
        for (const auto& example : check.examples) {
            std::string where = example.run;
            if (example.line > 0) {
                where += fmt::format(", stdout line {}", example.line);
            }
            print("      - {}{}\n", example.message, where.empty() ? "" : " (" + where + ")");
            if (!example.excerpt.empty()) {
                print("        seen: {}\n", example.excerpt);
            }
        }
        if (check.occurrences > check.examples.size()) {
            print("      … and {} more\n", check.occurrences - check.examples.size());
        }
        if (!check.note.empty()) {
            print("      note: {}\n", check.note);
        }
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
};

}  // namespace

std::unique_ptr<Reporter> make_console_reporter(std::FILE* out, bool verbose) {
    return std::make_unique<ConsoleReporter>(out, verbose);
}

}  // namespace conform::report
