#pragma once

#include <filesystem>
#include <string>

namespace conform {

// Reads a whole file; throws conform::Error (input) naming it when it cannot.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace conform
