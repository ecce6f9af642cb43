#include "destination/landing.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>

#include "json/bounded_parse.hpp"
#include "json/parse.hpp"
#include "protocol/line_json.hpp"
#include "util/text.hpp"

namespace conform::destination {

namespace {

constexpr std::size_t k_other_stream_names = 5;

bool is_record(const InputMessage& message, std::size_t stream) {
    return message.kind == InputMessage::Kind::record && message.stream == stream &&
           !message.unconfigured && !message.breaks_schema;
}

// The first write of each sync holds its whole input (a resumed write sends part of it again).
const Sent* full_input_of(const std::vector<Sent>& history, int sync) {
    for (const auto& sent : history) {
        if (sent.sync == sync) {
            return &sent;
        }
    }
    return nullptr;
}

void add_sends(const std::vector<Sent>& history, std::size_t stream, const std::vector<int>& syncs,
               ByContent& expected) {
    for (int sync : syncs) {
        if (const auto* full = full_input_of(history, sync)) {
            for (const auto& message : full->input->messages) {
                if (is_record(message, stream)) {
                    auto& bounds = expected[message.content];
                    ++bounds.required;
                    bounds.example = &message;
                    bounds.sync = sync;
                }
            }
        }
        for (const auto& sent : history) {
            if (sent.sync != sync) {
                continue;
            }
            for (const auto& message : sent.input->messages) {
                if (is_record(message, stream)) {
                    ++expected[message.content].allowed;
                }
            }
        }
    }
}

}  // namespace

struct LandedReader::Impl {
    const Catalog& catalog;
    Identity identity;
    Landed landed;

    explicit Impl(const Catalog& of) : catalog(of), identity(of) {}

    void problem(std::uint64_t number, std::string_view line, std::string_view why) {
        if (landed.problem.empty()) {
            landed.problem =
                fmt::format("line {} of verify's output {}: {}", number, why, excerpt(line, 120));
        }
    }

    void read(std::string_view line, std::uint64_t number) {
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
            return;
        }
        rapidjson::Document document;
        auto parse = json::parse_bounded<protocol::k_line_parse_flags>(document, line);
        if (parse.too_deep) {
            problem(number, line, json::reason_of(parse));
            return;
        }
        if (parse.failed() || !document.IsObject()) {
            problem(number, line, "is not a JSON object");
            return;
        }
        const rapidjson::Value* row = &document;
        if (document.HasMember("type") && document.HasMember("record") &&
            document["record"].IsObject()) {
            row = &document["record"];
        }
        if (!row->HasMember("stream") || !(*row)["stream"].IsString() || !row->HasMember("data") ||
            !(*row)["data"].IsObject()) {
            problem(number, line, "has no \"stream\" string and \"data\" object");
            return;
        }
        std::optional<std::string_view> name_space;
        if (row->HasMember("namespace") && (*row)["namespace"].IsString()) {
            name_space = (*row)["namespace"].GetString();
        }
        std::string name = (*row)["stream"].GetString();
        if (auto namespaces = catalog.namespaces_of(name); !name_space && !namespaces.empty()) {
            // Counted as the first such stream's, a row of another would be misread as a loss
            // here and a duplicate there (destination-kvdb keeps no namespace).
            problem(number, line,
                    fmt::format("names stream '{}' without a namespace, and the catalog has it in "
                                "{} namespaces ({}): which one it landed in cannot be told",
                                name, namespaces.size(), fmt::join(namespaces, ", ")));
            return;
        }
        auto stream = catalog.find(name, name_space);
        if (!stream) {
            ++landed.other_rows;
            if (landed.other_streams.size() < k_other_stream_names &&
                std::find(landed.other_streams.begin(), landed.other_streams.end(), name) ==
                    landed.other_streams.end()) {
                landed.other_streams.push_back(name);
            }
            return;
        }
        const auto& data = (*row)["data"];
        landed.rows.push_back({*stream, identity.content(*stream, data),
                               identity.key(*stream, data), identity.key_text(*stream, data),
                               number, excerpt(line, 160)});
    }
};

LandedReader::LandedReader(const Catalog& catalog) : m_impl(std::make_unique<Impl>(catalog)) {}
LandedReader::~LandedReader() = default;

process::Decision LandedReader::on_stdout_line(std::string_view line, std::uint64_t line_number,
                                               bool truncated) {
    if (truncated) {
        m_impl->problem(line_number, line, "is too long");
    } else {
        m_impl->read(line, line_number);
    }
    return process::Decision::keep_going;
}

Landed LandedReader::take() {
    return std::move(m_impl->landed);
}

std::vector<int> completed_syncs(const std::vector<Sent>& history) {
    std::vector<int> syncs;
    for (const auto& sent : history) {
        if (sent.completed && std::find(syncs.begin(), syncs.end(), sent.sync) == syncs.end()) {
            syncs.push_back(sent.sync);
        }
    }
    return syncs;
}

ByContent appended(const std::vector<Sent>& history, std::size_t stream) {
    ByContent expected;
    add_sends(history, stream, completed_syncs(history), expected);
    return expected;
}

ByContent overwritten(const std::vector<Sent>& history, std::size_t stream) {
    ByContent expected;
    auto syncs = completed_syncs(history);
    if (!syncs.empty()) {
        add_sends(history, stream, {syncs.back()}, expected);
    }
    return expected;
}

std::unordered_map<json::Digest, Latest> latest_by_key(const std::vector<Sent>& history,
                                                       std::size_t stream) {
    std::unordered_map<json::Digest, Latest> latest;
    for (int sync : completed_syncs(history)) {
        const auto* full = full_input_of(history, sync);
        if (full == nullptr) {
            continue;
        }
        for (const auto& message : full->input->messages) {
            if (!is_record(message, stream) || !message.key) {
                continue;
            }
            auto& kept = latest[*message.key];
            bool newer = kept.record == nullptr || !message.cursor || !kept.record->cursor ||
                         message.cursor->compare(*kept.record->cursor).value_or(0) >= 0;
            if (newer) {
                kept = {&message, sync};
            }
        }
    }
    return latest;
}

std::unordered_map<json::Digest, std::uint64_t> count_by_content(const Landed& landed,
                                                                 std::size_t stream) {
    std::unordered_map<json::Digest, std::uint64_t> counts;
    for (const auto& row : landed.rows) {
        if (row.stream == stream) {
            ++counts[row.content];
        }
    }
    return counts;
}

std::unordered_map<json::Digest, std::vector<const Row*>> rows_by_key(const Landed& landed,
                                                                      std::size_t stream) {
    std::unordered_map<json::Digest, std::vector<const Row*>> rows;
    for (const auto& row : landed.rows) {
        if (row.stream == stream && row.key) {
            rows[*row.key].push_back(&row);
        }
    }
    return rows;
}

std::string describe(const Catalog& catalog, const InputMessage& record, int sync) {
    const auto& name = catalog.streams()[record.stream.value_or(0)].airbyte.display_name();
    return fmt::format("{} record{} (sync {}, input line {})", name,
                       record.key_text.empty() ? "" : " " + record.key_text, sync, record.number);
}

std::string describe(const Catalog& catalog, const Row& row) {
    return fmt::format("{} row{} (verify line {})",
                       catalog.streams()[row.stream].airbyte.display_name(),
                       row.key_text.empty() ? "" : " " + row.key_text, row.line);
}

}  // namespace conform::destination
