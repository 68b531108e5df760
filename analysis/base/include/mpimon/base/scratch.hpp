#pragma once
// mpimon's temporary files and scratch directories, and the one clean-up registry behind them and
// behind every launched process group. On SIGINT, SIGTERM or SIGHUP its handler
// - while a child's process group is registered (a launch waits for mpirun): sends the group
//   SIGTERM and remembers the signal; the launch lets mpirun take its ranks down, then calls
//   exit_if_interrupted(), which does what follows;
// - otherwise: removes every registered path (files, and directories with all they hold) and
//   exits with 128 + the signal.
// The handler reads fixed storage and calls only kill, openat, getdents64, unlinkat, lseek, close,
// getpid and _exit (async-signal-safe). It is installed at the first registration, for the signals
// whose disposition is still the default: an ignored signal (nohup) stays ignored, and the
// handler of an application that libmpimon-collect.so runs inside stays its own.

#include <signal.h>
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace mpimon {

/// Registers PATH (a file, or a directory removed with all it holds) for removal on interruption.
/// Returns the slot to give to release_on_interrupt() once the path is gone or kept; -1 when the
/// path is too long or every slot is taken (then it is not removed on interruption: the temporary
/// files and directories made here refuse to exist then, an error naming the path).
int remove_on_interrupt_slot(const std::string& path);
void release_on_interrupt(int slot);

/// While alive and tracking a child's process group (the child made its own: mpirun passes the
/// signal on to its ranks), an interruption sends the group SIGTERM instead of ending this process
/// at once. Made before fork(), it holds the stop signals back until track(), so that no signal
/// in between leaves the child running.
class StopGroupOnInterrupt {
 public:
  StopGroupOnInterrupt();
  ~StopGroupOnInterrupt();
  StopGroupOnInterrupt(const StopGroupOnInterrupt&) = delete;
  StopGroupOnInterrupt& operator=(const StopGroupOnInterrupt&) = delete;
  /// After fork(): in the parent, registers GROUP (the child's pid); in the child, pass 0. Both
  /// let the stop signals through again.
  void track(pid_t group);
  /// The signal that asked this process to stop while a group was tracked, or 0.
  [[nodiscard]] static int interrupted();
  /// Once the children are gone: after such a signal, removes the registered paths and exits
  /// with 128 + the signal, as an interruption without children does.
  static void exit_if_interrupted();

 private:
  sigset_t previous_mask_{};
  bool held_ = false;
  int slot_ = -1;
};

/// A fresh directory, removed with its contents when it goes out of scope and on interruption,
/// unless kept.
class ScratchDirectory {
 public:
  /// TMPDIR/mpimon-TAG-XXXXXX.
  explicit ScratchDirectory(const std::string& tag);
  /// PARENT/NAMEXXXXXX: e.g. next to an output file, on the file system the nodes share.
  ScratchDirectory(const std::filesystem::path& parent, const std::string& name);
  ~ScratchDirectory();
  ScratchDirectory(ScratchDirectory&& other) noexcept;  ///< `other` no longer removes anything
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(ScratchDirectory&&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  /// From now on the directory stays, also after an interruption.
  void keep();

 private:
  std::filesystem::path path_;
  bool keep_ = false;
  int slot_ = -1;
};

/// A fresh empty file, removed when it goes out of scope and on interruption, unless released.
class TemporaryFile {
 public:
  /// TMPDIR/mpimon-TAG-XXXXXX.
  explicit TemporaryFile(const std::string& tag);
  /// DIRECTORY/NAMEXXXXXX ("" is the current directory), private to its owner (mkstemp's mode).
  TemporaryFile(const std::filesystem::path& directory, const std::string& name);
  ~TemporaryFile();
  TemporaryFile(TemporaryFile&& other) noexcept;  ///< `other` no longer removes anything
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;
  TemporaryFile& operator=(TemporaryFile&&) = delete;
  [[nodiscard]] const std::string& path() const { return path_; }
  /// From now on the file is not removed (it was renamed, or is to stay).
  void release();

 private:
  std::string path_;
  int slot_ = -1;
};

/// Why no file can be created in DIRECTORY (strerror's text), or "" when one can. access(W_OK)
/// says yes to root on a read-only file system: only creating a file tells.
std::string cannot_create_file_in(const std::filesystem::path& directory);

}  // namespace mpimon
