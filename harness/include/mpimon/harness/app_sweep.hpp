#pragma once
// The application harness of `mpimon bench app` and `mpimon bench placement`: pairs of launches of
// an application (a built-in workload or any MPI command), one per arm in random order within each
// pair (monitoring off and on; or two rankfiles, monitoring off), each launch appended to an
// application results file as it ends (docs/apps.md, docs/placement.md).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mpimon/harness/launch_pairs.hpp"
#include "mpimon/results/apps.hpp"

namespace mpimon::harness {

/// One application of the sweep: its label and the program line that runs it.
struct App {
  std::string label;
  std::vector<std::string> argv;  ///< program and arguments (after the launcher's)
  bool workload = false;          ///< a built-in workload: time and comm share from its report
  bool square_np = false;         ///< runs only on a square number of processes (bt)
};

/// One arm of the pairs: its name (the launch keys' arm) and what its launches add.
struct Arm {
  std::string name;
  bool monitoring = false;                    ///< monitoring on, its dumps merged; else off
  std::vector<std::string> launcher_options;  ///< e.g. --rankfile FILE --report-bindings
  std::string description;                    ///< provenance: what the arm is (a rankfile: its text)
  std::vector<std::pair<std::string, std::string>> environment{};  ///< exported to the ranks
  /// libmpimon-reorder's statistics of each launch kept with it (MPIMON_REORDER_STATS into the
  /// launch's directory, read back into the record's reorder_stats).
  bool reorder_statistics = false;
};

/// `bench app`'s arms: monitoring off (the base of the comparison), then on.
std::vector<Arm> monitoring_arms();
/// `bench app --preload LIB`: monitoring on in both arms, LIB preloaded into the ranks of the
/// second (what a library such as libmpimon-collect.so costs a monitored run). Throws an input
/// Error when LIB is not a file.
std::vector<Arm> preload_arms(const std::string& library);

/// `bench placement`'s arms: A and B, the processes placed by `rankfile_a` and `rankfile_b`
/// (`--rankfile FILE`, absolute, with --report-bindings so that each launch records where its
/// ranks ran), monitoring off in both. Throws mpimon::Error: input, naming the file, when one
/// cannot be read or has no `rank R=` line for some rank below `np`; usage when the two files
/// hold the same text or `launcher` is not Open MPI's (mpirun, mpiexec).
std::vector<Arm> rankfile_arms(const std::string& rankfile_a, const std::string& rankfile_b, std::uint32_t np,
                               const std::string& launcher);

/// A placement `bench placement --arm` compares that is not a rankfile: the launcher's own, and
/// what moves ranks inside the run (docs/reorder.md). One entry each; the help and errors read it.
struct PlacementKind {
  const char* name;
  const char* summary;
  void (*add_to)(Arm& arm);  ///< what a launch of the arm adds: launcher options, variables of the ranks
};
const std::vector<PlacementKind>& placement_kinds();
/// "launcher, reorder, ..." for help and errors.
std::string placement_kind_names();

/// `bench placement`'s arms A and B from `--arm` values, in order: a kind of placement_kinds() or
/// `rankfile:FILE` (as --rankfile FILE). Throws mpimon::Error: usage for an unknown kind, two arms
/// that are the same, or a launcher that is not Open MPI's; input for a rankfile as rankfile_arms.
std::vector<Arm> placement_arms(const std::vector<std::string>& specs, std::uint32_t np, const std::string& launcher);

/// The lines of a launch's output in which the launcher reports a rank's binding
/// (`--report-bindings`: Open MPI 4.1 "MCW rank 0 bound to ...", 5.0 "Rank 0 bound to ...",
/// or "... is not bound"), joined by newlines; "" when there are none.
std::string binding_lines(const std::string& output);

struct AppSweep {
  HarnessSettings h;
  std::vector<Arm> arms = monitoring_arms();
  std::vector<App> apps;
  std::vector<std::uint32_t> nps;
  std::uint32_t pairs = 10;
  std::string output, csv, workdir;
  /// A command's own reported time (a regular expression, its first group the seconds) instead of
  /// the wall time of its launch; "" for the wall time.
  std::string time_regex;
  bool resume = false;
  /// Run every launch even when some fail (else the sweep stops at the first failure).
  bool keep_going = false;
};

/// Whether n is a perfect square (bt runs only on square process counts).
bool is_square(std::uint32_t n);

/// This build's mpimon-workload, or "mpimon-workload" to be looked up in PATH.
std::string default_workload_program();

/// The built-in workloads the options name: one per workload and class, and for the stencil one
/// per compute value. Throws a usage Error on an unknown workload.
std::vector<App> workload_apps(const std::string& program, const std::vector<std::string>& workloads,
                               const std::vector<std::string>& classes, const std::vector<std::string>& common,
                               const std::vector<std::string>& stencil, const std::vector<std::string>& computes);

/// The sweep's provenance, recorded in the results file's /configuration.
std::map<std::string, std::string> configuration_of(const AppSweep& s);

struct Planned {
  const App* app;
  AppLaunchKey key;
  std::uint32_t position;
};

/// Every launch of the sweep, arms shuffled within each pair from the seed.
std::vector<Planned> plan(const AppSweep& s);
/// A usage error when the sweep plans no launch, naming the applications that need a square number
/// of processes (the usual cause: --np without one).
void check_launches_planned(const AppSweep& s);

/// Runs the planned launches not yet in `results`; stops at the first that fails (a configuration
/// that fails once fails every time; --resume retries) unless s.keep_going. Returns the failed
/// launches, their logs kept in logs_directory(s.output).
[[nodiscard]] FailedLaunches run_sweep(const AppSweep& s, AppResults& results, const std::string& name);

struct AppSweepRun {
  std::vector<AppLaunchRecord> launches;
  FailedLaunches failed;
  ArmPair arms;                                      ///< the sweep's two arms, base first
  std::vector<AppRow> rows;                          ///< their paired analysis, as written
  std::map<std::string, std::string> configuration;  ///< the results file's
};

/// The whole sweep on its results file s.output: created (an existing file needs s.resume, and
/// then the same arms), the launches not yet done run, every launch returned, and the paired
/// analysis of its two arms written to the file (rows in the order of its applications). A sweep stopped at a
/// failed launch throws Error{launch} (FailedLaunches::raise_if_any), and a new file in which no
/// launch succeeded is removed; with s.keep_going the failures are returned, for the caller to
/// raise once it has said what succeeded.
AppSweepRun run_app_sweep(const AppSweep& s, const std::string& name);

}  // namespace mpimon::harness
