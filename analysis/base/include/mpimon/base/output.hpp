#pragma once
// Writing an output file so that a failure or an interruption (SIGINT, SIGTERM, SIGHUP) leaves no
// partial file behind: every command writes through these.

#include <functional>
#include <ostream>
#include <string>

#include "mpimon/base/scratch.hpp"

namespace mpimon {

/// Writes through a temporary file next to `path` (a TemporaryFile of scratch.hpp, with the
/// permissions a new file gets), renamed over it on commit(); removed if never committed, so a
/// failure leaves no partial output behind.
class AtomicOutput {
 public:
  explicit AtomicOutput(std::string path);
  [[nodiscard]] const std::string& temporary() const { return temporary_.path(); }
  [[nodiscard]] const std::string& path() const { return path_; }
  void commit();

 private:
  std::string path_;
  TemporaryFile temporary_;
};

/// Writes a text file through an AtomicOutput: `writer` fills the stream; the file appears only
/// once complete.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& writer);

}  // namespace mpimon
