// Scratch directories and the clean-up registry (scratch.hpp).

#include "mpimon/scratch.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "mpimon/error.hpp"

namespace mpimon {

namespace fs = std::filesystem;

namespace {

struct Slot {
  volatile std::sig_atomic_t armed = 0;
  char path[4096] = {};
};
std::array<Slot, 32> g_slots;
std::mutex g_slots_mutex;  // add and release only; the handler reads armed slots

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

extern "C" void remove_registered_and_exit(int signal) {
  for (auto& slot : g_slots) {
    if (slot.armed) remove_tree(AT_FDCWD, slot.path, 0);
  }
  _exit(128 + signal);
}

void install_handlers() {
  struct sigaction action {};
  action.sa_handler = remove_registered_and_exit;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction previous {};
    sigaction(signal, nullptr, &previous);
    if (previous.sa_handler != SIG_IGN) sigaction(signal, &action, nullptr);  // nohup stays nohup
  }
}

}  // namespace

int remove_on_interrupt_slot(const std::string& path) {
  const std::string absolute = fs::absolute(path).string();  // the handler may run in another directory
  if (absolute.size() >= sizeof g_slots[0].path) return -1;
  const std::lock_guard lock(g_slots_mutex);
  static const bool installed = (install_handlers(), true);
  (void)installed;
  for (std::size_t i = 0; i < g_slots.size(); ++i) {
    if (g_slots[i].armed) continue;
    std::memcpy(g_slots[i].path, absolute.c_str(), absolute.size() + 1);
    std::atomic_signal_fence(std::memory_order_seq_cst);  // the path is complete before it is armed
    g_slots[i].armed = 1;
    return static_cast<int>(i);
  }
  return -1;
}

void release_on_interrupt(int slot) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= g_slots.size()) return;
  const std::lock_guard lock(g_slots_mutex);
  g_slots[static_cast<std::size_t>(slot)].armed = 0;
}

ScratchDirectory::ScratchDirectory(const std::string& tag, bool keep) : keep_(keep) {
  std::string pattern = (fs::temp_directory_path() / ("mpimon-" + tag + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) {
    raise_error(Error::Kind::system, pattern, std::string("cannot create a directory: ") + std::strerror(errno));
  }
  path_ = pattern;
  if (!keep_) slot_ = remove_on_interrupt_slot(path_.string());
}

ScratchDirectory::~ScratchDirectory() {
  if (keep_) return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  release_on_interrupt(slot_);
}

}  // namespace mpimon
