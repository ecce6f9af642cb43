#include "suite/commits.hpp"

#include <algorithm>

namespace conform::suite {

namespace {

std::size_t first_at_or_after(const std::vector<std::size_t>& sorted, std::size_t from) {
    auto found = std::lower_bound(sorted.begin(), sorted.end(), from);
    return found == sorted.end() ? CommitModel::k_never : *found;
}

}  // namespace

CommitModel::CommitModel(const protocol::Observation& run) {
    for (std::size_t index = 0; index < run.checkpoints.size(); ++index) {
        const auto& checkpoint = run.checkpoints[index];
        if (checkpoint.all_streams) {
            m_all_streams.push_back(index);
            continue;
        }
        for (auto stream : checkpoint.streams) {
            if (m_per_stream.size() <= stream) {
                m_per_stream.resize(stream + 1);
            }
            m_per_stream[stream].push_back(index);
        }
    }
}

std::size_t CommitModel::next_covering(std::uint32_t stream, std::size_t from) const {
    std::size_t own =
        stream < m_per_stream.size() ? first_at_or_after(m_per_stream[stream], from) : k_never;
    return std::min(own, first_at_or_after(m_all_streams, from));
}

}  // namespace conform::suite
