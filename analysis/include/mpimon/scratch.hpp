#pragma once
// mpimon's scratch directories and the one clean-up registry behind every temporary path: what is
// registered is removed when the process is interrupted (SIGINT, SIGTERM, SIGHUP), which then exits
// with 128 + the signal. The handler reads fixed storage and calls only openat, getdents64,
// unlinkat, lseek, close and _exit (async-signal-safe). Launches (launch.hpp) hold the signals
// back while a child runs and deliver them after, so the registry still cleans up.

#include <filesystem>
#include <string>

namespace mpimon {

/// Registers PATH (a file, or a directory removed with all it holds) for removal on interruption.
/// Returns the slot to give to release_on_interrupt() once the path is gone or kept; -1 when the
/// path is too long or every slot is taken (then it is not removed on interruption).
int remove_on_interrupt_slot(const std::string& path);
void release_on_interrupt(int slot);

/// A fresh directory, TMPDIR/mpimon-TAG-XXXXXX, removed with its contents when it goes out of
/// scope and on interruption, unless `keep`.
class ScratchDirectory {
 public:
  explicit ScratchDirectory(const std::string& tag, bool keep = false);
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool keep_;
  int slot_ = -1;
};

}  // namespace mpimon
