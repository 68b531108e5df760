// Temporary files, scratch directories and the clean-up registry (scratch.hpp).

#include "mpimon/base/scratch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "mpimon/base/error.hpp"

namespace mpimon {

namespace fs = std::filesystem;

namespace {

// A registered path. `owner` is the process that registered it: a child between fork and exec
// runs the handler too, and must leave its parent's paths alone.
struct PathSlot {
  volatile std::sig_atomic_t owner = 0;  // 0: free
  char path[4096] = {};
};
// A child's process group to stop on interruption.
struct GroupSlot {
  volatile std::sig_atomic_t owner = 0;  // 0: free
  volatile std::sig_atomic_t group = 0;
};
constexpr std::array<int, 3> kStopSignals{SIGINT, SIGTERM, SIGHUP};
std::array<PathSlot, 32> g_paths;
std::array<GroupSlot, 16> g_groups;
volatile std::sig_atomic_t g_interrupted = 0;  // the signal that came while groups were registered
std::mutex g_slots_mutex;                      // add and release only; the handler reads the slots

bool is_dot(const char* name) { return name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')); }

// Removes NAME in directory PARENT and, for a directory, everything below it (bounded depth).
void remove_tree(int parent, const char* name, int depth) {
  if (unlinkat(parent, name, 0) == 0 || depth > 64) return;
  const int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  alignas(struct dirent64) char buffer[4096];
  // Removing entries while reading may make the reader skip some: read again until empty.
  for (bool removed = true; removed;) {
    removed = false;
    lseek(fd, 0, SEEK_SET);
    for (ssize_t n; (n = getdents64(fd, buffer, sizeof buffer)) > 0;) {
      for (ssize_t offset = 0; offset < n;) {
        const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + offset);
        offset += entry->d_reclen;
        if (is_dot(entry->d_name)) continue;
        remove_tree(fd, entry->d_name, depth + 1);
        removed = true;
      }
    }
  }
  close(fd);
  unlinkat(parent, name, AT_REMOVEDIR);
}

void remove_registered() {
  const pid_t self = getpid();
  for (auto& slot : g_paths) {
    if (slot.owner == self) remove_tree(AT_FDCWD, slot.path, 0);
  }
}

extern "C" void on_stop_signal(int signal) {
  const pid_t self = getpid();
  bool children = false;
  for (const auto& slot : g_groups) {
    if (slot.owner == self) {
      kill(-slot.group, SIGTERM);
      children = true;
    }
  }
  if (children) {
    g_interrupted = signal;
    return;
  }
  remove_registered();
  _exit(128 + signal);
}

void install_handlers() {
  static const bool installed = [] {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    for (int signal : kStopSignals) {
      struct sigaction previous {};
      sigaction(signal, nullptr, &previous);
      if (previous.sa_handler == SIG_DFL) sigaction(signal, &action, nullptr);
    }
    return true;
  }();
  (void)installed;
}

enum class Make { file, directory };

// DIRECTORY/NAMEXXXXXX made by mkstemp or mkdtemp (the only calls of either in mpimon); "" and
// errno when it cannot be made.
std::string try_make_unique(const fs::path& directory, const std::string& name, Make what) {
  std::string pattern = ((directory.empty() ? fs::path(".") : directory) / (name + "XXXXXX")).string();
  if (what == Make::directory) return mkdtemp(pattern.data()) != nullptr ? pattern : "";
  const int fd = mkstemp(pattern.data());
  return fd >= 0 && close(fd) == 0 ? pattern : "";
}

// The same, registered for removal on interruption in `slot`; a failure is an error naming DIRECTORY.
std::string make_unique(const fs::path& directory, const std::string& name, Make what, int& slot) {
  std::string path = try_make_unique(directory, name, what);
  if (path.empty()) {
    raise_error(
        Error::Kind::system, directory.empty() ? "." : directory.string(),
        std::string(what == Make::directory ? "cannot create a directory here: " : "cannot create a file here: ") +
            std::strerror(errno));
  }
  slot = remove_on_interrupt_slot(path);
  if (slot < 0) {
    // Never a temporary that an interruption would leave behind unannounced.
    std::error_code ignored;
    fs::remove(path, ignored);
    raise_error(Error::Kind::system, path,
                "cannot be registered for removal on interruption (a path of 4096 bytes or more, or " +
                    std::to_string(g_paths.size()) + " temporary paths at once)");
  }
  return path;
}

}  // namespace

int remove_on_interrupt_slot(const std::string& path) {
  const std::string absolute = fs::absolute(path).string();  // the handler may run in another directory
  if (absolute.size() >= sizeof g_paths[0].path) return -1;
  const std::lock_guard lock(g_slots_mutex);
  install_handlers();
  for (std::size_t i = 0; i < g_paths.size(); ++i) {
    if (g_paths[i].owner != 0) continue;
    std::memcpy(g_paths[i].path, absolute.c_str(), absolute.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the path is complete before it is armed
    g_paths[i].owner = getpid();
    return static_cast<int>(i);
  }
  return -1;
}

void release_on_interrupt(int slot) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= g_paths.size()) return;
  const std::lock_guard lock(g_slots_mutex);
  g_paths[static_cast<std::size_t>(slot)].owner = 0;
}

StopGroupOnInterrupt::StopGroupOnInterrupt() {
  {
    const std::lock_guard lock(g_slots_mutex);
    install_handlers();
  }
  sigset_t stops;
  sigemptyset(&stops);
  for (int signal : kStopSignals) sigaddset(&stops, signal);
  held_ = pthread_sigmask(SIG_BLOCK, &stops, &previous_mask_) == 0;
}

void StopGroupOnInterrupt::track(pid_t group) {
  if (group > 0) {
    const std::lock_guard lock(g_slots_mutex);
    for (std::size_t i = 0; i < g_groups.size(); ++i) {
      if (g_groups[i].owner != 0) continue;
      g_groups[i].group = group;
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the group is set before it is armed
      g_groups[i].owner = getpid();
      slot_ = static_cast<int>(i);
      break;
    }
    // Every slot taken (more concurrent launches than slots): this group is stopped by the
    // launch's own timeout only, and an interruption ends this process at once.
  }
  if (held_) pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  held_ = false;
}

StopGroupOnInterrupt::~StopGroupOnInterrupt() {
  if (held_) pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
  if (slot_ < 0) return;
  const std::lock_guard lock(g_slots_mutex);
  g_groups[static_cast<std::size_t>(slot_)].owner = 0;
}

int StopGroupOnInterrupt::interrupted() { return g_interrupted; }

void StopGroupOnInterrupt::exit_if_interrupted() {
  if (g_interrupted == 0) return;
  // Launches side by side (threads): the others' groups had SIGTERM too and are killed after their
  // grace period; exit once they are gone, not while a child still uses a registered path.
  const pid_t self = getpid();
  auto others_running = [self] {
    return std::any_of(g_groups.begin(), g_groups.end(), [self](const GroupSlot& g) { return g.owner == self; });
  };
  for (int waited = 0; waited < 150 && others_running(); ++waited) usleep(100000);
  remove_registered();
  _exit(128 + g_interrupted);
}

// (The paths are made in the bodies: slot_ is initialized after path_.)
ScratchDirectory::ScratchDirectory(const std::string& tag) {
  path_ = make_unique(fs::temp_directory_path(), "mpimon-" + tag + "-", Make::directory, slot_);
}

ScratchDirectory::ScratchDirectory(const fs::path& parent, const std::string& name) {
  path_ = make_unique(parent, name, Make::directory, slot_);
}

ScratchDirectory::ScratchDirectory(ScratchDirectory&& other) noexcept
    : path_(std::move(other.path_)), keep_(std::exchange(other.keep_, true)), slot_(std::exchange(other.slot_, -1)) {}

ScratchDirectory::~ScratchDirectory() {
  if (keep_) return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  release_on_interrupt(slot_);
}

void ScratchDirectory::keep() {
  keep_ = true;
  release_on_interrupt(slot_);
  slot_ = -1;
}

TemporaryFile::TemporaryFile(const std::string& tag) {
  path_ = make_unique(fs::temp_directory_path(), "mpimon-" + tag + "-", Make::file, slot_);
}

TemporaryFile::TemporaryFile(const fs::path& directory, const std::string& name) {
  path_ = make_unique(directory, name, Make::file, slot_);
}

TemporaryFile::TemporaryFile(TemporaryFile&& other) noexcept
    : path_(std::exchange(other.path_, {})), slot_(std::exchange(other.slot_, -1)) {}

TemporaryFile::~TemporaryFile() {
  std::error_code ignored;
  if (!path_.empty()) fs::remove(path_, ignored);
  release_on_interrupt(slot_);
}

void TemporaryFile::release() {
  release_on_interrupt(slot_);
  slot_ = -1;
  path_.clear();
}

std::string cannot_create_file_in(const fs::path& directory) {
  const std::string probe = try_make_unique(directory, ".mpimon-write-probe-", Make::file);
  if (probe.empty()) return std::strerror(errno);
  unlink(probe.c_str());
  return "";
}

}  // namespace mpimon
