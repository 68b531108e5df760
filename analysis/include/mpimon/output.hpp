#pragma once
// Writing an output file so that a failure or an interruption (SIGINT, SIGTERM, SIGHUP) leaves no
// partial file behind: every command writes through these.

#include <functional>
#include <ostream>
#include <string>

namespace mpimon {

/// Writes through a temporary file next to `path`, renamed over it on commit(); removed if
/// never committed, so a failure leaves no partial output behind.
class AtomicOutput {
 public:
  explicit AtomicOutput(std::string path);
  ~AtomicOutput();
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  [[nodiscard]] const std::string& temporary() const { return temporary_; }
  void commit();

 private:
  std::string path_;
  std::string temporary_;
  bool committed_ = false;
  int slot_ = -1;  ///< in the clean-up registry (scratch.hpp)
};

/// Writes a text file through an AtomicOutput: `writer` fills the stream; the file appears only
/// once complete.
void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& writer);

/// Registers one temporary file to delete if the process is interrupted (SIGINT, SIGTERM, SIGHUP),
/// in place of the one registered before; pass "" when it is gone. (The clean-up registry of
/// scratch.hpp, one slot; for several paths use remove_on_interrupt_slot.)
void remove_on_interrupt(const std::string& path);

}  // namespace mpimon
