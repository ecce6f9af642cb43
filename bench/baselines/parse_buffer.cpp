// The whole-buffer parsing floor: the file is read into memory at once, split into lines with
// memchr, and each line is parsed in place by RapidJSON into a DOM with a fresh pool allocator on
// one fixed buffer, so no line costs a heap allocation. RECORDs are counted; nothing is validated.
// This is the least work a RapidJSON-based transcript validator can do per line.
//
// usage: parse_buffer TRANSCRIPT [--hardened]
//        --hardened parses with conform's flags for untrusted lines (iterative, UTF-8 validated)
//        instead of RapidJSON's defaults (recursive, no UTF-8 validation)
//        prints `records=N invalid=M` (M: lines that do not parse)
// build: c++ -O2 -std=c++20 parse_buffer.cpp -o parse_buffer   (run.sh does this)
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "is_record.hpp"

namespace {

constexpr unsigned k_default_flags = rapidjson::kParseDefaultFlags;
constexpr unsigned k_hardened_flags =
    rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;
constexpr std::size_t k_pool_bytes = 64 * 1024;

struct Counts {
    long records = 0;
    long invalid = 0;
};

std::vector<char> read_whole(std::ifstream& file) {
    file.seekg(0, std::ios::end);
    std::vector<char> text;
    text.reserve(static_cast<std::size_t>(file.tellg()) + 1);  // room for a final newline
    text.resize(static_cast<std::size_t>(file.tellg()));
    file.seekg(0);
    file.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(file.gcount()));
    return text;
}

// Parses every line of `text` in place; each line is NUL-terminated where its newline was.
template <unsigned k_flags>
Counts parse_lines(std::vector<char>& text) {
    static std::array<char, k_pool_bytes> pool_buffer;
    Counts counts;
    text.push_back('\n');  // every line, the last one too, ends in a newline
    char* line = text.data();
    char* const end = text.data() + text.size();
    while (line < end) {
        auto* newline = static_cast<char*>(std::memchr(line, '\n', end - line));
        *newline = '\0';
        if (newline != line) {
            rapidjson::MemoryPoolAllocator<> allocator(pool_buffer.data(), pool_buffer.size());
            rapidjson::Document message(&allocator);
            message.ParseInsitu<k_flags>(line);
            if (message.HasParseError()) {
                ++counts.invalid;
            } else if (is_record(message)) {
                ++counts.records;
            }
        }
        line = newline + 1;
    }
    return counts;
}

}  // namespace

int main(int argc, char** argv) {
    bool hardened = argc == 3 && std::string_view(argv[2]) == "--hardened";
    if (argc != 2 && !hardened) {
        std::cerr << "usage: parse_buffer TRANSCRIPT [--hardened]\n";
        return 2;
    }
    std::ifstream file(argv[1], std::ios::binary);
    if (!file) {
        std::cerr << "cannot open " << argv[1] << "\n";
        return 2;
    }
    std::vector<char> text = read_whole(file);
    Counts counts =
        hardened ? parse_lines<k_hardened_flags>(text) : parse_lines<k_default_flags>(text);
    std::printf("records=%ld invalid=%ld\n", counts.records, counts.invalid);
    return 0;
}
