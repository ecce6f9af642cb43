#pragma once

// Internal to the process module: bounded handling of a child's output streams.

#include <cstddef>
#include <string>
#include <string_view>

namespace conform::process::detail {

// Cuts a byte stream into lines, holding at most one line of `max_line_bytes` in memory. A longer
// line is cut to `max_line_bytes` and flagged; the rest of it, up to the next '\n', is dropped.
class LineSplitter {
public:
    explicit LineSplitter(std::size_t max_line_bytes) : m_max_line_bytes(max_line_bytes) {}

    // Calls `deliver(line, truncated)` for every line that `data` completes, in order.
    template <typename Deliver>
    void feed(std::string_view data, Deliver&& deliver) {
        while (!data.empty()) {
            std::size_t newline = data.find('\n');
            std::string_view piece = data.substr(0, newline);
            if (newline == std::string_view::npos) {
                append(piece);
                return;
            }
            data.remove_prefix(newline + 1);
            if (m_pending.empty() && !m_truncated && piece.size() <= m_max_line_bytes) {
                deliver(piece, false);
                continue;
            }
            append(piece);
            deliver_pending(deliver);
        }
    }

    // Delivers the last line when the stream ended without a '\n'.
    template <typename Deliver>
    void finish(Deliver&& deliver) {
        if (!m_pending.empty() || m_truncated) {
            deliver_pending(deliver);
        }
    }

private:
    void append(std::string_view piece) {
        if (m_truncated) {
            return;
        }
        std::size_t room = m_max_line_bytes - m_pending.size();
        if (piece.size() > room) {
            piece = piece.substr(0, room);
            m_truncated = true;
        }
        if (m_pending.size() + piece.size() > m_pending.capacity() &&
            m_pending.capacity() >= k_reserve_after) {
            // A long line: room for the longest at once, instead of doubling copies (the pages
            // are only used as the line fills them).
            m_pending.reserve(m_max_line_bytes);
        }
        m_pending.append(piece);
    }

    template <typename Deliver>
    void deliver_pending(Deliver& deliver) {
        // Reset before delivering, so a callback that throws leaves the splitter consistent.
        std::string line = std::move(m_pending);
        bool truncated = m_truncated;
        m_pending.clear();
        m_truncated = false;
        deliver(std::string_view(line), truncated);
    }

    static constexpr std::size_t k_reserve_after = 1024 * 1024;

    std::size_t m_max_line_bytes;
    std::string m_pending;
    bool m_truncated = false;
};

// Keeps the last `limit` bytes of a stream.
class TailBuffer {
public:
    explicit TailBuffer(std::size_t limit) : m_limit(limit) {}

    void append(std::string_view data);
    // The last `limit` bytes seen.
    std::string text() const;
    // True when more than `limit` bytes were seen.
    bool truncated() const { return m_total > m_limit; }

private:
    std::size_t m_limit;
    std::size_t m_total = 0;
    std::string m_buffer;  // holds at most 2 * limit bytes, to trim rarely
};

}  // namespace conform::process::detail
