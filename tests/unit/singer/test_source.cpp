// SingerSource through the executor seam: a fake tap written in C++ answers --about, --discover
// and syncs (reading the catalog, state and config files conform wrote) without spawning anything,
// and the real SingerSource, engine and sg.* checks judge it, correct and with one fault at a time.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "json/write.hpp"
#include "report/model.hpp"
#include "singer/source.hpp"

using namespace conform;

namespace {

struct TapModel {
    bool resume_loses = false;               // the first record after a bookmark is skipped
    bool record_before_schema = false;       // a users RECORD before users' SCHEMA
    bool currently_syncing_ignored = false;  // streams always in catalog order
    bool start_date_ignored = false;         // start_date is not read
    bool leaks_secret = false;               // the config is logged on stderr
    bool key_missing = false;                // order 2 without its key
    // users and orders synced together, their records alternating (a parent and its child, as
    // the Meltano SDK syncs them), and currently_syncing never named
    bool children_interleaved = false;
    bool incremental_empty = false;   // users and orders emit no record (their STATEs still come)
    bool version_undetected = false;  // --about says the Meltano SDK's placeholder
    // plans' RECORDs carry version 7, activated by the sync that starts without a plans bookmark
    // only; the state keeps {"plans": {"version": 7}} after it (PipelineWise's log phase)
    bool versioned_plans = false;
};

constexpr const char* k_secret = "fake-tap-secret-5521";

struct FakeStream {
    std::string name;
    std::string replication_key;  // empty: FULL_TABLE
    int rows = 0;
};

const std::vector<FakeStream> k_streams = {
    {"users", "updated_at", 6}, {"orders", "updated_at", 6}, {"plans", "", 2}};

std::string updated_at(const FakeStream& stream, int row) {
    return fmt::format("2021-{:02d}-{:02d}T00:00:00Z", stream.name == "users" ? 1 : 2, row);
}

std::string schema_of(const FakeStream& stream) {
    return stream.replication_key.empty()
               ? R"({"type":"object","properties":{"id":{"type":"integer"},)"
                 R"("plan":{"type":["string","null"]}}})"
               : R"({"type":"object","properties":{"id":{"type":"integer"},)"
                 R"("name":{"type":["string","null"]},)"
                 R"("updated_at":{"type":"string","format":"date-time"}}})";
}

std::string catalog_json() {
    std::vector<std::string> entries;
    for (const auto& stream : k_streams) {
        std::string top = stream.replication_key.empty()
                              ? R"("forced-replication-method":"FULL_TABLE")"
                              : R"("valid-replication-keys":["updated_at"])";
        std::string fields =
            stream.replication_key.empty()
                ? R"({"breadcrumb":["properties","plan"],"metadata":{"inclusion":"available"}})"
                : R"({"breadcrumb":["properties","name"],"metadata":{"inclusion":"available"}},)"
                  R"({"breadcrumb":["properties","updated_at"],)"
                  R"("metadata":{"inclusion":"automatic"}})";
        entries.push_back(fmt::format(
            R"({{"tap_stream_id":"{0}","stream":"{0}","schema":{1},"key_properties":["id"],)"
            R"("metadata":[{{"breadcrumb":[],"metadata":{{"table-key-properties":["id"],{2}}}}},)"
            R"({{"breadcrumb":["properties","id"],"metadata":{{"inclusion":"automatic"}}}},{3}]}})",
            stream.name, schema_of(stream), top, fields));
    }
    return fmt::format(R"({{"streams":[{}]}})", fmt::join(entries, ","));
}

rapidjson::Document read_json(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    rapidjson::Document document;
    document.Parse(text.str().c_str());
    return document;
}

// What a sync selected: per stream in catalog order, the fields to leave out.
struct Chosen {
    std::string name;
    std::set<std::string> dropped;
};

std::vector<Chosen> chosen_of(const rapidjson::Document& catalog) {
    std::vector<Chosen> chosen;
    if (!catalog.IsObject() || !catalog.HasMember("streams")) {
        return chosen;
    }
    for (const auto& entry : catalog["streams"].GetArray()) {
        Chosen stream{entry["tap_stream_id"].GetString(), {}};
        bool selected = false;
        for (const auto& item : entry["metadata"].GetArray()) {
            const auto& crumb = item["breadcrumb"];
            const auto& meta = item["metadata"];
            bool off = meta.HasMember("selected") && !meta["selected"].GetBool();
            bool automatic = meta.HasMember("inclusion") &&
                             std::string_view(meta["inclusion"].GetString()) == "automatic";
            if (crumb.Empty()) {
                selected = meta.HasMember("selected") && meta["selected"].GetBool();
            } else if (off && !automatic) {
                stream.dropped.insert(crumb[1].GetString());
            }
        }
        if (selected) {
            chosen.push_back(stream);
        }
    }
    return chosen;
}

struct Output {
    std::vector<std::string> lines;
    std::string stderr_text;
    int exit = 0;
};

class FakeTap {
public:
    explicit FakeTap(const TapModel& model) : m(model) {}

    Output answer(const std::vector<std::string>& argv) const {
        std::map<std::string, std::string> files;
        bool discover = false;
        bool about = false;
        for (std::size_t i = 1; i < argv.size(); ++i) {
            if (argv[i] == "--discover") {
                discover = true;
            } else if (argv[i] == "--about") {
                about = true;
            } else if (i + 1 < argv.size() && argv[i].rfind("--", 0) == 0 &&
                       argv[i] != "--format=json") {
                files[argv[i]] = argv[i + 1];
                ++i;
            }
        }
        if (about) {
            return {{std::string(R"({"name":"tap-fake","version":")") +
                     (m.version_undetected ? "[could not be detected]" : "0.0.1") +
                     R"(","capabilities":["catalog",)"
                     R"("discover","state","about"],"settings":{"type":"object","properties":)"
                     R"({"api_key":{"type":"string","secret":true},"start_date":)"
                     R"({"type":"string"}}}})"},
                    "",
                    0};
        }
        auto config = read_json(files["--config"]);
        if (!config.IsObject() || !config.HasMember("api_key")) {
            return {{}, "ERROR config: api_key is required\n", 1};
        }
        Output out;
        if (m.leaks_secret) {
            out.stderr_text += fmt::format("DEBUG config api_key={}\n", k_secret);
        }
        if (discover) {
            out.lines.push_back(catalog_json());
            return out;
        }
        sync(out, read_json(files["--catalog"]),
             files.contains("--state") ? read_json(files["--state"]) : rapidjson::Document(),
             config.HasMember("start_date") ? config["start_date"].GetString() : "");
        return out;
    }

private:
    void sync(Output& out, const rapidjson::Document& catalog, const rapidjson::Document& state,
              const std::string& start_date) const {
        auto chosen = chosen_of(catalog);
        std::map<std::string, std::string> bookmarks;
        std::string current;
        if (state.IsObject() && state.HasMember("bookmarks") && state["bookmarks"].IsObject() &&
            state["bookmarks"].HasMember("plans")) {
            bookmarks["plans"] = k_plans_version;
        }
        if (state.IsObject() && state.HasMember("bookmarks")) {
            for (const auto& [name, entry] : state["bookmarks"].GetObject()) {
                if (entry.IsObject() && entry.HasMember("replication_key_value")) {
                    bookmarks[name.GetString()] = entry["replication_key_value"].GetString();
                }
            }
            if (state.HasMember("currently_syncing") && state["currently_syncing"].IsString()) {
                current = state["currently_syncing"].GetString();
            }
        }
        auto at = std::find_if(chosen.begin(), chosen.end(),
                               [&current](const Chosen& c) { return c.name == current; });
        if (at != chosen.end() && !m.currently_syncing_ignored) {
            std::rotate(chosen.begin(), at, chosen.end());
        }
        bool resuming = !bookmarks.empty();
        if (m.children_interleaved) {
            std::vector<Chosen> incremental;
            std::vector<Chosen> full_table;
            for (const auto& selected : chosen) {
                (selected.name == "plans" ? full_table : incremental).push_back(selected);
            }
            sync_interleaved(out, incremental, bookmarks, start_date);
            chosen = full_table;
        }
        for (const auto& selected : chosen) {
            const auto& stream =
                *std::find_if(k_streams.begin(), k_streams.end(),
                              [&selected](const FakeStream& s) { return s.name == selected.name; });
            sync_stream(out, stream, selected.dropped, bookmarks, start_date, resuming);
        }
    }

    static constexpr const char* k_plans_version = "7";

    std::string record(const FakeStream& stream, int row, const std::set<std::string>& dropped,
                       bool without_key = false) const {
        std::vector<std::string> members;
        if (!without_key) {
            members.push_back(fmt::format(R"("id":{})", row));
        }
        if (stream.replication_key.empty()) {
            if (!dropped.contains("plan")) {
                members.push_back(fmt::format(R"("plan":"plan {}")", row));
            }
        } else {
            if (!dropped.contains("name")) {
                members.push_back(fmt::format(R"("name":"{} {}")", stream.name, row));
            }
            members.push_back(fmt::format(R"("updated_at":"{}")", updated_at(stream, row)));
        }
        auto version = m.versioned_plans && stream.replication_key.empty()
                           ? fmt::format(R"(,"version":{})", k_plans_version)
                           : std::string();
        return fmt::format(R"({{"type":"RECORD","stream":"{}","record":{{{}}}{}}})", stream.name,
                           fmt::join(members, ","), version);
    }

    static std::string state_line(const std::map<std::string, std::string>& bookmarks,
                                  const std::string& current) {
        std::vector<std::string> entries;
        for (const auto& [name, value] : bookmarks) {
            entries.push_back(
                name == "plans"
                    ? fmt::format(R"("plans":{{"version":{}}})", value)
                    : fmt::format(
                          R"("{}":{{"replication_key":"updated_at","replication_key_value":"{}"}})",
                          name, value));
        }
        return fmt::format(
            R"({{"type":"STATE","value":{{"bookmarks":{{{}}},"currently_syncing":{}}}}})",
            fmt::join(entries, ","), current.empty() ? "null" : '"' + current + '"');
    }

    bool wanted(const FakeStream& stream, int row,
                const std::map<std::string, std::string>& bookmarks,
                const std::string& start_date) const {
        if (stream.replication_key.empty()) {
            return true;
        }
        auto key = updated_at(stream, row);
        auto bookmark = bookmarks.find(stream.name);
        if (bookmark != bookmarks.end()) {
            return key > bookmark->second;
        }
        return m.start_date_ignored || key >= start_date;
    }

    // The streams' SCHEMAs, then row by row each stream's record, a STATE after each second row;
    // currently_syncing stays null.
    void sync_interleaved(Output& out, const std::vector<Chosen>& chosen,
                          std::map<std::string, std::string>& bookmarks,
                          const std::string& start_date) const {
        std::vector<std::pair<const FakeStream*, const Chosen*>> streams;
        for (const auto& selected : chosen) {
            const auto& stream =
                *std::find_if(k_streams.begin(), k_streams.end(),
                              [&selected](const FakeStream& s) { return s.name == selected.name; });
            streams.emplace_back(&stream, &selected);
            out.lines.push_back(fmt::format(
                R"({{"type":"SCHEMA","stream":"{}","schema":{},"key_properties":["id"]}})",
                stream.name, schema_of(stream)));
        }
        for (int row = 1; row <= 6; ++row) {
            for (const auto& [stream, selected] : streams) {
                if (row <= stream->rows && wanted(*stream, row, bookmarks, start_date)) {
                    out.lines.push_back(record(*stream, row, selected->dropped));
                    if (!stream->replication_key.empty()) {
                        bookmarks[stream->name] = updated_at(*stream, row);
                    }
                }
            }
            if (row % 2 == 0) {
                out.lines.push_back(state_line(bookmarks, ""));
            }
        }
        out.lines.push_back(state_line(bookmarks, ""));
    }

    void sync_stream(Output& out, const FakeStream& stream, const std::set<std::string>& dropped,
                     std::map<std::string, std::string>& bookmarks, const std::string& start_date,
                     bool resuming) const {
        bool incremental = !stream.replication_key.empty();
        std::vector<int> rows;
        for (int row = 1; row <= stream.rows && !(m.incremental_empty && incremental); ++row) {
            if (wanted(stream, row, bookmarks, start_date)) {
                rows.push_back(row);
            }
        }
        if (m.resume_loses && resuming && incremental && bookmarks.contains(stream.name) &&
            !rows.empty()) {
            rows.erase(rows.begin());
        }
        bool early = m.record_before_schema && stream.name == "users" && !rows.empty();
        if (early) {
            out.lines.push_back(record(stream, rows.front(), dropped));
        }
        out.lines.push_back(
            fmt::format(R"({{"type":"SCHEMA","stream":"{}","schema":{},"key_properties":["id"]}})",
                        stream.name, schema_of(stream)));
        if (m.versioned_plans && !incremental && !bookmarks.contains("plans")) {
            out.lines.push_back(fmt::format(
                R"({{"type":"ACTIVATE_VERSION","stream":"plans","version":{}}})", k_plans_version));
            bookmarks["plans"] = k_plans_version;
        }
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (!early || i > 0) {
                out.lines.push_back(
                    record(stream, rows[i], dropped,
                           m.key_missing && stream.name == "orders" && rows[i] == 2));
            }
            if (incremental) {
                bookmarks[stream.name] = updated_at(stream, rows[i]);
                if (i % 2 == 1) {
                    out.lines.push_back(state_line(bookmarks, stream.name));
                }
            }
        }
        out.stderr_text +=
            fmt::format(R"(INFO METRIC: {{"type":"counter","metric":"record_count","value":{},)"
                        R"("tags":{{"stream":"{}"}}}})"
                        "\n",
                        rows.size(), stream.name);
        out.lines.push_back(state_line(bookmarks, ""));
    }

    const TapModel& m;
};

singer::TestConfig fake_config() {
    singer::TestConfig config;
    config.origin = "<fake tap>";
    config.command = {"tap-fake"};
    config.config_text =
        fmt::format(R"({{"api_key":"{}","start_date":"2021-01-01T00:00:00Z"}})", k_secret);
    config.invalid_config_text = R"({"start_date":"2021-01-01T00:00:00Z"})";
    config.secret_pointers = {"/api_key"};
    config.later_start_date = "2021-01-04T00:00:00Z";
    return config;
}

report::RunReport run_tap(const TapModel& model, const singer::TestConfig& config = fake_config()) {
    engine::RunOptions options;
    report::Reporter silent;
    return singer::run_singer_suite(
        config, checks::singer_checks(), options, silent,
        [model](const process::LaunchSpec& spec, process::Observer& observer) {
            auto answer = FakeTap(model).answer(spec.argv);
            process::RunResult result;
            std::uint64_t number = 0;
            for (const auto& line : answer.lines) {
                observer.on_stdout_line(line, ++number, false);
            }
            observer.on_stderr(answer.stderr_text);
            result.stdout_lines = number;
            result.stderr_text = answer.stderr_text;
            result.exit.code = answer.exit;
            return result;
        });
}

// Every status `check` got, over the scenarios that list it.
std::set<std::string> statuses(const report::RunReport& report, const std::string& check) {
    std::set<std::string> found;
    for (const auto& scenario : report.scenarios) {
        for (const auto& result : scenario.checks) {
            if (result.id == check) {
                found.emplace(report::status_name(result.status));
            }
        }
    }
    return found;
}

// The checks that failed or warned anywhere, comma separated.
std::string not_passing(const report::RunReport& report) {
    std::set<std::string> found;
    for (const auto& scenario : report.scenarios) {
        for (const auto& result : scenario.checks) {
            if (result.status == report::Status::failed ||
                result.status == report::Status::warned) {
                found.insert(result.id);
            }
        }
    }
    return fmt::format("{}", fmt::join(found, ","));
}

std::string describe(const report::RunReport& report) {
    std::string text;
    for (const auto& scenario : report.scenarios) {
        for (const auto& result : scenario.checks) {
            text += fmt::format(
                "{} {} {}: {}\n", scenario.id, result.id, report::status_name(result.status),
                result.examples.empty() ? result.note : result.examples.front().message);
        }
    }
    return text;
}

}  // namespace

TEST_CASE("singer source: a correct fake tap passes every check its test config lets run") {
    auto report = run_tap(TapModel{});
    INFO(describe(report));
    CHECK(report.protocol == report::k_singer);
    CHECK(not_passing(report) == "");
    // Skipped for the test config alone: no batch_config, no "properties": true, no
    // "activate_version": true (and the tap emits no ACTIVATE_VERSION).
    const std::set<std::string> unjudged = {"sg.batch_files", "sg.properties_flag",
                                            "sg.activate_version"};
    for (const auto& check : checks::singer_checks()) {
        std::string id(check.info.id);
        INFO(id);
        auto got = fmt::format("{} {}", id, fmt::join(statuses(report, id), ","));
        if (unjudged.contains(id)) {
            CHECK(got == id + " skipped");
        } else {
            CHECK(got.find("passed") != std::string::npos);
        }
    }
    // The selection's note names what was left out (tap-gitlab's report did not).
    CHECK(describe(report).find("sg.selection_honoured passed: every selected stream") !=
          std::string::npos);
    bool named = false;
    for (const auto& scenario : report.scenarios) {
        for (const auto& result : scenario.checks) {
            named = named || (result.id == "sg.selection_honoured" &&
                              result.note.find("left out stream '") != std::string::npos);
        }
    }
    CHECK(named);
}

TEST_CASE(
    "singer source: streams whose records interleave are not interrupted by currently_syncing") {
    TapModel model;
    model.children_interleaved = true;
    auto report = run_tap(model);
    INFO(describe(report));
    CHECK(not_passing(report) == "");
    CHECK(statuses(report, "sg.resume_currently_syncing") == std::set<std::string>{"skipped"});
    CHECK(describe(report).find("never name currently_syncing, and the records of orders, users "
                                "interleave") != std::string::npos);
    CHECK(statuses(report, "sg.resume_no_loss") == std::set<std::string>{"passed"});
}

TEST_CASE("singer source: with no incremental record, incremental_no_older says so when it skips") {
    TapModel model;
    model.incremental_empty = true;
    auto report = run_tap(model);
    INFO(describe(report));
    CHECK(statuses(report, "sg.incremental_no_older") == std::set<std::string>{"skipped"});
    CHECK(describe(report).find("sg.incremental_no_older skipped: no incremental stream under "
                                "test emitted a record in the first sync") != std::string::npos);
}

TEST_CASE("singer source: beyond resume.max_states, one STATE per point of the sync") {
    auto config = fake_config();
    config.max_resumed_states = 3;
    auto report = run_tap(TapModel{}, config);
    INFO(describe(report));
    CHECK(statuses(report, "sg.resume_no_loss") == std::set<std::string>{"passed"});
    // Each stream's last mid-stream STATE and its final one (currently_syncing cleared) come
    // with no record between them: one candidate.
    CHECK(describe(report).find("resumed from 3 of 8 distinct STATEs (6 points of the sync, one "
                                "STATE each)") != std::string::npos);
}

TEST_CASE("singer source: each fault of the fake tap is caught by exactly its check") {
    struct Case {
        std::string name;
        TapModel model;
        std::string caught;
    };
    auto with = [](bool TapModel::*fault) {
        TapModel model;
        model.*fault = true;
        return model;
    };
    const std::vector<Case> cases = {
        {"resume loses", with(&TapModel::resume_loses), {"sg.resume_no_loss"}},
        {"record before schema",
         with(&TapModel::record_before_schema),
         {"sg.schema_before_record"}},
        {"currently_syncing ignored",
         with(&TapModel::currently_syncing_ignored),
         {"sg.resume_currently_syncing"}},
        {"start date ignored", with(&TapModel::start_date_ignored), {"sg.start_date_honoured"}},
        {"secret leaked", with(&TapModel::leaks_secret), {"sg.secrets_not_leaked"}},
        {"key missing", with(&TapModel::key_missing), {"sg.key_properties_present"}},
    };
    for (const auto& fault : cases) {
        auto report = run_tap(fault.model);
        INFO(describe(report));
        CAPTURE(fault.name);
        CHECK(not_passing(report) == fault.caught);
    }
}

TEST_CASE("singer source: a version activated before the STATE a sync is given stays activated") {
    // The sync from the final STATE, the resumes after plans began and the crafted state send
    // plans' rows of version 7 without activating it again: the target already holds it. Before
    // 2026-12-08 sg.activate_version warned on each (PipelineWise's log phase).
    TapModel model;
    model.versioned_plans = true;
    auto report = run_tap(model);
    INFO(describe(report));
    CHECK(not_passing(report) == "");
    CHECK(statuses(report, "sg.activate_version").contains("passed"));
}

TEST_CASE("singer source: the Meltano SDK's version placeholder is no version") {
    CHECK(run_tap(TapModel{}).connector_version == "0.0.1");
    TapModel undetected;
    undetected.version_undetected = true;
    CHECK(run_tap(undetected).connector_version.empty());
}
