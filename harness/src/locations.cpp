// mpimon's own files, found from the running executable (harness/include/mpimon/harness/locations.hpp).

#include "mpimon/harness/locations.hpp"

#include <cstdlib>

#include "mpimon/base/error.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

fs::path executable_directory() { return fs::canonical("/proc/self/exe").parent_path(); }

std::vector<fs::path> program_directories(const fs::path& bin) {
  const fs::path prefix = bin.parent_path();
  // The install directories are relative to the prefix (GNUInstallDirs), so nothing of the
  // machine that built mpimon is compiled in.
  return {prefix / MPIMON_INSTALL_LIBEXECDIR / "mpimon",
          prefix / MPIMON_INSTALL_LIBDIR,
          prefix / "validation",
          prefix / "bench",
          prefix / "collect",
          prefix / "reorder",
          prefix / "smpi"};
}

std::string own_file(const std::string& name, const fs::path& bin) {
  const auto dirs = program_directories(bin);
  for (const auto& dir : dirs) {
    if (fs::exists(dir / name)) return (dir / name).string();
  }
  return (dirs.front() / name).string();
}

std::string own_file(const std::string& name) { return own_file(name, executable_directory()); }

std::string own_library(const std::string& name, const std::string& variable) {
  if (const char* env = std::getenv(variable.c_str()); env && *env) {
    if (!fs::exists(env)) throw Error(Error::Kind::input, std::string(env) + " (" + variable + "): no such file");
    return fs::absolute(env).string();
  }
  const std::string library = own_file(name);
  if (fs::exists(library)) return library;
  throw Error(Error::Kind::input, library + ": not found (set " + variable + " to " + name + "'s path)");
}

fs::path data_directory() { return executable_directory().parent_path() / MPIMON_INSTALL_DATADIR / "mpimon"; }

std::string data_file(const std::string& relative) { return (data_directory() / relative).string(); }

std::string programs_directory() {
  if (const char* env = std::getenv("MPIMON_PROGRAMS_DIR"); env != nullptr && *env != '\0') return env;
  return fs::path(own_file("mpimon-p2p-ledger")).parent_path().string();
}

}  // namespace mpimon::harness
