#pragma once
// `mpimon collect`: runs an MPI application with monitoring on and libmpimon-collect.so preloaded,
// which writes one mpimon-matrices file, one group per phase (docs/collect.md).

#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/harness/launch.hpp"

namespace mpimon::harness {

struct CollectSettings {
  std::string output;
  std::uint32_t np = 2;
  std::string launcher = "mpirun";
  std::vector<std::string> mca;  ///< KEY=VALUE
  std::uint32_t mode = 1;        ///< pml_monitoring_enable
  bool refuse_missing = false;   ///< refuse to run when the MPI library cannot deliver a class
  std::string library;           ///< libmpimon-collect.so; "" finds it next to this program
  std::vector<std::string> command;
};

struct CollectResult {
  LaunchResult launch;
  std::string command_line;  ///< the launch line, environment first
  bool written = false;      ///< the output file was written (and renamed into place)
};

/// Throws a usage Error on settings that cannot run (no command, no output, bad --mca or --mode).
void check_collect_settings(const CollectSettings& s);

/// Where libmpimon-collect.so is: $MPIMON_COLLECT_LIBRARY, else next to the running program in the
/// build tree (../collect/) or the install tree (../lib/); throws an input Error if none exists.
std::string find_collect_library();

/// Runs the application. The library writes to a temporary name next to the output, renamed into
/// place only when the run succeeded; the node-local directory for the flushed dumps is made
/// here and removed afterwards, whatever happened to the application.
CollectResult run_collect(const CollectSettings& s);

}  // namespace mpimon::harness
