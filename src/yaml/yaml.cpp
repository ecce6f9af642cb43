#include "yaml/yaml.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace conform::yaml {

namespace {

std::string lowered(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool is_null_word(std::string_view text) {
    return text.empty() || text == "~" || lowered(text) == "null";
}

// "true"/"false" for a YAML 1.1 or 1.2 boolean word, "" for anything else.
std::string_view boolean_of(std::string_view text) {
    static constexpr std::array<std::string_view, 3> k_true{"true", "yes", "on"};
    static constexpr std::array<std::string_view, 3> k_false{"false", "no", "off"};
    auto word = lowered(text);
    if (std::find(k_true.begin(), k_true.end(), word) != k_true.end()) {
        return "true";
    }
    if (std::find(k_false.begin(), k_false.end(), word) != k_false.end()) {
        return "false";
    }
    return {};
}

bool all_digits(std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(),
                                        [](unsigned char c) { return std::isdigit(c) != 0; });
}

// True when `text` is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view text) {
    if (text.starts_with('-')) {
        text.remove_prefix(1);
    }
    auto integer_end = std::min(text.find_first_of(".eE"), text.size());
    auto integer = text.substr(0, integer_end);
    if (!all_digits(integer) || (integer.size() > 1 && integer.front() == '0')) {
        return false;
    }
    text.remove_prefix(integer_end);
    if (text.starts_with('.')) {
        auto fraction_end = std::min(text.find_first_of("eE"), text.size());
        if (!all_digits(text.substr(1, fraction_end - 1))) {
            return false;
        }
        text.remove_prefix(fraction_end);
    }
    if (text.empty()) {
        return true;
    }
    text.remove_prefix(1);  // e or E
    if (text.starts_with('+') || text.starts_with('-')) {
        text.remove_prefix(1);
    }
    return all_digits(text);
}

std::string quoted(std::string_view text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

// yaml-cpp resolves an alias to the very node its anchor names, so the node graph it hands over
// may hold a cycle (`a: &x [*x]`) or expand exponentially (aliases of lists of aliases, the
// "billion laughs"): the conversion bounds both the depth and the size of what it writes.
constexpr int k_max_depth = 2000;  // yaml-cpp stops a file at 500: only aliases go deeper
constexpr std::size_t k_max_expansion_floor = std::size_t{16} << 20;
constexpr std::size_t k_max_expansion_per_byte = 8;
constexpr std::size_t k_max_entries_floor = std::size_t{1} << 20;  // mapping entries read
constexpr int k_max_merge_depth = 64;

// Writes JSON text, starting each value on its YAML line.
class JsonOut {
public:
    JsonOut(std::string origin, std::size_t yaml_size)
        : m_origin(std::move(origin)),
          m_max_size(k_max_expansion_floor + k_max_expansion_per_byte * yaml_size),
          m_max_entries(k_max_entries_floor + yaml_size) {}

    // A scalar starts on its own line; a mapping or sequence where its key (or its parent's
    // item) is, so that the line of a value that is a block is the line of the key naming it.
    void value(const YAML::Node& node) {
        if (m_text.size() > m_max_size) {
            throw_input_error(fmt::format(
                "{}: its aliases expand the file past {} MiB of JSON, where conform stops reading "
                "({} MiB plus {} bytes for each byte of the file; aliases of lists of aliases "
                "multiply)",
                where(node), m_max_size >> 20, k_max_expansion_floor >> 20,
                k_max_expansion_per_byte));
        }
        switch (node.Type()) {
            case YAML::NodeType::Undefined:
            case YAML::NodeType::Null:
                m_text += "null";
                break;
            case YAML::NodeType::Scalar:
                move_to(node.Mark());
                scalar(node);
                break;
            case YAML::NodeType::Sequence:
                sequence(node);
                break;
            case YAML::NodeType::Map:
                map(node);
                break;
        }
    }

    // The root starts on its own line (after leading comments).
    void root(const YAML::Node& node) {
        move_to(node.Mark());
        value(node);
    }

    std::string take() { return std::move(m_text); }

private:
    // What a Level counts: values (mappings and sequences being written) or merge keys being
    // expanded inside one another. A merge's frames are larger than a value's, so merges stop far
    // sooner (a mapping merged into itself reaches the limit at once).
    enum class Nesting { values, merges };

    // Counts one level of `nesting` for its lifetime.
    class Level {
    public:
        Level(JsonOut& out, const YAML::Node& node, Nesting nesting = Nesting::values)
            : m_depth(nesting == Nesting::values ? out.m_depth : out.m_merge_depth) {
            if (++m_depth > (nesting == Nesting::values ? k_max_depth : k_max_merge_depth)) {
                out.nested_too_deeply(node, nesting);
            }
        }
        Level(const Level&) = delete;
        Level& operator=(const Level&) = delete;
        ~Level() { --m_depth; }

    private:
        int& m_depth;
    };

    [[noreturn]] void nested_too_deeply(const YAML::Node& node, Nesting nesting) const {
        if (nesting == Nesting::values) {
            throw_input_error(fmt::format(
                "{}: values nest deeper than {} levels once aliases are expanded: is an alias "
                "inside the node its anchor names?",
                where(node), k_max_depth));
        }
        throw_input_error(
            fmt::format("{}: merge keys (<<) nest deeper than {} levels: is a mapping merged into "
                        "itself?",
                        where(node), k_max_merge_depth));
    }

    // "origin:line:column" of `node`, as the other errors name a place.
    std::string where(const YAML::Node& node) const {
        auto mark = node.Mark();
        return mark.is_null() ? m_origin
                              : fmt::format("{}:{}:{}", m_origin, mark.line + 1, mark.column + 1);
    }

    void move_to(const YAML::Mark& mark) {
        if (mark.is_null() || mark.line < 0) {
            return;
        }
        auto line = static_cast<std::size_t>(mark.line) + 1;
        while (m_line < line) {
            m_text += '\n';
            ++m_line;
        }
    }

    // A quoted scalar (tag "!") is a string whatever it reads as; a plain one is null, a boolean
    // or a number when it reads as one.
    void scalar(const YAML::Node& node) {
        const auto& text = node.Scalar();
        bool plain = node.Tag() != "!";
        if (plain && is_null_word(text)) {
            m_text += "null";
        } else if (auto word = plain ? boolean_of(text) : ""; !word.empty()) {
            m_text += word;
        } else if (plain && is_json_number(text)) {
            m_text += text;
        } else {
            m_text += quoted(text);
        }
    }

    void sequence(const YAML::Node& node) {
        Level level(*this, node);
        m_text += '[';
        bool first = true;
        for (const auto& item : node) {
            m_text += first ? "" : ",";
            first = false;
            value(item);
        }
        m_text += ']';
    }

    void map(const YAML::Node& node) {
        Level level(*this, node);
        m_text += '{';
        bool first = true;
        for (const auto& [key, item] : entries_of(node)) {
            m_text += first ? "" : ",";
            first = false;
            move_to(key.Mark());
            m_text += quoted(key.Scalar()) + ":";
            value(item);
        }
        m_text += '}';
    }

    using Entries = std::vector<std::pair<YAML::Node, YAML::Node>>;

    // The entries of mapping `node` as PyYAML reads them (Airbyte's acceptance tests load their
    // files with it): the entries of the mappings its merge keys name (`<<: *base`,
    // `<<: [*first, *second]`, the first winning) come before its own, which win; a key given
    // twice keeps the place of the first and the value of the last.
    Entries entries_of(const YAML::Node& node) {
        Entries merged;
        Entries own;
        for (const auto& entry : node) {
            count_entry(entry.first);
            if (!entry.first.IsScalar()) {
                throw_input_error(
                    fmt::format("{}: a mapping key must be a plain value", where(entry.first)));
            }
            if (entry.first.Tag() == "!" || entry.first.Scalar() != "<<") {
                own.emplace_back(entry.first, entry.second);
            } else {
                if (m_merge_depth == 0) {
                    m_merge_place = where(entry.first);
                }
                merge_into(merged, entry.second);
            }
        }
        append(merged, own);
        return last_value_first_place(merged);
    }

    void merge_into(Entries& merged, const YAML::Node& source) {
        Level level(*this, source, Nesting::merges);
        if (source.IsMap()) {
            append(merged, entries_of(source));
            return;
        }
        if (!source.IsSequence()) {
            throw_input_error(fmt::format(
                "{}: a merge key (<<) takes a mapping or a list of mappings", where(source)));
        }
        std::vector<Entries> parts;
        for (const auto& item : source) {
            if (!item.IsMap()) {
                throw_input_error(fmt::format(
                    "{}: a merge key (<<) takes a mapping or a list of mappings", where(item)));
            }
            parts.push_back(entries_of(item));
        }
        // Later mappings first, so that the earlier ones' values are the last and win.
        for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
            append(merged, *part);
        }
    }

    // yaml-cpp's Node assignment writes into the node a handle refers to (an anchor's node, for
    // an alias): entries are only ever copied into new handles here, never assigned.
    static Entries last_value_first_place(const Entries& entries) {
        std::unordered_map<std::string, std::size_t> last;
        for (std::size_t i = 0; i < entries.size(); ++i) {
            last[entries[i].first.Scalar()] = i;
        }
        Entries result;
        std::unordered_set<std::string> placed;
        for (const auto& [key, item] : entries) {
            if (placed.insert(key.Scalar()).second) {
                result.emplace_back(key, entries[last[key.Scalar()]].second);
            }
        }
        return result;
    }

    static void append(Entries& to, const Entries& entries) {
        for (const auto& [key, item] : entries) {
            to.emplace_back(key, item);
        }
    }

    // A mapping is read again for each merge key that names it (merges of merges multiply): the
    // entries read are bounded as the JSON written is.
    void count_entry(const YAML::Node& key) {
        if (++m_entries_read > m_max_entries) {
            throw_input_error(fmt::format(
                "{}: its merge keys (<<) make conform read more than {} mapping entries, where it "
                "stops (2^20 plus one a byte of the file; merges of merges multiply)",
                m_merge_depth > 0 ? m_merge_place : where(key), m_max_entries));
        }
    }

    std::string m_origin;
    std::size_t m_max_size;
    std::size_t m_max_entries;
    std::string m_text;
    std::size_t m_line = 1;
    int m_depth = 0;
    std::size_t m_entries_read = 0;
    int m_merge_depth = 0;
    std::string m_merge_place;  // of the outermost merge key being expanded
};

// Sees where each document of a YAML stream starts, and nothing else.
class DocumentStarts : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark& mark) override { m_marks.push_back(mark); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}

    const std::vector<YAML::Mark>& marks() const { return m_marks; }

private:
    std::vector<YAML::Mark> m_marks;
};

// The number of documents in `text`: 0, 1, or 2 for "more than one". yaml-cpp 0.7 does not
// consume a token it cannot start a node with (a ',' outside any flow collection): it starts
// document after document at that token, and its LoadAll collects them until memory runs out
// (yaml-cpp issue 1040, fixed after 0.7). Two documents starting at one place are that token.
std::size_t count_documents(const std::string& text, const std::string& origin) {
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    while (starts.marks().size() < 3 && parser.HandleNextDocument(starts)) {
    }
    const auto& marks = starts.marks();
    for (std::size_t i = 1; i < marks.size(); ++i) {
        if (marks[i].pos == marks[i - 1].pos) {
            throw_input_error(
                fmt::format("{}:{}:{}: not YAML: a character out of place (a ',' "
                            "outside [ ] or {{ }}?) where a value should start",
                            origin, marks[i].line + 1, marks[i].column + 1));
        }
    }
    if (marks.size() > 1) {
        throw_input_error(fmt::format(
            "{}:{}:{}: a second YAML document starts here (each --- line starts one); expected one",
            origin, marks[1].line + 1, marks[1].column + 1));
    }
    return marks.size();
}

}  // namespace

std::string to_json_text(const std::string& text, const std::string& origin) {
    YAML::Node document;
    try {
        if (count_documents(text, origin) == 0) {
            return "null";
        }
        document = YAML::Load(text);
    } catch (const YAML::DeepRecursion& error) {
        throw_input_error(
            fmt::format("{}:{}:{}: nested too deeply: the YAML reader stops at {} levels", origin,
                        error.mark.line + 1, error.mark.column + 1, error.depth()));
    } catch (const YAML::Exception& error) {
        throw_input_error(fmt::format("{}:{}:{}: not YAML: {}", origin, error.mark.line + 1,
                                      error.mark.column + 1, error.msg));
    }
    JsonOut out(origin, text.size());
    out.root(document);
    return out.take();
}

bool is_yaml_path(const std::string& path) {
    auto name = lowered(path);
    return name.ends_with(".yml") || name.ends_with(".yaml");
}

}  // namespace conform::yaml
