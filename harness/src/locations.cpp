// mpimon's own files, found from the running executable (harness/include/mpimon/harness/locations.hpp).

#include "mpimon/harness/locations.hpp"

#include <cstdlib>

namespace mpimon::harness {

namespace fs = std::filesystem;

fs::path executable_directory() { return fs::canonical("/proc/self/exe").parent_path(); }

std::vector<fs::path> program_directories(const fs::path& bin) {
  const fs::path prefix = bin.parent_path();
  // The install directories are relative to the prefix (GNUInstallDirs), so nothing of the
  // machine that built mpimon is compiled in.
  return {prefix / MPIMON_INSTALL_LIBEXECDIR / "mpimon", prefix / MPIMON_INSTALL_LIBDIR, prefix / "validation",
          prefix / "bench", prefix / "collect"};
}

std::string own_file(const std::string& name, const fs::path& bin) {
  const auto dirs = program_directories(bin);
  for (const auto& dir : dirs) {
    if (fs::exists(dir / name)) return (dir / name).string();
  }
  return (dirs.front() / name).string();
}

std::string own_file(const std::string& name) { return own_file(name, executable_directory()); }

fs::path data_directory() { return executable_directory().parent_path() / MPIMON_INSTALL_DATADIR / "mpimon"; }

std::string data_file(const std::string& relative) { return (data_directory() / relative).string(); }

std::string programs_directory() {
  if (const char* env = std::getenv("MPIMON_PROGRAMS_DIR"); env != nullptr && *env != '\0') return env;
  return fs::path(own_file("mpimon-p2p-ledger")).parent_path().string();
}

}  // namespace mpimon::harness
