#include "engine/known_failures.hpp"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "engine/verdict.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "schema/user_document.hpp"
#include "util/files.hpp"
#include "util/text.hpp"
#include "yaml/yaml.hpp"

namespace conform::engine {

namespace {

// How the finding of a stale entry starts: the written list leaves such failures out.
constexpr std::string_view k_stale_prefix = "stale known failure: ";

const schema::Schema& known_failures_schema() {
    static const auto schema =
        schema::Schema::compile_text(resources::find("known-failures.schema.json"));
    return schema;
}

std::string member_text(const rapidjson::Value& entry, const char* key) {
    auto member = entry.FindMember(key);
    return member == entry.MemberEnd()
               ? std::string()
               : std::string(member->value.GetString(), member->value.GetStringLength());
}

bool is_known(const std::string& name, const std::vector<std::string>& known) {
    return std::find(known.begin(), known.end(), name) != known.end();
}

// The problems of entry `index` whose check or scenario no id of `ids` has.
std::vector<schema::Problem> unknown_ids(const KnownFailure& entry, std::size_t index,
                                         const KnownIds& ids) {
    std::vector<schema::Problem> problems;
    auto at = fmt::format("/{}", index);
    if (!is_known(entry.check, ids.checks)) {
        problems.emplace_back(at + "/check",
                              fmt::format("the id of a check; no check is called '{}'{} "
                                          "(`conform list` shows them)",
                                          entry.check, did_you_mean(entry.check, ids.checks)));
    }
    if (!entry.scenario.empty() && !is_known(entry.scenario, ids.scenarios)) {
        problems.emplace_back(
            at + "/scenario",
            fmt::format("the id of a scenario; no scenario is called '{}'{}", entry.scenario,
                        did_you_mean(entry.scenario, ids.scenarios)));
    }
    return problems;
}

bool is_word_character(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
}

// True when `text` holds `word` as a whole word (not inside a longer name).
bool holds_word(std::string_view text, std::string_view word) {
    for (auto at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        auto end = at + word.size();
        bool starts = at == 0 || !is_word_character(text[at - 1]);
        bool ends = end == text.size() || !is_word_character(text[end]);
        if (starts && ends) {
            return true;
        }
    }
    return false;
}

bool text_names_stream(std::string_view text, std::string_view stream) {
    return text.find(fmt::format("'{}'", stream)) != std::string_view::npos ||
           text.find(fmt::format("\"{}\"", stream)) != std::string_view::npos ||
           holds_word(text, fmt::format("stream {}", stream));
}

// The entry's stream, when it names one, is what each example of the failure names.
bool stream_matches(const KnownFailure& entry, const report::CheckResult& check) {
    if (entry.stream.empty()) {
        return true;
    }
    return !check.examples.empty() && std::all_of(check.examples.begin(), check.examples.end(),
                                                  [&entry](const report::Example& example) {
                                                      return names_stream(example, entry.stream);
                                                  });
}

std::string where_listed(const KnownFailures& list, const KnownFailure& entry) {
    return fmt::format("{}:{}", list.origin, entry.line);
}

std::string stale_message(const KnownFailures& list, const KnownFailure& entry) {
    return fmt::format("{}{}{} passes now; remove its entry from {} (listed because: {})",
                       k_stale_prefix, entry.check,
                       entry.scenario.empty() ? "" : " in scenario " + entry.scenario,
                       where_listed(list, entry), entry.reason);
}

}  // namespace

KnownFailures parse_known_failures(std::string text, std::string origin, const KnownIds& ids) {
    schema::UserDocument file(std::move(text), origin, known_failures_schema(),
                              {"known-failures file", "docs/known-failures.md"});
    KnownFailures list;
    list.origin = std::move(origin);
    std::vector<schema::Problem> problems;
    const auto& entries = file.root().GetArray();
    for (rapidjson::SizeType i = 0; i < entries.Size(); ++i) {
        const auto& value = entries[i];
        KnownFailure entry{member_text(value, "check"), member_text(value, "scenario"),
                           member_text(value, "stream"), member_text(value, "reason"),
                           file.line_of(fmt::format("/{}", i))};
        auto unknown = unknown_ids(entry, i, ids);
        problems.insert(problems.end(), unknown.begin(), unknown.end());
        list.entries.push_back(std::move(entry));
    }
    if (!problems.empty()) {
        file.fail(problems);
    }
    return list;
}

KnownFailures load_known_failures(const std::filesystem::path& path, const KnownIds& ids) {
    auto text = read_text_file(path);
    if (yaml::is_yaml_path(path.string())) {
        text = yaml::to_json_text(text, path.string());
    }
    return parse_known_failures(std::move(text), path.string(), ids);
}

bool names_stream(const report::Example& example, std::string_view stream) {
    return text_names_stream(example.message, stream) || text_names_stream(example.excerpt, stream);
}

KnownFailureLedger::KnownFailureLedger(const KnownFailures& list)
    : m_list(list), m_seen(list.entries.size()) {}

bool KnownFailureLedger::applies(const KnownFailure& entry, const report::ScenarioResult& scenario,
                                 const report::CheckResult& check) const {
    return entry.check == check.id && (entry.scenario.empty() || entry.scenario == scenario.id);
}

bool KnownFailureLedger::expects(const report::ScenarioResult& scenario,
                                 const report::CheckResult& check) const {
    return std::any_of(m_list.entries.begin(), m_list.entries.end(),
                       [&](const KnownFailure& entry) {
                           return applies(entry, scenario, check) && stream_matches(entry, check);
                       });
}

void KnownFailureLedger::apply(report::ScenarioResult& result) {
    for (auto& check : result.checks) {
        for (std::size_t i = 0; i < m_list.entries.size(); ++i) {
            const auto& entry = m_list.entries[i];
            if (!applies(entry, result, check)) {
                continue;
            }
            if (check.status == report::Status::passed) {
                m_seen[i].passed.emplace_back(result.id, check.id);
            } else if (check.status == report::Status::failed) {
                m_seen[i].failed = true;  // the entry is still needed, whatever the stream
                if (stream_matches(entry, check)) {
                    check.status = report::Status::expected_failure;
                    check.known_failure_reason = entry.reason;
                }
            }
        }
    }
    result.status = scenario_status(result.checks);
}

void KnownFailureLedger::settle(report::RunReport& report) const {
    report.known_failures_file = m_list.origin;
    for (std::size_t i = 0; i < m_list.entries.size(); ++i) {
        const auto& seen = m_seen[i];
        if (seen.failed || seen.passed.empty()) {
            continue;  // still failing, or not judged in this run (selection, skips)
        }
        const auto& entry = m_list.entries[i];
        auto message = stale_message(m_list, entry);
        report.stale_known_failures.push_back(message);
        for (auto& scenario : report.scenarios) {
            for (auto& check : scenario.checks) {
                if (applies(entry, scenario, check) && check.status == report::Status::passed) {
                    check.status = report::Status::failed;
                    check.occurrences += 1;
                    check.examples.insert(check.examples.begin(), report::Example{message});
                }
            }
            scenario.status = scenario_status(scenario.checks);
        }
    }
}

namespace {

using Writer = rapidjson::PrettyWriter<rapidjson::StringBuffer>;

void write_member(Writer& writer, const char* key, const std::string& value) {
    writer.Key(key);
    writer.String(value.c_str(), static_cast<rapidjson::SizeType>(value.size()));
}

std::string reason_for(const report::CheckResult& check) {
    if (check.status == report::Status::expected_failure) {
        return check.known_failure_reason;
    }
    auto first = check.examples.empty() ? check.title : check.examples.front().message;
    return "fails today: " + excerpt(first, 160);
}

bool is_stale_failure(const report::CheckResult& check) {
    return !check.examples.empty() && check.examples.front().message.starts_with(k_stale_prefix);
}

}  // namespace

std::string known_failures_json(const report::RunReport& report) {
    rapidjson::StringBuffer buffer;
    Writer writer(buffer);
    writer.SetIndent(' ', 2);
    writer.StartArray();
    for (const auto& scenario : report.scenarios) {
        for (const auto& check : scenario.checks) {
            bool listed = check.status == report::Status::expected_failure;
            bool failing = check.status == report::Status::failed && !is_stale_failure(check);
            if (!listed && !failing) {
                continue;
            }
            writer.StartObject();
            write_member(writer, "check", check.id);
            write_member(writer, "scenario", scenario.id);
            write_member(writer, "reason", reason_for(check));
            writer.EndObject();
        }
    }
    writer.EndArray();
    return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace conform::engine
