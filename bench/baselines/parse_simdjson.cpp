// The simdjson parsing floors, reference points beside RapidJSON's (bench/README.md): the file is
// read into one padded buffer and its lines are parsed by simdjson (Debian's libsimdjson-dev).
// RECORDs are counted; nothing is validated.
//
// usage: parse_simdjson TRANSCRIPT [--dom-lines | --rapidjson-dom]
//        (default)        ondemand iterate_many over the whole buffer: every document is indexed
//                         and its UTF-8 checked, but only its "type" field is read
//        --dom-lines      dom parse of each line on its own, as a validator that receives lines
//                         one at a time from a pipe would call it
//        --rapidjson-dom  the same, then the tape replayed into a RapidJSON DOM (a fresh pool per
//                         line, strings copied out of simdjson's buffer): what simdjson in front
//                         of a validator written against RapidJSON's values would cost
//        prints `records=N invalid=M` (M: documents or lines that do not parse)
// build: c++ -O2 -std=c++20 parse_simdjson.cpp -lsimdjson -o parse_simdjson   (run.sh does this)
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>
#include <simdjson.h>

#include "is_record.hpp"

namespace {

constexpr std::size_t k_batch_bytes = 1024 * 1024;  // the largest line iterate_many accepts

struct Counts {
    long records = 0;
    long invalid = 0;
};

Counts count_ondemand(const simdjson::padded_string& text) {
    Counts counts;
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document_stream documents;
    if (parser.iterate_many(text, k_batch_bytes).get(documents) != simdjson::SUCCESS) {
        counts.invalid = 1;
        return counts;
    }
    for (auto document : documents) {
        std::string_view type;
        if (document.get_object()["type"].get_string().get(type) != simdjson::SUCCESS) {
            ++counts.invalid;
        } else if (type == "RECORD") {
            ++counts.records;
        }
    }
    return counts;
}

// Parses each line of `text` on its own with `parser`, where it lies: the bytes after it (the next
// lines, then the buffer's padding) are the padding simdjson reads past a document's end. Calls
// visit(root, size) for each line that parses, which says whether it is a RECORD; counts the
// others as invalid.
template <typename Visit>
Counts parse_each_line(const simdjson::padded_string& text, simdjson::dom::parser& parser,
                       Visit visit) {
    Counts counts;
    const char* line = text.data();
    const char* const end = text.data() + text.size();
    while (line < end) {
        const auto* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
        if (newline == nullptr) {
            newline = end;
        }
        if (newline != line) {
            simdjson::dom::element root;
            auto size = static_cast<std::size_t>(newline - line);
            if (parser.parse(line, size, false).get(root) != simdjson::SUCCESS) {
                ++counts.invalid;
            } else if (visit(root, size)) {
                ++counts.records;
            }
        }
        line = newline + 1;
    }
    return counts;
}

Counts count_dom_lines(const simdjson::padded_string& text) {
    simdjson::dom::parser parser;
    return parse_each_line(text, parser, [](simdjson::dom::element message, std::size_t) {
        std::string_view type;
        return message["type"].get_string().get(type) == simdjson::SUCCESS && type == "RECORD";
    });
}

// Replays the tape of `document` (simdjson's documented tape format: one word per value, its type
// in the top byte) as SAX events into a RapidJSON Document, its strings copied to `strings_out`.
class TapeReplay {
public:
    TapeReplay(const simdjson::dom::document& document, char* strings_out)
        : m_tape(document.tape.get()), m_strings(document.string_buf.get()), m_out(strings_out) {}

    bool operator()(rapidjson::Document& handler) {
        constexpr std::uint64_t k_payload = 0x00FFFFFFFFFFFFFFULL;
        for (std::size_t i = 1;; ++i) {  // from the word after the root's to the root's end
            std::uint64_t payload = m_tape[i] & k_payload;
            switch (static_cast<char>(m_tape[i] >> 56)) {
                case 'r':
                    return true;
                case '{':
                    handler.StartObject();
                    break;
                case '[':
                    handler.StartArray();
                    break;
                case '}':
                    handler.EndObject(count_at(payload));
                    break;
                case ']':
                    handler.EndArray(count_at(payload));
                    break;
                case '"':
                    string(payload, handler);
                    break;
                case 'l':
                    integer(static_cast<std::int64_t>(m_tape[++i]), handler);
                    break;
                case 'u':
                    handler.Uint64(m_tape[++i]);
                    break;
                case 'd':
                    handler.Double(std::bit_cast<double>(m_tape[++i]));
                    break;
                case 't':
                    handler.Bool(true);
                    break;
                case 'f':
                    handler.Bool(false);
                    break;
                case 'n':
                    handler.Null();
                    break;
                default:
                    return false;
            }
        }
    }

private:
    // The count a container's opening word holds (saturated at 2^24 - 1: enough for this data).
    rapidjson::SizeType count_at(std::uint64_t start) const {
        return static_cast<rapidjson::SizeType>((m_tape[start] >> 32) & 0xFFFFFF);
    }
    void string(std::uint64_t offset, rapidjson::Document& handler) {
        std::uint32_t size = 0;
        std::memcpy(&size, m_strings + offset, sizeof size);
        std::memcpy(m_out, m_strings + offset + sizeof size, size + 1);  // with its NUL
        handler.String(m_out, size, false);
        m_out += size + 1;
    }
    // As RapidJSON's reader calls them: the smallest of unsigned, int, 64 bits that holds it.
    static void integer(std::int64_t value, rapidjson::Document& handler) {
        if (value >= 0) {
            value <= 0xFFFFFFFFLL ? handler.Uint(static_cast<unsigned>(value))
                                  : handler.Uint64(static_cast<std::uint64_t>(value));
        } else {
            value >= INT32_MIN ? handler.Int(static_cast<int>(value)) : handler.Int64(value);
        }
    }

    const std::uint64_t* m_tape;
    const std::uint8_t* m_strings;
    char* m_out;
};

Counts count_rapidjson_dom(const simdjson::padded_string& text) {
    static std::array<char, 64 * 1024> pool_buffer;
    simdjson::dom::parser parser;
    std::vector<char> strings;
    return parse_each_line(text, parser, [&](simdjson::dom::element, std::size_t size) {
        strings.resize(std::max(strings.size(), size + 1));
        rapidjson::MemoryPoolAllocator<> allocator(pool_buffer.data(), pool_buffer.size());
        rapidjson::Document message(&allocator);
        TapeReplay replay(parser.doc, strings.data());
        message.Populate(replay);
        return is_record(message);
    });
}

}  // namespace

int main(int argc, char** argv) {
    std::string_view mode = argc == 3 ? std::string_view(argv[2]) : std::string_view();
    if (argc < 2 || argc > 3 || (argc == 3 && mode != "--dom-lines" && mode != "--rapidjson-dom")) {
        std::cerr << "usage: parse_simdjson TRANSCRIPT [--dom-lines | --rapidjson-dom]\n";
        return 2;
    }
    simdjson::padded_string text;
    if (simdjson::padded_string::load(argv[1]).get(text) != simdjson::SUCCESS) {
        std::cerr << "cannot read " << argv[1] << "\n";
        return 2;
    }
    Counts counts = mode == "--dom-lines"       ? count_dom_lines(text)
                    : mode == "--rapidjson-dom" ? count_rapidjson_dom(text)
                                                : count_ondemand(text);
    std::printf("records=%ld invalid=%ld\n", counts.records, counts.invalid);
    return 0;
}
