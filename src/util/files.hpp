#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace conform {

// The most of one input file (test config, connector config, catalog, suite, baseline) conform
// reads: as much as a connector's longest line. An input is a document, never a stream.
inline constexpr std::size_t k_max_input_file_bytes = 16 * 1024 * 1024;

// Reads a whole file of at most `limit` bytes; throws conform::Error (input) naming it, and
// saying why, when it cannot: missing or unreadable, a folder, a device or socket (/dev/zero),
// or larger than `limit`. A FIFO or pipe (`--config <(vault read ...)`) is read to its end,
// without blocking when nothing writes to it; an empty one is read as empty.
std::string read_text_file(const std::filesystem::path& path,
                           std::size_t limit = k_max_input_file_bytes);

// `path` as given when absolute, else under `base`, normalised ("a/./b" is "a/b").
std::filesystem::path resolve_under(const std::filesystem::path& base, const std::string& path);

}  // namespace conform
