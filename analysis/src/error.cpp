#include "mpimon/error.hpp"

namespace mpimon {

void raise_error(Error::Kind kind, const std::string& where, const std::string& reason) {
  throw Error(kind, where.empty() ? reason : where + ": " + reason);
}

void raise_input_error(const std::string& path, std::size_t line, const std::string& reason) {
  raise_error(Error::Kind::input, line == 0 ? path : path + ":" + std::to_string(line), reason);
}

}  // namespace mpimon
