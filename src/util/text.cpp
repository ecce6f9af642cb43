#include "util/text.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace conform {

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), 0);
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t above = row[j];
            std::size_t substitution = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates) {
    std::string best;
    std::size_t best_distance = std::max<std::size_t>(2, name.size() / 3) + 1;
    for (const auto& candidate : candidates) {
        std::size_t distance = edit_distance(name, candidate);
        if (distance < best_distance) {
            best_distance = distance;
            best = candidate;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
    // Every short name is near a name of one or two characters: a guess, not a typo's fix.
    constexpr std::size_t k_shortest_typo = 3;
    if (name.size() < k_shortest_typo) {
        return {};
    }
    auto nearest = nearest_name(name, candidates);
    return nearest.empty() ? std::string() : " (did you mean '" + nearest + "'?)";
}

namespace {

// Length of the valid UTF-8 sequence starting at `at`, or 0 when it is not valid.
std::size_t valid_sequence_length(std::string_view text, std::size_t at) {
    auto byte = static_cast<unsigned char>(text[at]);
    if (byte < 0x80) {
        return 1;
    }
    std::size_t length = (byte >> 5) == 0x6    ? 2
                         : (byte >> 4) == 0xE  ? 3
                         : (byte >> 3) == 0x1E ? 4
                                               : 0;
    if (length == 0 || byte == 0xC0 || byte == 0xC1 || byte > 0xF4 || at + length > text.size()) {
        return 0;
    }
    for (std::size_t i = 1; i < length; ++i) {
        if ((static_cast<unsigned char>(text[at + i]) & 0xC0) != 0x80) {
            return 0;
        }
    }
    return length;
}

}  // namespace

std::string markup_escaped(std::string_view raw) {
    std::string text = valid_utf8(raw);
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                bool forbidden =
                    static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r';
                out += forbidden ? '?' : c;
        }
    }
    return out;
}

std::string valid_utf8(std::string_view text) {
    std::string result;
    result.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        std::size_t length = valid_sequence_length(text, at);
        if (length == 0) {
            result += "\xEF\xBF\xBD";
            ++at;
        } else {
            result.append(text.substr(at, length));
            at += length;
        }
    }
    return result;
}

std::string excerpt(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) {
        return valid_utf8(text);
    }
    std::size_t cut = limit;
    // Do not cut a UTF-8 sequence in half.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
        --cut;
    }
    return valid_utf8(text.substr(0, cut)) + "…";
}

TextPosition position_of(std::string_view text, std::size_t offset) {
    TextPosition position;
    offset = std::min(offset, text.size());
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++position.line;
            position.column = 1;
        } else {
            ++position.column;
        }
    }
    return position;
}

std::string last_lines(std::string_view text, std::size_t bytes) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        auto end = text.find('\n');
        auto line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (line.find_first_not_of(" \t") != std::string_view::npos) {
            lines.push_back(line);
        }
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
    auto first = lines.size();
    std::size_t size = 0;
    while (first > 0 && (first == lines.size() || size + lines[first - 1].size() + 1 <= bytes)) {
        size += lines[first - 1].size() + (first == lines.size() ? 0 : 1);
        --first;
    }
    std::string kept;
    for (auto i = first; i < lines.size(); ++i) {
        if (!kept.empty()) {
            kept += '\n';
        }
        kept += lines[i];
    }
    return kept.size() > bytes ? valid_utf8(std::string_view(kept).substr(kept.size() - bytes))
                               : kept;
}

std::string shell_quote(std::string_view word) {
    auto safe = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
               std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
    };
    if (!word.empty() && std::all_of(word.begin(), word.end(), safe)) {
        return std::string(word);
    }
    std::string quoted = "'";
    for (char c : word) {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

}  // namespace conform
