#pragma once
// Where mpimon finds its own programs, libraries and data: relative to the running executable
// (/proc/self/exe), never through a path compiled in, so the build tree and an installed prefix
// (moved anywhere, or unpacked from the Debian package) work alike.
//
// With PREFIX the parent of the executable's directory (PREFIX/bin/mpimon installed,
// BUILD/cli/mpimon in a build tree), a file NAME is looked up in
//   PREFIX/libexec/mpimon   programs mpimon launches and the libraries it preloads (installed)
//   PREFIX/LIBDIR           libmpimon-collect.so, libmpimon-reorder.so (installed)
//   PREFIX/validation, PREFIX/bench, PREFIX/collect, PREFIX/reorder, PREFIX/smpi   the same files in a build tree
// and a data file (plotting scripts, the report's assets, defects.md) in PREFIX/share/mpimon, which
// the build stages in the build tree as install does in the prefix.

#include <filesystem>
#include <string>
#include <vector>

namespace mpimon::harness {

/// The directory holding the running executable.
std::filesystem::path executable_directory();

/// The directories where own_file() looks, in order, for an executable in directory BIN.
std::vector<std::filesystem::path> program_directories(const std::filesystem::path& bin);

/// mpimon's program or library NAME: the first existing file of program_directories(); when none
/// exists, the first candidate (so that --help shows where it belongs and a launch names it).
std::string own_file(const std::string& name);

/// Like own_file(), from the executable directory BIN (for tests).
std::string own_file(const std::string& name, const std::filesystem::path& bin);

/// A library mpimon preloads into applications (libmpimon-collect.so, libmpimon-reorder.so): the
/// path in the environment variable `variable` when it is set (the file must exist), else
/// own_file(name); throws an input Error naming the variable when neither exists.
std::string own_library(const std::string& name, const std::string& variable);

/// The directory of mpimon's data (PREFIX/share/mpimon).
std::filesystem::path data_directory();

/// The data file RELATIVE (e.g. "scripts/plot_heatmaps.py") in data_directory().
std::string data_file(const std::string& relative);

/// The directory holding the validation programs: $MPIMON_PROGRAMS_DIR when set, else the
/// directory own_file() finds mpimon-p2p-ledger in.
std::string programs_directory();

}  // namespace mpimon::harness
