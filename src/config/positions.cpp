#include "config/positions.hpp"

#include <rapidjson/reader.h>

#include <vector>

#include "json/pointer.hpp"
#include "util/text.hpp"

namespace conform::config {

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
        m_lines.emplace(current_pointer(), line_now());
        return true;
    }

private:
    struct Frame {
        bool is_object;
        std::string key;
        std::size_t index = 0;
    };

    std::size_t line_now() const { return position_of(m_text, m_stream.Tell()).line; }

    std::string current_pointer() const {
        std::string pointer;
        for (const auto& frame : m_frames) {
            pointer += '/';
            pointer += frame.is_object ? frame.key : std::to_string(frame.index);
        }
        return pointer;
    }

    bool value() {
        if (!m_frames.empty()) {
            m_lines.emplace(current_pointer(), line_now());
            if (!m_frames.back().is_object) {
                ++m_frames.back().index;
            }
        }
        return true;
    }

    bool open(bool is_object) {
        if (!m_frames.empty()) {
            m_lines.emplace(current_pointer(), line_now());
        }
        m_frames.push_back(Frame{is_object, {}, 0});
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

}  // namespace conform::config
