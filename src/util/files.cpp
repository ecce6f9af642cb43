#include "util/files.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace conform {

std::string read_text_file(const std::filesystem::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw_input_error(
            fmt::format("cannot read '{}': no such file or not readable", path.string()));
    }
    std::ostringstream content;
    content << file.rdbuf();
    return content.str();
}

}  // namespace conform
