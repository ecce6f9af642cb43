#include "process/output.hpp"

namespace conform::process::detail {

void TailBuffer::append(std::string_view data) {
    m_total += data.size();
    if (data.size() >= m_limit) {
        m_buffer.assign(data.substr(data.size() - m_limit));
        return;
    }
    m_buffer.append(data);
    if (m_buffer.size() > 2 * m_limit) {
        m_buffer.erase(0, m_buffer.size() - m_limit);
    }
}

std::string TailBuffer::text() const {
    if (m_buffer.size() <= m_limit) {
        return m_buffer;
    }
    return m_buffer.substr(m_buffer.size() - m_limit);
}

}  // namespace conform::process::detail
