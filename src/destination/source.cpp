#include "destination/source.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <unordered_map>

#include "container/launcher.hpp"
#include "engine/scenarios.hpp"
#include "json/bounded_parse.hpp"
#include "json/member.hpp"
#include "json/parse.hpp"
#include "process/workdir.hpp"
#include "protocol/analyzer.hpp"
#include "protocol/line_json.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::destination {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// The observer of one run of the destination: the analyzer reads every stdout line (envelope,
// kept messages, the per-message judges, secrets); a write's STATE lines are matched with the
// STATEs of its input; a write to be killed keeps its input open until its k-th echo of a STATE
// it was sent and is stopped right then (a STATE that matches none says nothing of what it
// committed).
class RunObserver : public process::Observer {
public:
    RunObserver(protocol::Analyzer& analyzer, const Input* input, std::size_t kill_after,
                milliseconds end_input_after)
        : m_analyzer(analyzer), m_kill_after(kill_after), m_end_input_after(end_input_after) {
        if (input != nullptr) {
            for (std::size_t i = 0; i < input->messages.size(); ++i) {
                const auto& message = input->messages[i];
                if (message.kind == InputMessage::Kind::state) {
                    m_states[message.state_identity].push_back(i);
                }
            }
            m_matches = true;
        }
    }

    process::Decision on_stdout_line(std::string_view line, std::uint64_t number,
                                     bool truncated) override {
        auto decision = m_analyzer.on_stdout_line(line, number, truncated);
        // Echoes that come only once the input has ended (a destination that buffers its stdout)
        // are not a write interrupted mid-sync: it is not killed then.
        if (m_matches && !truncated && read_echo(line, number) && m_kill_after > 0 &&
            echoes.back().input_index && ++matched_echoes == m_kill_after && !input_ended_by_wait) {
            stop_asked = true;
            return process::Decision::stop;
        }
        return decision;
    }
    void on_stderr(std::string_view chunk) override { m_analyzer.on_stderr(chunk); }
    process::Decision on_tick(milliseconds elapsed) override { return m_analyzer.on_tick(elapsed); }
    // A write to be killed keeps its input open: a destination that echoes STATEs as it commits
    // is killed mid-sync, never after it saw the end. One that has read everything without
    // echoing enough gets the end of its input after a while (it may echo only at the end).
    bool end_input(const process::StdinProgress& progress) override {
        if (m_kill_after == 0) {
            return true;
        }
        if (stop_asked || progress.unread > 0) {
            return false;
        }
        auto now = Clock::now();
        if (!m_all_read_at) {
            m_all_read_at = now;
        }
        input_ended_by_wait = now - *m_all_read_at >= m_end_input_after;
        if (input_ended_by_wait) {
            echoes_at_input_end = matched_echoes;
        }
        return input_ended_by_wait;
    }

    std::vector<Echo> echoes;
    std::size_t matched_echoes = 0;  // echoes of a STATE the write was sent
    bool stop_asked = false;
    bool input_ended_by_wait = false;
    std::size_t echoes_at_input_end = 0;

private:
    // True when `line` is a STATE message: it is kept as an echo.
    bool read_echo(std::string_view line, std::uint64_t number) {
        m_buffer.assign(line);
        rapidjson::Document message;
        auto parse = json::parse_bounded_in_place<protocol::k_line_parse_flags>(
            message, m_buffer.data(), m_buffer.size());
        if (parse.failed() || !message.IsObject() || !message.HasMember("type") ||
            !message["type"].IsString() ||
            std::string_view(message["type"].GetString()) != "STATE" ||
            !message.HasMember("state") || !message["state"].IsObject()) {
            return false;
        }
        const auto& state = message["state"];
        Echo echo;
        echo.line = number;
        echo.text = excerpt(line, 300);
        auto found = m_states.find(state_identity(state));
        if (found != m_states.end()) {
            auto& next = m_next[found->first];
            // A STATE echoed again matches the same input STATE: the order check sees the repeat.
            echo.input_index = found->second[std::min(next, found->second.size() - 1)];
            next = std::min(next + 1, found->second.size());
        } else {
            echo.mismatch = mismatch_of(state);
        }
        if (state.HasMember("destinationStats") && state["destinationStats"].IsObject() &&
            state["destinationStats"].HasMember("recordCount") &&
            state["destinationStats"]["recordCount"].IsNumber()) {
            echo.destination_count = state["destinationStats"]["recordCount"].GetDouble();
        }
        echoes.push_back(std::move(echo));
        return true;
    }

    // The member names of the STATEs sent, read once, when an echo first matches none of them.
    const std::set<std::string>& sent_members() {
        if (!m_sent_members) {
            m_sent_members.emplace();
            for (const auto& [identity, indexes] : m_states) {
                rapidjson::Document state;
                state.Parse(identity.c_str(), identity.size());
                if (state.IsObject()) {
                    for (const auto& member : state.GetObject()) {
                        m_sent_members->emplace(member.name.GetString(),
                                                member.name.GetStringLength());
                    }
                }
            }
        }
        return *m_sent_members;
    }

    std::string mismatch_of(const rapidjson::Value& state) {
        const auto& sent_names = sent_members();
        std::vector<std::string> strangers;
        std::set<std::string> present;
        for (const auto& member : state.GetObject()) {
            std::string name(member.name.GetString(), member.name.GetStringLength());
            present.insert(name);
            if (!sent_names.contains(name) && name != "sourceStats" && name != "destinationStats") {
                strangers.push_back("'" + name + "'");
            }
        }
        if (strangers.empty()) {
            return "its values differ from every STATE sent";
        }
        std::vector<std::string> lacking;
        for (const auto& name : sent_names) {
            if (!present.contains(name)) {
                lacking.push_back("'" + name + "'");
            }
        }
        return lacking.empty()
                   ? fmt::format("it has {}, which no STATE sent has", fmt::join(strangers, ", "))
                   : fmt::format("it has {} where the STATEs sent have {}",
                                 fmt::join(strangers, ", "), fmt::join(lacking, ", "));
    }

    protocol::Analyzer& m_analyzer;
    std::optional<std::set<std::string>> m_sent_members;
    std::size_t m_kill_after;
    milliseconds m_end_input_after;
    bool m_matches = false;
    std::unordered_map<std::string, std::vector<std::size_t>> m_states;
    std::unordered_map<std::string, std::size_t> m_next;
    std::optional<Clock::time_point> m_all_read_at;
    std::string m_buffer;
};

protocol::Secrets secrets_from_spec(const protocol::Observation& spec, const TestConfig& config) {
    const auto* kept = spec.first_kept("SPEC");
    if (kept == nullptr) {
        return {};
    }
    auto message = json::parse_json_text(kept->json, "SPEC message");
    const auto& body = message["spec"];
    if (!body.IsObject() || !body.HasMember("connectionSpecification")) {
        return {};
    }
    std::vector<std::string> texts = {config.config_text};
    if (config.invalid_config_text) {
        texts.push_back(*config.invalid_config_text);
    }
    std::vector<std::string> values;
    for (const auto& text : texts) {
        try {
            auto document = json::parse_json_text(text, "config");
            auto found = protocol::collect_secrets(body["connectionSpecification"], document);
            values.insert(values.end(), found.begin(), found.end());
        } catch (const Error&) {
            // Not JSON: it holds no property the spec could mark secret.
        }
    }
    return protocol::Secrets(std::move(values));
}

report::RunSummary summarize(const Run& run, const Input* input) {
    report::RunSummary summary;
    summary.label = run.label;
    summary.command = run.command_line;
    summary.exit = run.outcome();
    summary.duration_ms = run.process().elapsed.count();
    summary.records = input != nullptr ? input->count(InputMessage::Kind::record) : 0;
    summary.states = run.echoes.size();
    summary.lines = run.observation.lines;
    summary.stderr_tail = excerpt(run.process().stderr_text, 2000);
    summary.cleanup_problem = run.process().cleanup_problem;
    return summary;
}

report::RunSummary summarize(const VerifyRun& verify) {
    report::RunSummary summary;
    summary.label = "verify";
    summary.command = verify.command_line;
    summary.exit = verify.process.exit.describe();
    summary.duration_ms = verify.process.elapsed.count();
    summary.records = verify.landed.rows.size();
    summary.lines = verify.process.stdout_lines;
    summary.stderr_tail = excerpt(verify.process.stderr_text, 2000);
    summary.counts_messages = false;
    return summary;
}

// The destination scenarios against one Airbyte destination: it writes generated (or recorded)
// input on the destination's stdin, kills and resumes it, reads back what landed with the test
// config's verify command, and judges the checks with the steps their needs matched. Only this
// file sees it: the header gives out make_destination_source.
struct DestinationSource final : engine::ScenarioSource {
    const TestConfig& config;
    const Checks& checks;
    Executor executor;
    Catalog catalog;
    std::vector<Scenario> scenario_table;
    std::vector<engine::ScenarioHeader> headers;
    std::vector<InputPtr> syncs;  // sync 1 and sync 2
    InputPtr unknown_stream;
    InputPtr schema_violation;
    std::unique_ptr<container::Launcher> launcher;
    process::PrivateDir scratch_root;
    protocol::Secrets secrets;
    std::size_t scenario_counter = 0;
    std::vector<report::SyncModeCount> written;  // per catalog stream: the writes and records sent

    // What one scenario's steps share.
    struct ScenarioState {
        std::filesystem::path dir;
        std::vector<Sent> history;
        std::vector<const protocol::LineJudge*> judges;
    };

    DestinationSource(const TestConfig& test_config, const Checks& table, Executor start)
        : config(test_config),
          checks(table),
          executor(std::move(start)),
          catalog(test_config.no_catalog
                      ? Catalog()
                      : Catalog(test_config.catalog_text, test_config.catalog_origin)),
          scenario_table(builtin_scenarios(table)),
          headers(engine::headers_of(scenario_table, k_suite)) {
        for (const auto& [id, reason] : config.not_served) {
            if (find_check(checks, id) == nullptr) {
                std::vector<std::string> ids;
                for (const auto& check : checks) {
                    ids.emplace_back(check.info.id);
                }
                auto nearest = nearest_name(id, ids);
                throw_input_error(
                    fmt::format("{}: not_served names '{}', which is no destination "
                                "check{}",
                                config.origin.string(), id,
                                nearest.empty() ? "" : "; did you mean '" + nearest + "'?"));
            }
        }
        if (config.no_catalog) {
            return;  // nothing is written
        }
        for (int sync = 1; sync <= 2; ++sync) {
            syncs.push_back(std::make_shared<Input>(sync_input(catalog, config.input, sync)));
        }
        if (auto input = unknown_stream_input(catalog, config.input)) {
            unknown_stream = std::make_shared<Input>(std::move(*input));
        }
        if (auto input = schema_violation_input(catalog, config.input)) {
            schema_violation = std::make_shared<Input>(std::move(*input));
        }
    }

    const std::vector<engine::ScenarioHeader>& scenarios() const override { return headers; }

    engine::Target target() const override {
        if (launcher) {
            return {launcher->describe(), {}, {}};
        }
        return {
            config.image ? config.image->image : fmt::format("{}", fmt::join(config.command, " ")),
            {},
            {}};
    }

    std::string mask(std::string_view text) const override { return secrets.redact(text); }

    void prepare() override {
        if (config.image) {
            auto image = *config.image;
            image.env.insert(config.env.begin(), config.env.end());
            image.shared_dirs.push_back(scratch_root.path());
            launcher = container::make_image_launcher(std::move(image));
        } else {
            launcher =
                container::make_native_launcher(config.command, config.env, config.working_dir);
        }
        // Secrets are known from the spec: run it once before any scenario.
        auto spec = launch("spec (setup)", {"spec"}, {}, config.spec_timeout, {}, nullptr);
        secrets = secrets_from_spec(spec.observation, config);
    }

    std::string rendered_config(const std::string& text, const std::filesystem::path& dir) const {
        return replace_all(text, "${CONFORM_SCRATCH}", dir.string());
    }

    process::RunResult start(const process::LaunchSpec& spec, process::Observer& observer) const {
        return process::run_with(executor, spec, observer);
    }

    // One run of the destination: `args` and the files given as flags, `input` on stdin.
    Run launch(std::string label, std::vector<std::string> args,
               const std::vector<std::pair<std::string, std::string>>& files, milliseconds timeout,
               const std::vector<const protocol::LineJudge*>& judges, const Input* input,
               std::size_t kill_after = 0) {
        process::PrivateDir inputs;
        container::Call call;
        call.args = std::move(args);
        call.timeout = timeout;
        call.grace = config.grace;
        for (const auto& [flag, content] : files) {
            auto name = flag.substr(2) + ".json";
            call.file_args.emplace_back(flag, inputs.write_file(name, content));
        }
        if (call.args.front() == "write") {
            call.args.insert(call.args.end(), config.write_args.begin(), config.write_args.end());
        }
        auto spec = launcher->prepare(call);
        std::string text;
        if (input != nullptr) {
            text = input->text();
            spec.stdin_data = text;
        }
        if (kill_after > 0) {
            spec.grace = milliseconds(0);  // killed, not asked to stop
        }
        protocol::AnalyzerSetup setup;
        setup.secrets = &secrets;
        setup.judges = judges;
        protocol::Analyzer analyzer(std::move(setup));
        RunObserver observer(analyzer, input, kill_after, config.end_input_after);
        Run run;
        run.label = std::move(label);
        run.command_line =
            launcher->describe() + " " + fmt::format("{}", fmt::join(call.args, " "));
        auto result = start(spec, observer);
        run.observation = analyzer.finish(std::move(result));
        run.observation.label = run.label;
        run.echoes = std::move(observer.echoes);
        run.input_bytes = text.size();
        run.killed = observer.stop_asked &&
                     run.observation.process.stop_reason == process::StopReason::requested;
        if (kill_after > 0 && !run.killed) {
            run.not_killed = why_not_killed(run, observer, kill_after);
        }
        return run;
    }

    static std::string why_not_killed(const Run& run, const RunObserver& observer,
                                      std::size_t kill_after) {
        if (observer.stop_asked) {
            return fmt::format("it ended on its own ({}) right at its STATE echo {}", run.outcome(),
                               kill_after);
        }
        auto unmatched = run.echoes.size() - observer.matched_echoes;
        auto strangers = unmatched == 0 ? std::string()
                                        : fmt::format(
                                              " ({} STATE(s) it wrote match none it was sent: see "
                                              "dst.states_echoed)",
                                              unmatched);
        if (observer.input_ended_by_wait) {
            return fmt::format(
                "it had read all its input and echoed {} STATE(s) it was sent, not {}, so its "
                "input was ended; it echoed {} after that and ended ({}): nothing was "
                "interrupted{}",
                observer.echoes_at_input_end, kill_after,
                observer.matched_echoes - observer.echoes_at_input_end, run.outcome(), strangers);
        }
        return fmt::format("it echoed {} STATE(s) it was sent before it ended ({}), not {}{}",
                           observer.matched_echoes, run.outcome(), kill_after, strangers);
    }

    Run write(const std::string& label, const Input& input, int sync, ScenarioState& state,
              std::size_t kill_after = 0) {
        auto catalog_text = catalog.for_sync(sync);
        return launch(label, {"write"},
                      {{"--config", rendered_config(config.config_text, state.dir)},
                       {"--catalog", catalog_text}},
                      config.write_timeout, state.judges, &input, kill_after);
    }

    void run_write(const Step& step, const InputPtr& input, StepResult& result,
                   ScenarioState& state, std::size_t kill_after = 0) {
        if (!input) {
            result.why_not = "no such record can be made for the catalog's first stream";
            return;
        }
        result.input = input;
        result.sync = step.sync;
        result.runs.push_back(write(fmt::format("{}: write {}", step.id, input->label), *input,
                                    step.sync, state, kill_after));
        const auto& run = result.runs.back();
        state.history.push_back({step.sync, input, run.exited_cleanly() && !run.killed});
    }

    // What the killed write did not commit, by its echoes: per stream after its last echoed STATE
    // (from the start for an overwrite stream when the destination has no refreshes).
    InputPtr resumed_from(const StepResult& killed) const {
        const auto& input = *killed.input;
        std::vector<std::optional<std::size_t>> after(catalog.streams().size());
        std::optional<std::size_t> after_all;
        for (const auto& echo : killed.run()->echoes) {
            if (!echo.input_index) {
                continue;
            }
            auto index = *echo.input_index;
            const auto& state = input.messages[index];
            if (state.all_streams || state.stream) {
                auto& slot = state.all_streams ? after_all : after[*state.stream];
                slot = std::max(slot.value_or(0), index);
            }
        }
        for (std::size_t s = 0; s < after.size(); ++s) {
            if (!input.per_stream_states) {
                after[s] = after_all;
            }
            if (!config.refreshes && catalog.streams()[s].mode == SyncMode::overwrite) {
                after[s] = std::nullopt;
            }
        }
        return std::make_shared<Input>(resumed_input(input, after, after_all));
    }

    void run_verify(StepResult& result, ScenarioState& state) {
        if (config.verify_command.empty()) {
            result.verify_not_configured = true;
            return;
        }
        auto config_file = state.dir / "config.json";
        std::ofstream(config_file) << rendered_config(config.config_text, state.dir);
        process::LaunchSpec spec;
        for (const auto& word : config.verify_command) {
            spec.argv.push_back(
                replace_all(replace_all(word, "${CONFORM_SCRATCH}", state.dir.string()),
                            "${CONFORM_CONFIG}", config_file.string()));
        }
        spec.env = config.verify_env;
        spec.working_dir = config.base_dir;
        spec.timeout = config.verify_timeout;
        spec.grace = config.grace;
        LandedReader reader(catalog);
        VerifyRun verify;
        // As the test config gives it: the scratch folder it names is gone after the run, and a
        // path that differs from run to run would make a shard's report differ from the whole
        // run's.
        verify.command_line = shell_join(config.verify_command);
        try {
            verify.process = start(spec, reader);
        } catch (const Error& error) {
            if (error.kind() == ErrorKind::interrupted) {
                throw;
            }
            verify.problem =
                fmt::format("verify `{}` could not start: {}", verify.command_line, error.what());
        }
        verify.landed = reader.take();
        if (verify.problem.empty() && !verify.process.exit.succeeded()) {
            verify.problem = fmt::format("verify `{}` ended with {}: {}", verify.command_line,
                                         verify.process.exit.describe(),
                                         excerpt(verify.process.stderr_text, 300));
        } else if (verify.problem.empty() && !verify.landed.problem.empty()) {
            verify.problem = verify.landed.problem;
        }
        result.verify = std::move(verify);
        result.history = state.history;
    }

    static std::string shell_join(const std::vector<std::string>& argv) {
        std::vector<std::string> words;
        for (const auto& word : argv) {
            words.push_back(shell_quote(word));
        }
        return fmt::format("{}", fmt::join(words, " "));
    }

    StepResult execute(const Scenario& scenario, std::size_t index,
                       const std::vector<StepResult>& earlier, ScenarioState& state) {
        const auto& step = scenario.steps[index];
        StepResult result;
        result.step = &step;
        switch (step.kind) {
            case StepKind::spec:
                result.runs.push_back(
                    launch("spec", {"spec"}, {}, config.spec_timeout, state.judges, nullptr));
                break;
            case StepKind::check:
            case StepKind::check_invalid: {
                bool invalid = step.kind == StepKind::check_invalid;
                if (invalid && !config.invalid_config_text) {
                    result.why_not = "the test config has no \"invalid_config\"";
                    break;
                }
                const auto& text = invalid ? *config.invalid_config_text : config.config_text;
                result.runs.push_back(launch(invalid ? "check (invalid config)" : "check",
                                             {"check"},
                                             {{"--config", rendered_config(text, state.dir)}},
                                             config.check_timeout, state.judges, nullptr));
                break;
            }
            case StepKind::sync:
                run_write(step, syncs.at(static_cast<std::size_t>(step.sync - 1)), result, state);
                break;
            case StepKind::killed:
                run_write(step, syncs.at(static_cast<std::size_t>(step.sync - 1)), result, state,
                          config.kill_after_echo);
                break;
            case StepKind::resumed: {
                auto base = base_of(scenario, index);
                const StepResult* killed = base ? &earlier[*base] : nullptr;
                if (killed == nullptr || killed->run() == nullptr) {
                    result.why_not = "the write to kill did not run";
                } else if (!killed->run()->killed) {
                    result.why_not = "the write was not killed: " + killed->run()->not_killed;
                } else {
                    run_write(step, resumed_from(*killed), result, state);
                }
                break;
            }
            case StepKind::unknown_stream:
                run_write(step, unknown_stream, result, state);
                break;
            case StepKind::schema_violation:
                run_write(step, schema_violation, result, state);
                if (!schema_violation) {
                    result.why_not =
                        fmt::format("the schema of stream '{}' accepts any record conform can make",
                                    catalog.streams().front().airbyte.display_name());
                }
                break;
            case StepKind::verify:
                run_verify(result, state);
                break;
        }
        return result;
    }

    // Why no step of `scenario` can run, whatever its checks: an acceptance-test-config.yml's
    // test config gives no catalog to write or no config to check with.
    std::optional<std::string> not_runnable(const Scenario& scenario) const {
        for (const auto& step : scenario.steps) {
            if (step.kind == StepKind::check && config.no_config) {
                return config.no_config;
            }
            bool writes = step.kind != StepKind::spec && step.kind != StepKind::check &&
                          step.kind != StepKind::check_invalid;
            if (writes && config.no_catalog) {
                return config.no_catalog;
            }
        }
        return std::nullopt;
    }

    // Why check `id` is not judged at all, in the test config's terms; nothing when it is.
    std::optional<std::string> not_judged(const Check& check) const {
        if (auto found = config.not_served.find(check.info.id); found != config.not_served.end()) {
            return "the test config says this mode does not serve it: " + found->second;
        }
        if (check.reads_landed && config.verify_command.empty()) {
            return std::string(
                "the test config has no verify command: what landed is not read (\"verify\")");
        }
        return std::nullopt;
    }

    report::ScenarioResult run(std::size_t index, const std::vector<std::string>& selected,
                               bool strict) override {
        const auto& scenario = scenario_table[index];
        report::ScenarioResult result;
        result.id = scenario.id;
        result.suite = std::string(k_suite);
        result.title = scenario.title;
        std::vector<std::size_t> judged;
        ScenarioState state;
        bool any_served = false;
        auto unrunnable = not_runnable(scenario);
        for (std::size_t c = 0; c < scenario.checks.size(); ++c) {
            if (std::find(selected.begin(), selected.end(), scenario.checks[c]) == selected.end()) {
                continue;
            }
            judged.push_back(c);
            const auto* check = find_check(checks, scenario.checks[c]);
            if (!unrunnable && !not_judged(*check)) {
                any_served = true;
                if (check->judge != nullptr) {
                    state.judges.push_back(check->judge);
                }
            }
        }
        std::vector<StepResult> steps;
        if (any_served) {
            state.dir = scratch_root.path() / fmt::format("scenario-{}", ++scenario_counter);
            std::filesystem::create_directories(state.dir);
            if (config.image) {
                std::filesystem::permissions(state.dir, std::filesystem::perms::all,
                                             std::filesystem::perm_options::add);
            }
            steps.reserve(scenario.steps.size());
            for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
                steps.push_back(execute(scenario, i, steps, state));
            }
        }
        for (auto c : judged) {
            const auto& check = *find_check(checks, scenario.checks[c]);
            engine::Circumstances circumstances;
            circumstances.strict = strict;
            circumstances.not_run = unrunnable ? unrunnable : not_judged(check);
            result.checks.push_back(engine::judge(
                check, Inputs(steps, scenario.inputs[c], config, catalog, secrets), circumstances));
            result.checks.back().purpose = engine::exists_for(scenario, check.info.id);
        }
        for (const auto& step : steps) {
            for (const auto& run : step.runs) {
                result.runs.push_back(summarize(run, step.input.get()));
                tally_written(step.input.get());
            }
            if (step.verify) {
                result.runs.push_back(summarize(*step.verify));
            }
        }
        result.status = engine::scenario_status(result.checks);
        return result;
    }

    void tally_written(const Input* input) {
        if (input == nullptr) {
            return;
        }
        written.resize(catalog.streams().size());
        std::vector<bool> sent(written.size(), false);
        for (const auto& message : input->messages) {
            if (message.kind == InputMessage::Kind::record && message.stream &&
                !message.unconfigured && *message.stream < written.size()) {
                ++written[*message.stream].records;
                sent[*message.stream] = true;
            }
        }
        for (std::size_t i = 0; i < written.size(); ++i) {
            written[i].runs += sent[i] ? 1 : 0;
        }
    }

    // A destination offers no streams: conform writes those of the test config's catalog, each
    // with its destination sync mode.
    report::StreamsCoverage stream_coverage() const override {
        report::StreamsCoverage coverage;
        coverage.available_known = false;
        coverage.note = "a destination offers no streams: conform writes the test config's catalog";
        for (std::size_t i = 0; i < catalog.streams().size(); ++i) {
            const auto& stream = catalog.streams()[i];
            std::string mode(to_string(stream.mode));
            report::StreamCoverage entry{
                stream.airbyte.display_name(), false, true, {mode}, {}, {}};
            if (i < written.size() && written[i].runs > 0) {
                entry.modes.push_back({mode, written[i].runs, written[i].records});
            }
            coverage.streams.push_back(std::move(entry));
        }
        return coverage;
    }

    engine::PlannedScenario plan(std::size_t index) const override {
        const auto& scenario = scenario_table[index];
        engine::PlannedScenario planned;
        if (auto unrunnable = not_runnable(scenario)) {
            planned.unmet = *unrunnable;
            return planned;
        }
        bool invalid_missing = !config.invalid_config_text;
        for (const auto& step : scenario.steps) {
            if (step.kind == StepKind::check_invalid && invalid_missing) {
                planned.unmet = "the test config has no \"invalid_config\"";
                return planned;
            }
            std::string what(to_string(step.roles().back()));
            if (step.kind == StepKind::verify && config.verify_command.empty()) {
                what += " (not run: the test config has no verify command)";
            } else {
                planned.runs += 1;
            }
            if (step.sync > 0) {
                what += fmt::format(" (sync {})", step.sync);
            }
            planned.lines.push_back(fmt::format("step {:<16} {}", step.id, what));
        }
        // A killed write may end before its echo, and then nothing is resumed.
        planned.exact =
            std::none_of(scenario.steps.begin(), scenario.steps.end(),
                         [](const Step& step) { return step.kind == StepKind::killed; });
        return planned;
    }
};

}  // namespace

bool Run::exited_cleanly() const {
    return process().stop_reason == process::StopReason::none && process().exit.succeeded();
}

std::string Run::outcome() const {
    if (process().stop_reason == process::StopReason::timeout) {
        return fmt::format("timed out after {:.1f} s",
                           static_cast<double>(process().elapsed.count()) / 1000);
    }
    if (killed) {
        return "killed by conform after its STATE echo";
    }
    return process().exit.describe();
}

bool Run::has_trace_error() const {
    return trace_error_failure_type().has_value();
}

std::optional<std::string> Run::trace_error_failure_type() const {
    for (const auto& kept : observation.kept) {
        if (kept.type != "TRACE") {
            continue;
        }
        auto message = json::parse_json_text(kept.json, "TRACE");
        const auto& trace = message["trace"];
        if (trace.IsObject() && trace.HasMember("type") && trace["type"].IsString() &&
            std::string_view(trace["type"].GetString()) == "ERROR") {
            const auto* error = json::member(trace, "error");
            const auto* type = error != nullptr ? json::member(*error, "failure_type") : nullptr;
            return type != nullptr && type->IsString() ? type->GetString() : "";
        }
    }
    return std::nullopt;
}

std::unique_ptr<engine::ScenarioSource> make_destination_source(const TestConfig& config,
                                                                const Checks& checks,
                                                                Executor executor) {
    return std::make_unique<DestinationSource>(config, checks, std::move(executor));
}

report::RunReport run_destination_suite(const TestConfig& config, const Checks& checks,
                                        const engine::RunOptions& options,
                                        report::Reporter& reporter, Executor executor) {
    auto source = make_destination_source(config, checks, std::move(executor));
    return engine::run_builtin_suite(*source, options, reporter, config.origin,
                                     report::k_airbyte_destination);
}

}  // namespace conform::destination
