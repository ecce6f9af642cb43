#include "util/error.hpp"

namespace conform {

void throw_input_error(const std::string& message) {
    throw Error(ErrorKind::input, message);
}

void throw_internal_error(const std::string& message) {
    throw Error(ErrorKind::internal, message);
}

}  // namespace conform
