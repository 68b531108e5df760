#pragma once
// The one exception type of the analysis library.
//
// Every failure the library reports is an mpimon::Error whose message names where the
// problem is (file, and line when there is one) and why, e.g.
//   prof/run.3.prof:12: histogram has 65 buckets, expected 66
// Front-ends print what() and map the kind to an exit code.

#include <cstddef>
#include <stdexcept>
#include <string>

namespace mpimon {

class Error : public std::runtime_error {
 public:
  enum class Kind {
    input,   ///< bad or missing user input (a .prof file, an HDF5 file, a name)
    format,  ///< a file that is not in the expected format or version
    system,  ///< the operating system or HDF5 failed (disk full, permissions)
    usage,   ///< a command-line option with a value it does not accept (front-ends: exit code 2)
    launch,  ///< a sweep ended with launches that failed (front-ends: exit code 9)
  };

  Error(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  [[nodiscard]] Kind kind() const noexcept { return kind_; }

 private:
  Kind kind_;
};

/// Throws Error{kind, "<where>: <reason>"}; where is a path, "path:line" or an HDF5 object.
[[noreturn]] void raise_error(Error::Kind kind, const std::string& where, const std::string& reason);

/// Throws an input error located at path:line (line 0 means the file as a whole).
[[noreturn]] void raise_input_error(const std::string& path, std::size_t line, const std::string& reason);

/// Before writing `path`: an input error naming its directory when that directory does not exist
/// (or is not one), or naming `path` when it is a directory, instead of a failure on a temporary file.
void check_output_path(const std::string& path);

}  // namespace mpimon
