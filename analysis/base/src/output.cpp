// Output files written whole or not at all (output.hpp).

#include "mpimon/base/output.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "mpimon/base/error.hpp"

namespace mpimon {

namespace {

std::string checked(std::string path) {
  check_output_path(path);
  return path;
}

}  // namespace

AtomicOutput::AtomicOutput(std::string path)
    : path_(checked(std::move(path))),
      temporary_(std::filesystem::path(path_).parent_path(),
                 std::filesystem::path(path_).filename().string() + ".tmp-") {
  const mode_t mask = umask(0);  // mkstemp makes the file private; give it the usual permissions
  umask(mask);
  chmod(temporary_.path().c_str(), 0666 & ~mask);
}

void AtomicOutput::commit() {
  std::error_code ec;
  std::filesystem::rename(temporary_.path(), path_, ec);
  if (ec) raise_error(Error::Kind::system, path_, "cannot write: " + ec.message());
  temporary_.release();
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
