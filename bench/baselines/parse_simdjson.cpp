// The simdjson parsing floors, reference points beside RapidJSON's (bench/README.md): the file is
// read into one padded buffer and its lines are parsed by simdjson (Debian's libsimdjson-dev).
// RECORDs are counted; nothing is validated.
//
// usage: parse_simdjson TRANSCRIPT [--dom | --dom-lines]
//        (default)    ondemand iterate_many over the whole buffer: every document is indexed and
//                     its UTF-8 checked, but only its "type" field is read
//        --dom        dom parse_many: every document is parsed whole into simdjson's tape
//        --dom-lines  dom parse of each line on its own, as a validator that receives lines
//                     one at a time from a pipe would call it
//        prints `records=N invalid=M` (M: documents or lines that do not parse)
// build: c++ -O2 -std=c++20 parse_simdjson.cpp -lsimdjson -o parse_simdjson   (run.sh does this)
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string_view>

#include <simdjson.h>

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

void count_element(simdjson::dom::element message, Counts& counts) {
    std::string_view type;
    if (message["type"].get_string().get(type) == simdjson::SUCCESS && type == "RECORD") {
        ++counts.records;
    }
}

Counts count_dom(const simdjson::padded_string& text) {
    Counts counts;
    simdjson::dom::parser parser;
    simdjson::dom::document_stream documents;
    if (parser.parse_many(text, k_batch_bytes).get(documents) != simdjson::SUCCESS) {
        counts.invalid = 1;
        return counts;
    }
    for (auto document : documents) {
        simdjson::dom::element message;
        if (document.get(message) != simdjson::SUCCESS) {
            ++counts.invalid;
        } else {
            count_element(message, counts);
        }
    }
    return counts;
}

// Each line is parsed where it lies: the bytes after it (the next lines, then the buffer's
// padding) are the padding simdjson reads past a document's end.
Counts count_dom_lines(const simdjson::padded_string& text) {
    Counts counts;
    simdjson::dom::parser parser;
    const char* line = text.data();
    const char* const end = text.data() + text.size();
    while (line < end) {
        const auto* newline = static_cast<const char*>(std::memchr(line, '\n', end - line));
        if (newline == nullptr) {
            newline = end;
        }
        if (newline != line) {
            simdjson::dom::element message;
            auto size = static_cast<std::size_t>(newline - line);
            if (parser.parse(line, size, false).get(message) != simdjson::SUCCESS) {
                ++counts.invalid;
            } else {
                count_element(message, counts);
            }
        }
        line = newline + 1;
    }
    return counts;
}

}  // namespace

int main(int argc, char** argv) {
    std::string_view mode = argc == 3 ? std::string_view(argv[2]) : std::string_view();
    if (argc < 2 || argc > 3 || (argc == 3 && mode != "--dom" && mode != "--dom-lines")) {
        std::cerr << "usage: parse_simdjson TRANSCRIPT [--dom | --dom-lines]\n";
        return 2;
    }
    simdjson::padded_string text;
    if (simdjson::padded_string::load(argv[1]).get(text) != simdjson::SUCCESS) {
        std::cerr << "cannot read " << argv[1] << "\n";
        return 2;
    }
    Counts counts = mode == "--dom"         ? count_dom(text)
                    : mode == "--dom-lines" ? count_dom_lines(text)
                                            : count_ondemand(text);
    std::printf("records=%ld invalid=%ld\n", counts.records, counts.invalid);
    return 0;
}
