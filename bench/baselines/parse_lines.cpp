// The parsing floor of a C++ validator: RapidJSON (the library conform is built on) parses every
// line of a transcript into a DOM and counts the RECORDs; nothing is validated.
//
// usage: parse_lines TRANSCRIPT    prints `records=N invalid=M` (M: lines that do not parse)
// build: c++ -O2 -std=c++20 parse_lines.cpp -o parse_lines   (run.sh does this)
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include <rapidjson/document.h>

#include "is_record.hpp"

namespace {

constexpr unsigned k_parse_flags = rapidjson::kParseIterativeFlag;
constexpr std::size_t k_pool_bytes = 64 * 1024;

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: parse_lines TRANSCRIPT\n";
        return 2;
    }
    std::ifstream transcript(argv[1]);
    if (!transcript) {
        std::cerr << "cannot open " << argv[1] << "\n";
        return 2;
    }
    // One fixed buffer reused for every line, so memory stays flat however long the transcript.
    static std::array<char, k_pool_bytes> pool_buffer;
    std::string line;
    long records = 0;
    long invalid = 0;
    while (std::getline(transcript, line)) {
        rapidjson::MemoryPoolAllocator<> allocator(pool_buffer.data(), pool_buffer.size());
        rapidjson::Document message(&allocator);
        message.Parse<k_parse_flags>(line.data(), line.size());
        if (message.HasParseError()) {
            ++invalid;
        } else if (is_record(message)) {
            ++records;
        }
    }
    std::printf("records=%ld invalid=%ld\n", records, invalid);
    return 0;
}
