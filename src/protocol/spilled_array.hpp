#pragma once

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <iterator>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "protocol/spill.hpp"

namespace conform::protocol {

// Fixed-size items appended to an unlinked file a block at a time and read back by index: what a
// store keeps per record or per STATE costs one block of memory however many there are. Not
// synchronised: its owner locks.
template <typename Item>
class SpilledArray {
    static_assert(std::is_trivially_copyable_v<Item>);

public:
    static constexpr std::size_t k_block_items = 1024;

    void set_folder(std::filesystem::path folder) { m_folder = std::move(folder); }
    const std::filesystem::path& folder() const { return m_folder; }
    std::size_t size() const { return m_written + m_pending.size(); }

    void push_back(const Item& item) {
        m_pending.push_back(item);
        if (m_pending.size() >= k_block_items) {
            write_pending();
        }
    }

    // The item at `index`; the block read for it is kept for the next call.
    const Item& at(std::size_t index) {
        if (index >= m_written) {
            return m_pending.at(index - m_written);
        }
        if (m_block.empty() || index < m_block_start || index >= m_block_start + m_block.size()) {
            m_block_start = index - index % k_block_items;
            m_block = items_from(m_block_start);
        }
        return m_block[index - m_block_start];
    }

    // Up to a block of items from `start` on, in order (fewer at the end).
    std::vector<Item> items_from(std::size_t start) const {
        if (start >= m_written) {
            auto first = std::min(start - m_written, m_pending.size());
            return {m_pending.begin() + static_cast<std::ptrdiff_t>(first), m_pending.end()};
        }
        auto count = std::min(k_block_items, m_written - start);
        std::vector<Item> items(count);
        m_file->read_into(start * sizeof(Item),
                          static_cast<char*>(static_cast<void*>(items.data())),
                          count * sizeof(Item));
        return items;
    }

private:
    void write_pending() {
        if (!m_file) {
            m_file = std::make_unique<SpillFile>(m_folder);
        }
        m_file->append(
            std::string_view(static_cast<const char*>(static_cast<const void*>(m_pending.data())),
                             m_pending.size() * sizeof(Item)));
        m_written += m_pending.size();
        m_pending.clear();
    }

    std::filesystem::path m_folder = std::filesystem::temp_directory_path();
    std::unique_ptr<SpillFile> m_file;
    std::size_t m_written = 0;      // items in the file
    std::vector<Item> m_pending;    // items after them, not yet written
    std::size_t m_block_start = 0;  // the block last read from the file
    std::vector<Item> m_block;
};

// An input iterator over a store read by index: it yields values, not references.
template <typename Store, typename Value>
class IndexIterator {
public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Value;
    using difference_type = std::ptrdiff_t;
    using pointer = const Value*;
    using reference = Value;

    IndexIterator(const Store* store, std::size_t index) : m_store(store), m_index(index) {}
    Value operator*() const { return (*m_store)[m_index]; }
    IndexIterator& operator++() {
        ++m_index;
        return *this;
    }
    IndexIterator operator++(int) {
        auto before = *this;
        ++m_index;
        return before;
    }
    bool operator==(const IndexIterator& other) const { return m_index == other.m_index; }

private:
    const Store* m_store;
    std::size_t m_index;
};

}  // namespace conform::protocol
