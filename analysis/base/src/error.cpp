#include "mpimon/base/error.hpp"

#include <filesystem>

namespace mpimon {

void raise_error(Error::Kind kind, const std::string& where, const std::string& reason) {
  throw Error(kind, where.empty() ? reason : where + ": " + reason);
}

void raise_input_error(const std::string& path, std::size_t line, const std::string& reason) {
  raise_error(Error::Kind::input, line == 0 ? path : path + ":" + std::to_string(line), reason);
}

void check_output_path(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::is_directory(parent, ec)) {
    raise_error(Error::Kind::input, path,
                "cannot write: the directory " + parent.string() +
                    (fs::exists(parent, ec) ? " is not a directory" : " does not exist") +
                    " (create it first, or choose another output path)");
  }
  if (fs::is_directory(path, ec))
    raise_error(Error::Kind::input, path, "cannot write: this is a directory, not a file name");
}

}  // namespace mpimon
