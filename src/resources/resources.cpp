#include "resources/resources.hpp"

#include <string>

#include "util/error.hpp"

namespace conform::resources {

std::string_view find(std::string_view name) {
    for (const auto& [file_name, content] : all()) {
        if (file_name == name) {
            return content;
        }
    }
    throw_internal_error("embedded resource '" + std::string(name) +
                         "' is missing from this build");
}

}  // namespace conform::resources
