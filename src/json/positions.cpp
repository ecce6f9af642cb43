#include "json/positions.hpp"

#include <rapidjson/reader.h>

#include <algorithm>
#include <vector>

#include "json/pointer.hpp"

namespace conform::json {

namespace {

// Records the line of each value as the reader reaches it.
class LineRecorder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, LineRecorder> {
public:
    LineRecorder(std::string_view text, const rapidjson::StringStream& stream,
                 std::map<std::string, std::size_t>& lines)
        : m_text(text), m_stream(stream), m_lines(lines) {}

    bool Default() { return value(); }
    bool StartObject() { return open(true); }
    bool StartArray() { return open(false); }
    bool EndObject(rapidjson::SizeType) { return close(); }
    bool EndArray(rapidjson::SizeType) { return close(); }
    bool Key(const char* name, rapidjson::SizeType length, bool) {
        m_frames.back().key = json::escape_pointer_token(std::string_view(name, length));
        record();
        return true;
    }

private:
    // Deeper values are not recorded: line_of() falls back to their nearest recorded ancestor,
    // and recording them would cost time and memory quadratic in the depth.
    static constexpr std::size_t k_max_depth = 64;

    struct Frame {
        bool is_object;
        std::string key;
        std::size_t index = 0;
        std::size_t pointer_length;  // of the container's own pointer
    };

    // The reader only moves forward, so lines are counted incrementally.
    std::size_t line_now() {
        std::size_t offset = std::min(m_stream.Tell(), m_text.size());
        for (; m_scanned < offset; ++m_scanned) {
            m_line += m_text[m_scanned] == '\n' ? 1 : 0;
        }
        return m_line;
    }

    // Records the line of the current member or element, whose pointer is the container's
    // pointer plus one token.
    void record() {
        const Frame& frame = m_frames.back();
        if (m_frames.size() > k_max_depth) {
            return;
        }
        m_pointer.resize(frame.pointer_length);
        m_pointer += '/';
        m_pointer += frame.is_object ? frame.key : std::to_string(frame.index);
        m_lines.emplace(m_pointer, line_now());
    }

    bool value() {
        if (!m_frames.empty()) {
            record();
            if (!m_frames.back().is_object) {
                ++m_frames.back().index;
            }
        }
        return true;
    }

    bool open(bool is_object) {
        std::size_t pointer_length = 0;
        if (!m_frames.empty()) {
            record();
            pointer_length =
                m_frames.size() > k_max_depth ? m_frames.back().pointer_length : m_pointer.size();
        }
        m_frames.push_back(Frame{is_object, {}, 0, pointer_length});
        return true;
    }

    bool close() {
        m_frames.pop_back();
        if (!m_frames.empty() && !m_frames.back().is_object) {
            ++m_frames.back().index;
        }
        return true;
    }

    std::string_view m_text;
    const rapidjson::StringStream& m_stream;
    std::map<std::string, std::size_t>& m_lines;
    std::vector<Frame> m_frames;
    std::string m_pointer;
    std::size_t m_scanned = 0;
    std::size_t m_line = 1;
};

}  // namespace

std::map<std::string, std::size_t> pointer_lines(std::string_view text) {
    std::map<std::string, std::size_t> lines;
    std::string copy(text);
    rapidjson::StringStream stream(copy.c_str());
    LineRecorder recorder(text, stream, lines);
    rapidjson::Reader reader;
    reader.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseIterativeFlag>(stream, recorder);
    lines.emplace("", 1);
    return lines;
}

std::size_t line_of(const std::map<std::string, std::size_t>& lines, std::string pointer) {
    while (true) {
        if (auto found = lines.find(pointer); found != lines.end()) {
            return found->second;
        }
        auto slash = pointer.rfind('/');
        if (slash == std::string::npos) {
            return 1;
        }
        pointer.resize(slash);
    }
}

}  // namespace conform::json
