// Output files written whole or not at all (output.hpp).

#include "mpimon/output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "mpimon/error.hpp"
#include "mpimon/scratch.hpp"

namespace mpimon {

namespace {
int g_single_slot = -1;
}  // namespace

void remove_on_interrupt(const std::string& path) {
  release_on_interrupt(g_single_slot);
  g_single_slot = path.empty() ? -1 : remove_on_interrupt_slot(path);
}

AtomicOutput::AtomicOutput(std::string path) : path_(std::move(path)) {
  check_output_path(path_);
  temporary_ = path_ + ".tmp-XXXXXX";
  int fd = mkstemp(temporary_.data());
  if (fd < 0)
    raise_error(Error::Kind::system, path_, std::string("cannot create a file here: ") + std::strerror(errno));
  const mode_t mask = umask(0);  // mkstemp makes the file private; give it the usual permissions
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  slot_ = remove_on_interrupt_slot(temporary_);
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) {
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
  }
  release_on_interrupt(slot_);
}

void AtomicOutput::commit() {
  std::error_code ec;
  std::filesystem::rename(temporary_, path_, ec);
  if (ec) raise_error(Error::Kind::system, path_, "cannot write: " + ec.message());
  committed_ = true;
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& writer) {
  AtomicOutput out(path);
  {
    std::ofstream stream(out.temporary(), std::ios::binary | std::ios::trunc);
    writer(stream);
    if (!stream.flush()) raise_error(Error::Kind::system, path, "write error");
  }
  out.commit();
}

}  // namespace mpimon
