#include "singer/source.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <limits>
#include <set>

#include "container/launcher.hpp"
#include "engine/scenarios.hpp"
#include "json/bounded_parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "process/workdir.hpp"
#include "protocol/future_cursor.hpp"
#include "protocol/secrets.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::singer {

namespace {

constexpr std::string_view k_sdk_no_version = "[could not be detected]";

rapidjson::Document parse(std::string_view text) {
    rapidjson::Document document;
    json::parse_bounded(document, text);
    return document;
}

bool mentions(std::string_view text, std::initializer_list<std::string_view> words) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return std::any_of(words.begin(), words.end(), [&lower](std::string_view word) {
        return lower.find(word) != std::string::npos;
    });
}

// The values of the settings --about marks secret (`secret: true` or `writeOnly: true`, as the
// Meltano SDK writes them), following nested objects.
void secret_settings(const rapidjson::Value& schema, const rapidjson::Value& config,
                     std::vector<std::string>& values, int depth = 0) {
    if (!schema.IsObject() || !config.IsObject() || depth > 64) {
        return;
    }
    auto properties = schema.FindMember("properties");
    if (properties == schema.MemberEnd() || !properties->value.IsObject()) {
        return;
    }
    for (const auto& property : properties->value.GetObject()) {
        auto value = config.FindMember(property.name);
        if (value == config.MemberEnd() || !property.value.IsObject()) {
            continue;
        }
        auto flag = [&property](const char* name) {
            auto it = property.value.FindMember(name);
            return it != property.value.MemberEnd() && it->value.IsBool() && it->value.GetBool();
        };
        if (flag("secret") || flag("writeOnly")) {
            if (value->value.IsString()) {
                values.emplace_back(value->value.GetString());
            } else if (value->value.IsNumber()) {
                values.push_back(json::to_json(value->value));
            }
        }
        secret_settings(property.value, value->value, values, depth + 1);
    }
}

report::RunSummary summarize(const TapRun& run) {
    report::RunSummary summary;
    summary.label = run.label;
    summary.command = run.command_line;
    summary.exit = run.outcome();
    summary.duration_ms = run.process.elapsed.count();
    summary.records = run.record_count;
    summary.states = run.state_count;
    summary.lines = run.lines;
    summary.stderr_tail = excerpt(run.process.stderr_text, 2000);
    summary.cleanup_problem = run.process.cleanup_problem;
    return summary;
}

// The median of the text values of `keys`.
std::optional<std::string> median_text(const std::vector<protocol::CursorValue>& keys) {
    std::vector<std::string> texts;
    for (const auto& key : keys) {
        if (key.text) {
            texts.push_back(*key.text);
        }
    }
    if (texts.empty()) {
        return std::nullopt;
    }
    std::sort(texts.begin(), texts.end());
    return texts[texts.size() / 2];
}

// The middle of `keys` by value, not by the order a tap emitted them in (tap-github's
// repositories come in a Python set's order): the same bookmark from run to run.
protocol::CursorValue median_value(std::vector<protocol::CursorValue> keys) {
    auto middle = keys.begin() + static_cast<std::ptrdiff_t>(keys.size() / 2);
    std::nth_element(keys.begin(), middle, keys.end(),
                     [](const auto& a, const auto& b) { return a.compare(b).value_or(0) < 0; });
    return *middle;
}

// The Singer scenarios against one tap: `prepare` asks for --about and discovers the catalog
// once; each scenario's steps run the tap with catalogs, states and configs conform writes, and
// the checks are judged on the steps their needs matched. Only this file sees it: the header gives
// out make_singer_source.
struct SingerSource final : engine::ScenarioSource {
    const TestConfig& config;
    const Checks& checks;
    Executor executor;
    std::vector<Scenario> scenario_table;
    std::vector<engine::ScenarioHeader> headers;
    process::PrivateDir dir;
    std::unique_ptr<container::Launcher> launcher;
    protocol::Secrets secrets;
    std::optional<TapRun> about;
    bool about_offered = false;
    std::vector<std::string> capabilities;
    std::string version;
    std::optional<TapRun> discovery;
    std::optional<Catalog> catalog;
    std::string catalog_problem;
    std::vector<std::string> streams;  // under test, tap_stream_ids in catalog order
    std::map<std::string, std::string> replication_keys;  // by stream name
    std::set<std::string> full_table;
    int runs_started = 0;
    std::map<std::string, report::SyncModeCount> synced;  // by stream name: the syncs that had it

    SingerSource(const TestConfig& test_config, const Checks& table, Executor start)
        : config(test_config),
          checks(table),
          executor(std::move(start)),
          scenario_table(builtin_scenarios(table)),
          headers(engine::headers_of(scenario_table, k_suite)) {}

    const std::vector<engine::ScenarioHeader>& scenarios() const override { return headers; }

    engine::Target target() const override {
        engine::Target target;
        target.description = launcher ? launcher->describe() : std::string();
        if (!version.empty()) {
            target.version = version;
            target.version_source = "--about";
        }
        return target;
    }

    std::string mask(std::string_view text) const override { return secrets.redact(text); }

    std::vector<std::string> config_secrets() const {
        std::vector<std::string> values;
        auto document = parse(config.config_text);
        if (!document.IsObject()) {
            return values;
        }
        for (const auto& pointer : config.secret_pointers) {
            const auto* value = json::find_value(document, pointer);
            if (value != nullptr && value->IsString()) {
                values.emplace_back(value->GetString());
            } else if (value != nullptr && value->IsNumber()) {
                values.push_back(json::to_json(*value));
            }
        }
        return values;
    }

    // One invocation of the tap: `args` plus files written to the private folder.
    TapRun invoke(std::string label, std::vector<std::string> args,
                  const std::vector<std::pair<std::string, std::string>>& files,
                  std::chrono::milliseconds timeout, ReaderSetup setup) {
        TapRun run;
        run.label = std::move(label);
        container::Call call;
        call.args = std::move(args);
        call.timeout = timeout;
        call.grace = config.grace;
        ++runs_started;
        for (const auto& [flag, content] : files) {
            auto name = flag.substr(2) + ".json";
            call.file_args.emplace_back(flag, dir.write_file(name, content));
        }
        setup.secrets = &secrets;
        setup.catalog = catalog ? &*catalog : nullptr;
        setup.scratch = dir.path();
        setup.activate_version_claimed = setup.activate_version_claimed && config.activate_version;
        Reader reader(std::move(setup), run);
        try {
            auto spec = launcher->prepare(call);
            run.command_line = shell_join(spec.argv);
            run.process = process::run_with(executor, spec, reader);
            run.started = true;
            run.timed_out = run.process.stop_reason == process::StopReason::timeout;
        } catch (const Error& error) {
            if (error.kind() == ErrorKind::interrupted || error.kind() == ErrorKind::usage) {
                throw;
            }
            run.start_error = error.what();
        }
        reader.finish(run.process.stderr_text);
        return run;
    }

    static std::string shell_join(const std::vector<std::string>& argv) {
        std::string line;
        for (const auto& word : argv) {
            line += (line.empty() ? "" : " ") + shell_quote(word);
        }
        return line;
    }

    ReaderSetup sync_setup(const std::vector<const MessageJudge*>& judges) const {
        ReaderSetup setup;
        setup.replication_keys = replication_keys;
        setup.full_table_streams = full_table;
        setup.judges = judges;
        setup.activate_version_claimed = true;
        return setup;
    }

    TapRun sync(std::string label, const std::string& catalog_text,
                const std::vector<const MessageJudge*>& judges,
                const std::optional<std::string>& state = std::nullopt,
                const std::optional<std::string>& config_text = std::nullopt,
                std::map<std::string, StreamFloor> floors = {},
                std::map<std::string, std::set<std::int64_t>> activated = {},
                const std::string& catalog_flag = "--catalog") {
        std::vector<std::pair<std::string, std::string>> files = {
            {"--config", config_text.value_or(config.config_text)}, {catalog_flag, catalog_text}};
        if (state) {
            files.emplace_back("--state", *state);
        }
        auto setup = sync_setup(judges);
        setup.floors = std::move(floors);
        setup.activated = std::move(activated);
        auto run = invoke(std::move(label), {}, files, config.sync_timeout, std::move(setup));
        if (state) {
            auto document = parse(*state);
            run.start_bookmarks =
                bookmarks_of(document, replication_keys, catalog ? &*catalog : nullptr);
        }
        return run;
    }

    void prepare() override {
        if (config.image) {
            launcher = container::make_image_launcher(*config.image);
        } else {
            launcher =
                container::make_native_launcher(config.command, config.env, config.working_dir);
        }
        secrets = protocol::Secrets(config_secrets());
        if (config.about.value_or(true)) {
            about = invoke("--about --format=json", {"--about", "--format=json"},
                           {{"--config", config.config_text}}, config.about_timeout, {});
            read_about();
        }
        discovery = invoke("--discover", {"--discover"}, {{"--config", config.config_text}},
                           config.discover_timeout, {});
        if (!discovery->exited_with(0)) {
            catalog_problem = fmt::format("discovery gave {}", discovery->outcome());
            return;
        }
        catalog = Catalog::read(discovery->stdout_text, catalog_problem);
        if (!catalog) {
            return;
        }
        for (const auto& [stream_id, key] : config.replication_keys) {
            if (auto problem = catalog->use_replication_key(stream_id, key); !problem.empty()) {
                throw Error(ErrorKind::input,
                            fmt::format("{}: replication_keys names '{}' for stream '{}', but {}",
                                        config.origin.string(), key, stream_id, problem));
            }
        }
        for (const auto& stream_id : config.log_based) {
            if (auto problem = catalog->use_log_based(stream_id); !problem.empty()) {
                throw Error(ErrorKind::input,
                            fmt::format("{}: log_based names stream '{}', but {}",
                                        config.origin.string(), stream_id, problem));
            }
        }
        for (const auto& stream : catalog->streams()) {
            if (config.streams.empty() || std::find(config.streams.begin(), config.streams.end(),
                                                    stream.tap_stream_id) != config.streams.end()) {
                streams.push_back(stream.tap_stream_id);
                if (stream.incremental()) {
                    replication_keys[stream.stream] = stream.replication_key;
                } else {
                    full_table.insert(stream.stream);
                }
            }
        }
        for (const auto& wanted : config.streams) {
            if (catalog->find(wanted) == nullptr) {
                throw Error(ErrorKind::input,
                            fmt::format("{}: streams names '{}', which the tap's catalog lacks",
                                        config.origin.string(), wanted));
            }
        }
        if (streams.empty()) {
            catalog_problem = "the catalog has no stream";
            catalog.reset();
        }
    }

    void read_about() {
        const auto& run = *about;
        bool refused = run.started && !run.timed_out && !run.exited_with(0) &&
                       (run.exited_with(2) ||
                        mentions(run.process.stderr_text,
                                 {"unrecognized argument", "no such option", "unknown option"}));
        about_offered = config.about.value_or(false) || !refused;
        auto document = parse(run.stdout_text);
        if (!run.exited_with(0) || !document.IsObject()) {
            return;
        }
        if (auto it = document.FindMember("capabilities");
            it != document.MemberEnd() && it->value.IsArray()) {
            for (const auto& item : it->value.GetArray()) {
                if (item.IsString()) {
                    capabilities.emplace_back(item.GetString());
                }
            }
        }
        // The Meltano SDK writes a placeholder when its package metadata names another
        // distribution (MeltanoLabs tap-postgres is meltanolabs-tap-postgres): no version.
        if (auto it = document.FindMember("version");
            it != document.MemberEnd() && it->value.IsString() &&
            std::string_view(it->value.GetString()) != k_sdk_no_version) {
            version = it->value.GetString();
        }
        if (auto it = document.FindMember("settings"); it != document.MemberEnd()) {
            auto config_document = parse(config.config_text);
            std::vector<std::string> values = config_secrets();
            secret_settings(it->value, config_document, values);
            secrets = protocol::Secrets(std::move(values));
        }
    }

    bool claims_properties() const {
        return config.properties || std::find(capabilities.begin(), capabilities.end(),
                                              "properties") != capabilities.end();
    }

    // Why the scenario cannot run, in the test config's terms; nothing when it can.
    std::optional<std::string> unmet_requirement(const Scenario& scenario) const {
        for (const auto& requirement : scenario.requires_) {
            if (requirement == "about" && about && !about_offered) {
                return "the tap does not offer --about (it rejected the option); set \"about\": "
                       "true to judge it anyway";
            }
            if (requirement == "about" && !config.about.value_or(true)) {
                return "the test config says the tap offers no --about (\"about\": false)";
            }
            if (requirement == "catalog" && discovery && !catalog) {
                return fmt::format(
                    "discovery gave no catalog to select from ({}; see "
                    "sg-discover)",
                    catalog_problem);
            }
            if (requirement == "properties" && discovery && !claims_properties()) {
                return "the test config does not say the tap accepts --properties "
                       "(\"properties\": true) and --about lists no 'properties' capability";
            }
            if (requirement == "batch_config" && !config.batch_config_text) {
                return "the test config names no batch_config (a config that makes the tap emit "
                       "BATCH messages)";
            }
            if (requirement == "invalid_config" && !config.invalid_config_text) {
                return "the test config names no invalid_config";
            }
            if (requirement == "two_top_level_streams" && catalog &&
                top_level_streams().size() < 2) {
                return "fewer than two streams under test sync on their own (a stream whose "
                       "metadata names a parent-tap-stream-id is synced inside its parent)";
            }
            if (requirement == "incremental" && catalog && replication_keys.empty()) {
                return "no stream under test has a replication key (valid-replication-keys)";
            }
            if (requirement == "currently_syncing" && !config.currently_syncing) {
                return "the test config says the tap does not resume by currently_syncing "
                       "(\"currently_syncing\": false)";
            }
            if (requirement == "start_date") {
                auto document = parse(config.config_text);
                if (!document.IsObject() || !document.HasMember(config.start_date_key.c_str())) {
                    return fmt::format(
                        "the tap's config has no '{}' (start_date.key names the setting)",
                        config.start_date_key);
                }
            }
        }
        return std::nullopt;
    }

    std::vector<const MessageJudge*> judges_of(const Scenario& scenario,
                                               const std::vector<std::string>& selected) const {
        std::vector<const MessageJudge*> judges;
        for (const auto& id : scenario.checks) {
            const auto* check = find_check(checks, id);
            if (check != nullptr && check->judge != nullptr &&
                std::find(selected.begin(), selected.end(), id) != selected.end()) {
                judges.push_back(check->judge);
            }
        }
        return judges;
    }

    std::string full_catalog() const { return catalog->write(streams, {}); }

    // The bookmarks per stream of `run`'s final STATE: the lowest, and each partition's (an SDK
    // context's, or a parent's a record field names); none for a stream it holds no bookmark of
    // (sg.incremental_no_older skips that stream).
    static std::map<std::string, StreamFloor> floors_after(const TapRun& run) {
        std::map<std::string, StreamFloor> floors;
        for (const auto& bookmark : run.final_bookmarks()) {
            auto [it, first] = floors.try_emplace(bookmark.stream, StreamFloor{bookmark.value, {}});
            if (!first && bookmark.value.compare(it->second.lowest).value_or(0) < 0) {
                it->second.lowest = bookmark.value;
            }
            if (auto context = partition_context(bookmark.partition); !context.empty()) {
                it->second.partitions.push_back(
                    {bookmark.partition, std::move(context), bookmark.value});
            } else if (!bookmark.partition.empty() && !bookmark.partition.starts_with('{')) {
                it->second.partitions.push_back({bookmark.partition, {}, bookmark.value, true});
            }
        }
        return floors;
    }

    // The members of an SDK partition's context ({"project_id": 101}), each value as canonical
    // JSON; empty for a partition named otherwise (tap-github's "acme/api").
    static std::vector<std::pair<std::string, std::string>> partition_context(
        const std::string& partition) {
        std::vector<std::pair<std::string, std::string>> context;
        if (!partition.starts_with('{')) {
            return context;
        }
        auto document = parse(partition);
        if (document.IsObject()) {
            for (const auto& member : document.GetObject()) {
                context.emplace_back(member.name.GetString(),
                                     json::to_canonical_json(member.value));
            }
        }
        return context;
    }

    void run_partial(StepResult& result, const std::vector<const MessageJudge*>& judges) {
        Selection selection;
        if (streams.size() >= 2) {
            selection[streams.back()].selected = false;
            result.unselected_streams.push_back(streams.back());
        }
        for (const auto& id : streams) {
            const auto* stream = catalog->find(id);
            auto available = stream->available_fields();
            if (!available.empty() && (!selection.contains(id) || selection[id].selected)) {
                selection[id].deselected_fields.insert(available.front());
                result.notes.push_back(
                    fmt::format("left out field '{}' of stream '{}'", available.front(), id));
                break;
            }
        }
        if (selection.empty()) {
            result.why_not = "nothing to leave out: one stream under test and no available field";
            return;
        }
        for (const auto& stream : result.unselected_streams) {
            result.notes.push_back(fmt::format("left out stream '{}'", stream));
        }
        result.selection = selection;
        result.runs.push_back(
            sync("sync, partial selection", catalog->write(streams, selection), judges));
    }

    void run_minimal(StepResult& result, const std::vector<const MessageJudge*>& judges) {
        Selection selection;
        for (const auto& id : streams) {
            const auto& stream = *catalog->find(id);
            selection[id].deselected_fields.insert(stream.properties.begin(),
                                                   stream.properties.end());
            // A user who configures a replication key selects it; a tap may need it to sync.
            if (stream.incremental() && !stream.replication_key_offered()) {
                selection[id].deselected_fields.erase(stream.replication_key);
                result.notes.push_back(
                    fmt::format("kept '{}' of '{}' selected: the test config's replication key",
                                stream.replication_key, id));
            }
        }
        result.selection = selection;
        result.runs.push_back(
            sync("sync, every field deselected", catalog->write(streams, selection), judges));
    }

    // The indexes of `states` whose value differs from the one before.
    static std::vector<std::size_t> distinct_states(const std::vector<StateSeen>& states) {
        std::vector<std::size_t> distinct;
        for (std::size_t i = 0; i < states.size(); ++i) {
            if (distinct.empty() || states[distinct.back()].value != states[i].value) {
                distinct.push_back(i);
            }
        }
        return distinct;
    }

    // Of `indexes`, the last of each run emitted after the same number of records.
    static std::vector<std::size_t> last_per_point(const std::vector<StateSeen>& states,
                                                   const std::vector<std::size_t>& indexes) {
        std::vector<std::size_t> last;
        for (auto index : indexes) {
            if (!last.empty() &&
                states[last.back()].records_before == states[index].records_before) {
                last.back() = index;
            } else {
                last.push_back(index);
            }
        }
        return last;
    }

    // At most `wanted` of `indexes`, evenly spread, the last one always among them.
    static std::vector<std::size_t> spread(const std::vector<std::size_t>& indexes,
                                           std::size_t wanted) {
        std::vector<std::size_t> chosen;
        wanted = std::min(indexes.size(), wanted);
        for (std::size_t n = 0; n < wanted; ++n) {
            auto index =
                indexes[wanted == 1 ? indexes.size() - 1 : n * (indexes.size() - 1) / (wanted - 1)];
            if (chosen.empty() || chosen.back() != index) {
                chosen.push_back(index);
            }
        }
        return chosen;
    }

    void run_resumed(const StepResult& base, StepResult& result,
                     const std::vector<const MessageJudge*>& judges) {
        const auto& full = base.runs.front();
        if (full.states.empty()) {
            result.why_not = "the full sync emitted no STATE to resume from";
            return;
        }
        auto distinct = distinct_states(full.states);
        // Beyond max_resumed_states, one STATE per point of the sync (the last of those with no
        // record between them), spread over the sync: a burst of STATEs as streams finish
        // (the Meltano SDK's) would otherwise take most of the resumes.
        auto points = distinct;
        if (points.size() > config.max_resumed_states) {
            points = last_per_point(full.states, distinct);
        }
        auto chosen = spread(points, config.max_resumed_states);
        if (distinct.size() > chosen.size()) {
            result.notes.push_back(fmt::format(
                "resumed from {} of {} distinct STATEs{}", chosen.size(), distinct.size(),
                points.size() < distinct.size()
                    ? fmt::format(" ({} points of the sync, one STATE each)", points.size())
                    : ""));
        }
        for (auto index : chosen) {
            const auto& state = full.states[index];
            auto run = sync(fmt::format("resume from STATE {} (line {})", index + 1, state.line),
                            full_catalog(), judges, state.value, std::nullopt, {},
                            full.activated_before(index));
            run.resumed_from = index + 1;
            result.runs.push_back(std::move(run));
        }
    }

    // Sets each bookmark a tap keeps per parent (keyed_partition_bookmark) to `value`; false when
    // `entry` holds none, or holds its bookmark in a shape bookmarks_of reads first.
    static bool set_keyed_partitions(rapidjson::Value& entry, const CatalogStream& stream,
                                     const rapidjson::Value& value,
                                     rapidjson::Document::AllocatorType& alloc) {
        if (entry.HasMember("replication_key_value") || entry.HasMember("partitions") ||
            entry.HasMember(stream.replication_key.c_str())) {
            return false;
        }
        bool set = false;
        for (auto& member : entry.GetObject()) {
            if (keyed_partition_bookmark(member.value) != nullptr) {
                member.value.MemberBegin()->value.CopyFrom(value, alloc);
                set = true;
            }
        }
        return set;
    }

    // Sets each partition's bookmark of the Meltano SDK's shape ({"partitions": [{"context",
    // "replication_key_value"}]}) to `value`; false when `entry` holds no partition.
    static bool set_sdk_partitions(rapidjson::Value& entry, const rapidjson::Value& value,
                                   rapidjson::Document::AllocatorType& alloc) {
        auto partitions = entry.FindMember("partitions");
        if (partitions == entry.MemberEnd() || !partitions->value.IsArray() ||
            partitions->value.Empty()) {
            return false;
        }
        for (auto& partition : partitions->value.GetArray()) {
            if (!partition.IsObject()) {
                continue;
            }
            partition.RemoveMember("progress_markers");
            partition.RemoveMember("replication_key_value");
            partition.AddMember("replication_key_value", rapidjson::Value(value, alloc), alloc);
        }
        return true;
    }

    // Sets `stream`'s bookmark in `bookmarks` to `value`, in the shape the tap wrote it (each
    // parent's bookmark, each SDK partition's, a member named after the replication key, else
    // the SDK's replication_key_value); progress markers are dropped.
    static void set_bookmark(rapidjson::Value& bookmarks, const CatalogStream& stream,
                             const protocol::CursorValue& mid,
                             rapidjson::Document::AllocatorType& alloc) {
        rapidjson::Value value;
        if (mid.number) {
            value.SetDouble(*mid.number);
            if (*mid.number == static_cast<double>(static_cast<std::int64_t>(*mid.number))) {
                value.SetInt64(static_cast<std::int64_t>(*mid.number));
            }
        } else {
            value.SetString(mid.text->c_str(), alloc);
        }
        auto key = bookmark_key(bookmarks, stream);
        auto found = bookmarks.FindMember(key.c_str());
        if (found == bookmarks.MemberEnd() || !found->value.IsObject()) {
            bookmarks.RemoveMember(key.c_str());
            bookmarks.AddMember(rapidjson::Value(key.c_str(), alloc),
                                rapidjson::Value(rapidjson::kObjectType), alloc);
        }
        auto& entry = bookmarks[key.c_str()];
        if (set_keyed_partitions(entry, stream, value, alloc) ||
            set_sdk_partitions(entry, value, alloc)) {
            return;
        }
        entry.RemoveMember("partitions");
        entry.RemoveMember("progress_markers");
        const char* slot = entry.HasMember(stream.replication_key.c_str()) &&
                                   !entry.HasMember("replication_key_value")
                               ? stream.replication_key.c_str()
                               : "replication_key_value";
        if (std::string_view(slot) == "replication_key_value") {
            entry.RemoveMember("replication_key");
            entry.AddMember("replication_key",
                            rapidjson::Value(stream.replication_key.c_str(), alloc), alloc);
        }
        entry.RemoveMember(slot);
        entry.AddMember(rapidjson::Value(slot, alloc), value, alloc);
    }

    // The streams under test that a tap syncs on their own, not inside a parent: the order of
    // these is what currently_syncing speaks of.
    std::vector<std::string> top_level_streams() const {
        std::vector<std::string> top_level;
        for (const auto& id : streams) {
            if (catalog->find(id)->parent_tap_stream_id.empty()) {
                top_level.push_back(id);
            }
        }
        return top_level;
    }

    // The top-level streams in the order the full sync emitted their first records, those it
    // emitted none of last: a tap syncs in its own order (tap-github's is alphabetical), and
    // "the streams after it" are after it in that order, not the catalog's.
    std::vector<std::string> sync_order(const TapRun& full) const {
        auto order = top_level_streams();
        auto first_line = [&](const std::string& id) {
            auto seen = full.streams.find(catalog->find(id)->stream);
            return seen == full.streams.end() || seen->second.first_record_line == 0
                       ? std::numeric_limits<std::uint64_t>::max()
                       : seen->second.first_record_line;
        };
        std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
            return first_line(a) < first_line(b);
        });
        return order;
    }

    // The streams of `ids` whose records the full sync emitted interleaved with another's: a
    // parent and the children a tap syncs inside it, as the Meltano SDK does without saying so
    // (it writes no parent-tap-stream-id and never names currently_syncing).
    std::set<std::string> interleaved_streams(const TapRun& full,
                                              const std::vector<std::string>& ids) const {
        std::vector<std::pair<std::string, const StreamSeen*>> emitted;
        for (const auto& id : ids) {
            auto seen = full.streams.find(catalog->find(id)->stream);
            if (seen != full.streams.end() && seen->second.records > 0) {
                emitted.emplace_back(id, &seen->second);
            }
        }
        std::set<std::string> interleaved;
        for (const auto& [id, seen] : emitted) {
            for (const auto& [other_id, other] : emitted) {
                if (id != other_id && seen->first_record_line < other->last_record_line &&
                    other->first_record_line < seen->last_record_line) {
                    interleaved.insert(id);
                }
            }
        }
        return interleaved;
    }

    // The final STATE of `full` as a document, with a `bookmarks` object (empty when it had none).
    static rapidjson::Document final_state_with_bookmarks(const TapRun& full) {
        rapidjson::Document state =
            full.states.empty() ? parse("{}") : parse(full.states.back().value);
        if (!state.IsObject()) {
            state.SetObject();
        }
        if (!state.HasMember("bookmarks") || !state["bookmarks"].IsObject()) {
            state.RemoveMember("bookmarks");
            state.AddMember("bookmarks", rapidjson::Value(rapidjson::kObjectType),
                            state.GetAllocator());
        }
        return state;
    }

    // The final STATE with the bookmark of each incremental stream that emitted records moved
    // far ahead of its newest replication key (Airbyte's future_state, for a Singer tap): a tap
    // that honours its bookmarks emits nothing older, and keeps them.
    void run_future_state(const StepResult& base, StepResult& result,
                          const std::vector<const MessageJudge*>& judges) {
        const auto& full = base.runs.front();
        if (full.states.empty()) {
            result.why_not = "the first sync emitted no STATE";
            return;
        }
        auto state = final_state_with_bookmarks(full);
        auto& bookmarks = state["bookmarks"];
        auto kept = full.final_bookmarks();
        std::map<std::string, StreamFloor> floors;
        for (const auto& id : streams) {
            const auto* stream = catalog->find(id);
            auto seen = full.streams.find(stream->stream);
            // Only a bookmark the tap wrote is moved: one of a shape it never wrote proves nothing.
            bool bookmarked = std::any_of(kept.begin(), kept.end(), [&](const Bookmark& bookmark) {
                return bookmark.stream == stream->stream;
            });
            if (!stream->incremental() || !bookmarked || seen == full.streams.end() ||
                !seen->second.max_key) {
                continue;
            }
            auto future = protocol::far_future(*seen->second.max_key);
            if (!future) {
                result.notes.push_back(fmt::format("'{}': its newest {} ({}) cannot be moved ahead",
                                                   stream->stream, stream->replication_key,
                                                   seen->second.max_key->describe()));
                continue;
            }
            floors[stream->stream] = StreamFloor{*future, {}};
            set_bookmark(bookmarks, *stream, *future, state.GetAllocator());
            result.notes.push_back(
                fmt::format("bookmark of '{}' set to {}", stream->stream, future->describe()));
        }
        if (floors.empty()) {
            result.why_not =
                "the first sync's final STATE holds no bookmark of an incremental stream under "
                "test that emitted records: none to move ahead";
            return;
        }
        result.runs.push_back(sync("sync from a far-future state", full_catalog(), judges,
                                   json::to_json(state), std::nullopt, std::move(floors),
                                   full.activated_before(full.states.size() - 1)));
    }

    void run_crafted(const StepResult& base, StepResult& result,
                     const std::vector<const MessageJudge*>& judges) {
        const auto& full = base.runs.front();
        auto candidates = sync_order(full);
        // Only streams the tap names currently_syncing are resumed by it (tap-gitlab never syncs
        // projects on its own when it syncs groups, and never names it).
        const auto& named = full.named_currently_syncing;
        if (!named.empty()) {
            std::erase_if(candidates, [&named](const auto& id) { return !named.contains(id); });
            if (candidates.size() < 2) {
                result.why_not = fmt::format(
                    "the full sync's STATEs name {} currently_syncing, no other top-level stream "
                    "under test: nothing in the middle of the sync to interrupt",
                    fmt::join(named, ", "));
                return;
            }
        } else if (auto interleaved = interleaved_streams(full, candidates); !interleaved.empty()) {
            std::erase_if(candidates,
                          [&interleaved](const auto& id) { return interleaved.contains(id); });
            if (candidates.size() < 2) {
                result.why_not = fmt::format(
                    "the full sync's STATEs never name currently_syncing, and the records of {} "
                    "interleave (a parent synced with its children): fewer than two streams are "
                    "synced on their own, nothing in the middle of the sync to interrupt",
                    fmt::join(interleaved, ", "));
                return;
            }
            result.notes.push_back(
                fmt::format("not interrupted, as their records interleave (synced together): {}",
                            fmt::join(interleaved, ", ")));
        }
        std::vector<std::string> log_based;
        std::erase_if(candidates, [&](const auto& id) {
            const auto* stream = catalog->find(id);
            if (stream != nullptr && stream->log_based) {
                log_based.push_back(id);
                return true;
            }
            return false;
        });
        if (!log_based.empty()) {
            // Its final bookmark is a log position: a tap resumes it as the log, never as the
            // table a currently_syncing names (PipelineWise's tap-postgres ignores it then).
            result.notes.push_back(
                fmt::format("LOG_BASED, not interrupted: {}", fmt::join(log_based, ", ")));
            if (candidates.size() < 2) {
                result.why_not = fmt::format(
                    "fewer than two streams under test are not LOG_BASED ({}): nothing in the "
                    "middle of the sync to interrupt",
                    fmt::join(log_based, ", "));
                return;
            }
        }
        result.notes.push_back(
            fmt::format("the full sync's order: {}", fmt::join(candidates, ", ")));
        auto middle = candidates.size() / 2;
        const auto* interrupted = catalog->find(candidates[middle]);
        result.interrupted_stream = interrupted->stream;
        for (std::size_t i = 0; i < candidates.size(); ++i) {
            if (i != middle) {
                (i < middle ? result.synced_streams : result.pending_streams)
                    .push_back(catalog->find(candidates[i])->stream);
            }
        }
        auto state = final_state_with_bookmarks(full);
        auto& alloc = state.GetAllocator();
        auto& bookmarks = state["bookmarks"];
        for (const auto& pending : result.pending_streams) {
            bookmarks.RemoveMember(bookmark_key(bookmarks, *catalog->find(pending)).c_str());
        }
        std::map<std::string, StreamFloor> floors;
        // The interrupted stream's bookmark at its middle record; the streams before it (already
        // synced) at theirs too, as if new data had come since they completed, so that the order
        // in which the tap syncs them shows in their records.
        auto set_middle = [&](const CatalogStream& stream) {
            auto seen = full.streams.find(stream.stream);
            if (!stream.incremental() || seen == full.streams.end() || seen->second.keys.empty()) {
                return;
            }
            auto mid = median_value(seen->second.keys);
            floors[stream.stream] = StreamFloor{mid, {}};
            set_bookmark(bookmarks, stream, mid, alloc);
            result.notes.push_back(
                fmt::format("bookmark of '{}' set to {}", stream.stream, mid.describe()));
        };
        set_middle(*interrupted);
        for (std::size_t i = 0; i < middle; ++i) {
            set_middle(*catalog->find(candidates[i]));
        }
        state.RemoveMember("currently_syncing");
        state.AddMember("currently_syncing",
                        rapidjson::Value(interrupted->tap_stream_id.c_str(), alloc), alloc);
        result.notes.push_back(fmt::format("currently_syncing '{}'", interrupted->tap_stream_id));
        result.runs.push_back(sync("sync from a mid-list currently_syncing state", full_catalog(),
                                   judges, json::to_json(state), std::nullopt, floors,
                                   full.activated_before(full.states.size() - 1)));
    }

    void run_later_start(const StepResult& base, StepResult& result,
                         const std::vector<const MessageJudge*>& judges) {
        auto later = config.later_start_date;
        if (!later) {
            for (const auto& id : streams) {
                const auto* stream = catalog->find(id);
                auto seen = base.runs.front().streams.find(stream->stream);
                if (stream->incremental() && seen != base.runs.front().streams.end()) {
                    later = median_text(seen->second.keys);
                    if (later) {
                        break;
                    }
                }
            }
        }
        if (!later) {
            result.why_not =
                "no later start date: the test config names none (start_date.later) "
                "and the full sync emitted no text replication key to take one from";
            return;
        }
        auto document = parse(config.config_text);
        auto& value = document[config.start_date_key.c_str()];
        value.SetString(later->c_str(), document.GetAllocator());
        result.start_date = *later;
        result.notes.push_back(fmt::format("{} = {}", config.start_date_key, *later));
        std::map<std::string, StreamFloor> floors;
        for (const auto& [stream, key] : replication_keys) {
            floors[stream] = StreamFloor{protocol::CursorValue{std::nullopt, *later}, {}};
        }
        result.runs.push_back(sync(fmt::format("sync with {} {}", config.start_date_key, *later),
                                   full_catalog(), judges, std::nullopt, json::to_json(document),
                                   floors));
    }

    StepResult execute(const Step& step, const std::vector<StepResult>& earlier,
                       const std::vector<const MessageJudge*>& judges) {
        StepResult result;
        result.step = &step;
        const StepResult* base =
            step.base && *step.base < earlier.size() ? &earlier[*step.base] : nullptr;
        if (base != nullptr && !base->ran()) {
            result.why_not = fmt::format("step '{}' did not run", base->step->id);
            return result;
        }
        if (base != nullptr && !base->runs.front().exited_with(0)) {
            result.why_not =
                fmt::format("step '{}' gave {}", base->step->id, base->runs.front().outcome());
            return result;
        }
        switch (step.kind) {
            case Role::about:
                if (about) {
                    result.runs.push_back(*about);
                }
                break;
            case Role::discover:
                result.runs.push_back(*discovery);
                break;
            case Role::full_sync:
            case Role::sync:
                result.runs.push_back(sync("sync", full_catalog(), judges));
                break;
            case Role::properties_sync:
                result.runs.push_back(sync("sync with --properties", full_catalog(), judges,
                                           std::nullopt, std::nullopt, {}, {}, "--properties"));
                break;
            case Role::partial_selection:
                run_partial(result, judges);
                break;
            case Role::minimal_selection:
                run_minimal(result, judges);
                break;
            case Role::from_final_state: {
                const auto& first = base->runs.front();
                if (first.states.empty()) {
                    result.why_not = "the first sync emitted no STATE";
                    break;
                }
                result.runs.push_back(sync("sync from the final STATE", full_catalog(), judges,
                                           first.states.back().value, std::nullopt,
                                           floors_after(first),
                                           first.activated_before(first.states.size() - 1)));
                break;
            }
            case Role::resumed:
                run_resumed(*base, result, judges);
                break;
            case Role::future_state:
                run_future_state(*base, result, judges);
                break;
            case Role::crafted_state:
                run_crafted(*base, result, judges);
                break;
            case Role::later_start_date:
                run_later_start(*base, result, judges);
                break;
            case Role::batch_sync:
                result.runs.push_back(sync("sync with the batch config", full_catalog(), judges,
                                           std::nullopt, config.batch_config_text));
                break;
            case Role::invalid_config: {
                std::vector<std::pair<std::string, std::string>> files = {
                    {"--config", *config.invalid_config_text}};
                std::vector<std::string> args;
                if (catalog) {
                    files.emplace_back("--catalog", full_catalog());
                } else {
                    args.emplace_back("--discover");
                }
                result.runs.push_back(invoke("sync with the invalid config", args, files,
                                             config.sync_timeout, sync_setup({})));
                break;
            }
            case Role::run:
                break;
        }
        return result;
    }

    report::ScenarioResult run(std::size_t index, const std::vector<std::string>& selected,
                               bool strict) override {
        const auto& scenario = scenario_table[index];
        auto unmet = unmet_requirement(scenario);
        auto judges = unmet ? std::vector<const MessageJudge*>() : judges_of(scenario, selected);
        const Catalog* known = catalog ? &*catalog : nullptr;
        return engine::run_scenario<StepResult>(
            scenario, k_suite, selected, strict, unmet,
            [&](const Step& step, const std::vector<StepResult>& earlier) {
                return execute(step, earlier, judges);
            },
            [&](const std::string& id, const std::vector<StepResult>& steps,
                const engine::Matching& matching, const engine::Circumstances& circumstances) {
                return engine::judge(*find_check(checks, id),
                                     Inputs(steps, matching, config, known), circumstances);
            },
            [this](const TapRun& run) {
                tally_streams(run);
                return summarize(run);
            });
    }

    engine::PlannedScenario plan(std::size_t index) const override {
        const auto& scenario = scenario_table[index];
        engine::PlannedScenario planned;
        if (auto unmet = unmet_requirement(scenario)) {
            planned.unmet = *unmet;
            return planned;
        }
        for (const auto& step : scenario.steps) {
            planned.lines.push_back(fmt::format("step {:<22} {}", step.id, to_string(step.kind)));
            planned.runs += step.kind == Role::about || step.kind == Role::discover ? 0 : 1;
            planned.exact = planned.exact && step.kind != Role::resumed;
        }
        return planned;
    }

    void tally_streams(const TapRun& run) {
        for (const auto& [stream, seen] : run.streams) {
            auto& count = synced[stream];
            ++count.runs;
            count.records += seen.records;
        }
    }

    // Singer's replication methods are the modes: LOG_BASED or INCREMENTAL where conform asks
    // for them, FULL_TABLE otherwise.
    report::StreamsCoverage stream_coverage() const override {
        report::StreamsCoverage coverage;
        if (!catalog) {
            coverage.available_known = false;
            coverage.note = "no catalog: " + catalog_problem;
            return coverage;
        }
        for (const auto& stream : catalog->streams()) {
            bool configured =
                std::find(streams.begin(), streams.end(), stream.tap_stream_id) != streams.end();
            std::string mode(stream.replication_method());
            report::StreamCoverage entry{stream.tap_stream_id, true, configured, {}, {}, {}};
            if (configured) {
                entry.configured_modes.push_back(mode);
            }
            if (auto found = synced.find(stream.stream); found != synced.end()) {
                entry.modes.push_back(found->second);
                entry.modes.back().mode = mode;
            }
            coverage.streams.push_back(std::move(entry));
        }
        return coverage;
    }
};

}  // namespace

std::unique_ptr<engine::ScenarioSource> make_singer_source(const TestConfig& config,
                                                           const Checks& checks,
                                                           Executor executor) {
    return std::make_unique<SingerSource>(config, checks, std::move(executor));
}

report::RunReport run_singer_suite(const TestConfig& config, const Checks& checks,
                                   const engine::RunOptions& options, report::Reporter& reporter,
                                   Executor executor) {
    auto source = make_singer_source(config, checks, std::move(executor));
    return engine::run_builtin_suite(*source, options, reporter, config.origin, report::k_singer);
}

}  // namespace conform::singer
