#pragma once
// The launch loop of `mpimon bench overhead`, shared with `mpimon gate` (its timing measure):
// pairs of launches of mpimon-overhead-bench, arms in random order within each pair, every launch
// appended to an mpimon-overhead results file as it ends (docs/overhead.md).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "mpimon/harness/launch_pairs.hpp"

namespace mpimon::harness {

struct Sweep {
  HarnessSettings h;  ///< launcher, MCA settings, monitoring mode, seed, timeout, binding
  std::string ops, sizes, program, delay_library, output;
  std::string clock = "auto";  ///< mpimon-overhead-bench --clock: auto, tsc, monotonic
  /// pairs (one arm per launch), interleaved (one launch per pair switching the cost per block of
  /// `block` iterations, ABBA), or both (docs/overhead.md, "Designs").
  std::string design = "pairs";
  std::uint32_t block = 50;
  std::vector<std::uint32_t> nps;
  std::vector<std::string> transports, arms;
  /// VAR=VALUE exported to every launch, and to the monitored arms only (mpirun -x).
  std::vector<std::string> environment, on_environment;
  std::uint32_t pairs = 10, iterations = 1000, warmup = 100;
  /// Calibration instead of monitoring: a cost injected by libmpimon-pmpi-delay.so, as a time
  /// (converted to loops by the library) or as loops of its fixed instruction loop; not both.
  std::uint64_t calibrate_ns = 0, calibrate_loops = 0;
  /// The arm name of a calibration ("delay<NS>" or "loops<N>"), "" without calibration.
  [[nodiscard]] std::string calibration_arm() const;
  /// The arm of the interleaved launches: "interleaved-counting" (monitoring's counting through
  /// MPI_T) or "interleaved-" + calibration_arm().
  [[nodiscard]] std::string interleaved_arm() const;
  bool resume = false;
  /// Run every launch even when some fail (else the sweep stops at the first failure).
  bool keep_going = false;
  /// Where failed launches keep their logs ("": logs_directory(output)).
  std::string logs;
};

/// The sweep's provenance, recorded in the results file's /configuration.
std::map<std::string, std::string> configuration_of(const Sweep& s);

/// Creates s.output (or continues it with s.resume) and runs every launch not yet recorded,
/// printing a progress line per launch on stderr, prefixed with `name`. Stops at the first launch
/// that fails unless s.keep_going; the failed launches' logs are kept (FailedLaunches): the caller
/// ends with raise_if_any once it has said what succeeded.
[[nodiscard]] FailedLaunches run_sweep(const std::string& name, const Sweep& s);

}  // namespace mpimon::harness
