#pragma once
// What the launch-pair harnesses share (`mpimon bench overhead`, `mpimon bench app`): the arms'
// MCA settings, binding, the random arm order within each pair, the failure status of a launch,
// the provenance recorded with the results, and the progress lines.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "mpimon/base/scratch.hpp"
#include "mpimon/harness/launch.hpp"

namespace mpimon::harness {

/// Settings every launch of a sweep shares.
struct HarnessSettings {
  std::string launcher = "mpirun";
  std::vector<std::string> mca;  ///< KEY=VALUE added to every launch
  std::uint32_t monitoring_mode = 1;
  std::uint32_t seed = 1;
  int timeout = 600;
  std::string bind = "auto";  ///< auto, core, none, launcher (leave it to the launcher)
};

/// Throws a usage Error on an --mca that is not KEY=VALUE, or a
/// --bind that is not auto, core, none or launcher.
void check_harness_settings(const HarnessSettings& s);

/// Binding of an Open MPI launch: with "auto", --bind-to core when the processes fit the cores,
/// else --bind-to none --oversubscribe (oversubscribed timings are not meaningful; the command
/// line recorded with each launch says which). Other launchers bind as they are told.
void bind_processes(MpiLaunch& l, std::uint32_t np, const std::string& bind);
/// The "off" arm: the monitoring components are never opened (as Open MPI's test_overhead.sh),
/// except for a framework (pml, osc, coll) whose components the user's --mca settings choose.
void monitoring_off(MpiLaunch& l, const std::vector<std::string>& user_mca);
/// Monitoring in `mode`; with a `dump_prefix`, the dump at the end to DUMP_PREFIX.RANK.prof.
void monitoring_on(MpiLaunch& l, std::uint32_t mode, const std::string& dump_prefix);
/// The user's --mca KEY=VALUE settings, added after the arm's (so they can override them).
void user_mca(MpiLaunch& l, const std::vector<std::string>& mca);

/// The arms of one pair in the order drawn from `rng`.
std::vector<std::string> arm_order(const std::vector<std::string>& arms, std::mt19937_64& rng);

/// "" when the launch succeeded, else why not: "timeout after N s", "exit code N: LAST LINE".
std::string failure_status(const LaunchResult& r, int timeout);

/// A fresh directory for one launch's outputs (dumps, samples), with an empty prof/ in it; gone
/// at the end of its scope and on Ctrl-C.
ScratchDirectory launch_directory(const std::string& tag);

/// Provenance of a sweep: generator, launcher, mca, monitoring_mode, seed, bind, mpi_library
/// (the launcher's --version), host, cpus.
std::map<std::string, std::string> harness_configuration(const HarnessSettings& s);

std::string join(const std::vector<std::string>& items, const char* sep = ",");

/// The launches of a sweep that failed: each one's command line, status and whole output kept in
/// a log file of `directory` (created at the first failure), and the line that ends the sweep.
class FailedLaunches {
 public:
  explicit FailedLaunches(std::string directory) : directory_(std::move(directory)) {}
  /// Keeps one failed launch: DIRECTORY/WHAT.log (spaces in WHAT become '-').
  void add(const std::string& what, const std::string& command, const std::string& status, const std::string& output);
  /// Counts one launch run (failed or not).
  void ran() { ++launched_; }
  [[nodiscard]] std::size_t count() const { return count_; }
  /// Throws Error{launch} when a launch failed: "N of M launches run failed (...), the first:
  /// WHAT: STATUS; their logs: DIR", and `note` if any.
  void raise_if_any(const std::string& note = "") const;
  /// The sweep stopped at the first failure (it was not told --keep-going).
  bool stopped = false;

 private:
  std::string directory_, first_;  ///< first_: "WHAT: STATUS" of the first failure
  std::size_t count_ = 0, launched_ = 0;
};

/// Where the failed launches of a sweep writing `results_file` keep their logs: RESULTS.logs.
std::string logs_directory(const std::string& results_file);

/// The progress lines of a sweep: "[3/8] WHAT STATUS (2.1 s; about 12 s left)" on stderr.
class Progress {
 public:
  explicit Progress(std::size_t todo) : todo_(todo) {}
  void done(const std::string& what, const std::string& status, double seconds);

 private:
  std::size_t todo_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace mpimon::harness
