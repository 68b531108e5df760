#pragma once
// The runs of `mpimon validate collective` (docs/collectives.md): one collective with a forced
// coll/tuned algorithm under mpirun with monitoring, and a control run doing everything but the
// collective, in a scratch directory gone afterwards (even after Ctrl-C); what the monitoring
// recorded for the collective alone, and the verdicts against the model.

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/validation_suite.hpp"
#include "mpimon/models/collective_model.hpp"

namespace mpimon::harness {

/// What the control run (the program doing everything but the collective) is for.
enum class ControlRun {
  subtract,      ///< run it and subtract its traffic from the measured run's (the default)
  assume_empty,  ///< do not run it: its traffic is taken as zero (the sweep, whose baseline checks prove it)
  only,          ///< run only it: the recording is its traffic, which must be empty
};

struct CollectiveRun {
  std::string launcher = "mpirun";
  ControlRun control = ControlRun::subtract;
  std::string program;  ///< mpimon-run-collective
  int timeout_seconds = 120;
  bool force_oversubscribe = false;
  bool keep = false;  ///< keep the dumps' directory
  bool verbose = false;
};

/// Physical cores (distinct package/core pairs), which is what Open MPI counts as slots.
unsigned physical_cores();

/// Whether COMMAND is an executable: a path, or a name found in $PATH.
bool found_in_path(const std::string& command);

/// The MCA settings that force the spec's algorithm and dump the monitoring into DUMP.
std::vector<std::pair<std::string, std::string>> collective_mca(const CollectiveSpec& spec, const std::string& dump);

/// The launch of the measured run, or of the control run (`--skip`: everything but the collective).
MpiLaunch collective_launch(const CollectiveSpec& spec, const CollectiveRun& run, const std::string& dump,
                            bool control);

/// "bcast binomial, 4 processes, root 0, 8 x 4 B, mode 1".
std::string describe(const CollectiveSpec& spec);

/// One line per differing edge ("E 0->1: predicted 8 B in 1 msgs, recorded 0 B in 0 msgs").
std::vector<std::string> difference_lines(const std::vector<EdgeDifference>& differences);

struct CollectiveRecording {
  EdgeTraffic recorded;  ///< point-to-point (E and I) of the measured run minus the control's
  MpiLaunch measured;    ///< to reproduce it
  std::string kept;      ///< the dumps' directory with run.keep, else empty
};

/// Checks the launcher and the program, runs the control and the measured runs (as `run.control`
/// says), reads their dumps. Errors name the launch and its last output.
CollectiveRecording record_collective(const CollectiveSpec& spec, const CollectiveRun& run);

/// The verdict of a check pinning DEFECT (a defect of the collective model): the recording must
/// equal the model with the defect exactly; equal to the model of a correct monitoring is DEFECT
/// FIXED. A usage Error when DEFECT is not one of the collective model.
Verdict judge_pinned_collective(const std::string& defect, CollectiveSpec spec, const EdgeTraffic& recorded,
                                const std::string& launcher);

}  // namespace mpimon::harness
