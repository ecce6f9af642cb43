#include "protocol/deferred_contents.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "protocol/line_json.hpp"
#include "protocol/observation.hpp"
#include "protocol/spill.hpp"

namespace conform::protocol {

namespace {

constexpr std::uint64_t k_placeholder_tag = 0x6465666572726564ULL;  // "deferred"

const rapidjson::Value* record_data_of(const rapidjson::Document& message) {
    if (!message.IsObject()) {
        return nullptr;
    }
    auto record = message.FindMember("record");
    if (record == message.MemberEnd() || !record->value.IsObject()) {
        return nullptr;
    }
    auto data = record->value.FindMember("data");
    return data == record->value.MemberEnd() ? nullptr : &data->value;
}

}  // namespace

DeferredContents::DeferredContents(std::vector<json::Digester> digesters, std::size_t max_line,
                                   std::optional<std::vector<json::Digest>> maybe_repeated)
    : m_digesters(std::move(digesters)),
      m_max_line(max_line),
      m_maybe_repeated(std::move(maybe_repeated)) {}

json::Digest DeferredContents::placeholder(std::uint64_t line) {
    return json::Digest{k_placeholder_tag, line};
}

bool DeferredContents::is_placeholder(const json::Digest& content) {
    return content.high == k_placeholder_tag;
}

void DeferredContents::resolve(const Observation& run, std::vector<Wanted>& wanted) {
    if (wanted.empty()) {
        return;
    }
    std::sort(wanted.begin(), wanted.end(),
              [](const Wanted& a, const Wanted& b) { return a.line < b.line; });
    std::size_t next = 0;
    std::string buffer;
    rapidjson::MemoryPoolAllocator<> allocator;
    auto visit = [&](std::uint64_t number, std::string_view line) {
        if (number < wanted[next].line) {
            return true;
        }
        buffer.assign(line);
        allocator.Clear();
        rapidjson::Document message(&allocator);
        auto parse = parse_untrusted_line(message, line, buffer.data());
        const auto* data = parse.failed() ? nullptr : record_data_of(message);
        for (; next < wanted.size() && wanted[next].line == number; ++next) {
            auto& record = wanted[next];
            record.content = data != nullptr && record.stream < m_digesters.size()
                                 ? m_digesters[record.stream].digest(*data)
                                 : placeholder(number);
        }
        return next < wanted.size();
    };
    if (run.transcript) {
        run.transcript->for_each_line(visit, m_max_line);
    } else if (!run.transcript_path.empty()) {
        for_each_line_of_file(run.transcript_path, visit, m_max_line);
    }
    for (; next < wanted.size(); ++next) {
        wanted[next].content = placeholder(wanted[next].line);
    }
}

bool DeferredContents::may_repeat(const json::Digest& identity) const {
    return !m_maybe_repeated ||
           std::binary_search(m_maybe_repeated->begin(), m_maybe_repeated->end(), identity);
}

bool SeenIdentities::add(const json::Digest& identity) {
    constexpr int k_index_bits = 23;  // 2^23 bits: 1 MiB
    if (m_words.empty()) {
        m_words.resize((std::size_t{1} << k_index_bits) / 64);
    }
    bool seen = true;
    for (auto hash : {identity.high, identity.low}) {
        auto bit = hash >> (64 - k_index_bits);
        auto& word = m_words[bit / 64];
        auto mask = std::uint64_t{1} << (bit % 64);
        seen = seen && (word & mask) != 0;
        word |= mask;
    }
    if (seen && !m_seen_overflowed) {
        remember_seen(identity);
    }
    return seen;
}

void SeenIdentities::remember_seen(const json::Digest& identity) {
    if (m_seen.size() == k_most_remembered) {
        sort_unique(m_seen);
        // Still more than half full with distinct identities: too many to remember.
        if (m_seen.size() > k_most_remembered / 2) {
            m_seen_overflowed = true;
            m_seen = {};
            return;
        }
    }
    m_seen.push_back(identity);
}

void SeenIdentities::sort_unique(std::vector<json::Digest>& identities) {
    std::sort(identities.begin(), identities.end());
    identities.erase(std::unique(identities.begin(), identities.end()), identities.end());
}

std::optional<std::vector<json::Digest>> SeenIdentities::maybe_repeated() const {
    if (m_seen_overflowed) {
        return std::nullopt;
    }
    auto identities = m_seen;
    sort_unique(identities);
    return identities;
}

}  // namespace conform::protocol
