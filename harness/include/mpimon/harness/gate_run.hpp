#pragma once
// The launches and the decision flow of `mpimon gate` (docs/gate.md): the callgrind probe runs,
// the paired timing sweep and its confirmation, the baseline's provenance, and the verdicts
// against a baseline. The measures and verdicts themselves are the analysis library's (gate.hpp).

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/overhead_sweep.hpp"
#include "mpimon/results/gate.hpp"

namespace mpimon::harness {

struct GateSettings {
  std::string baseline = "results/gate/baseline.json", json = "gate-report.json", junit = "gate-report.xml";
  std::string measure = "both", launcher = "mpirun", valgrind = "valgrind", probe, work_dir;
  std::vector<std::string> mca, environment, on_environment;
  std::string accept;  ///< comma-separated: rerecord, missing, unstable
  bool update = false;
  int timeout = 900;
  std::uint32_t monitoring_mode = 1;
  // instructions
  std::string probe_ops = "send,put,get,bcast,allreduce,alltoall";
  std::uint32_t count = 100, size = 8, runs = 2;
  double tolerance = 0;  // counts are deterministic: the smallest added cost (2 instructions) must fail
  // timing
  Sweep sweep;
  double alpha = 0.05;
  TimingMargin margin;
  bool confirm = true;
};

/// Checks the settings' values; a usage Error naming the option otherwise.
void check_gate_settings(const GateSettings& g);

/// --accept's list; a usage Error for an unknown item.
std::set<mpimon::Verdict> accepted_verdicts(const std::string& list);

/// What to do for an exit code that is not a regression (empty for the others).
std::string advice_for(int code);

/// The probe's launch: rank 0 under callgrind writing to OUT_FILE, rank 1 native (an MPMD line).
MpiLaunch probe_launch(const GateSettings& g, const std::filesystem::path& out_file);

struct InstructionMeasure {
  InstructionBaseline now;
  bool stable = true;  ///< every run counted the same
};
/// g.runs callgrind runs of the probe in DIR.
InstructionMeasure measure_instructions(const GateSettings& g, const std::filesystem::path& dir);

/// The timing sweep of `s` into OUTPUT: the cells of the monitored arm.
std::vector<TimingCell> measure_timing(const std::string& name, Sweep s, const std::filesystem::path& output);

/// The machine a timing baseline holds (a baseline from another one is not judged).
std::map<std::string, std::string> gate_machine(const GateSettings& g);
/// How the timing cells were measured and summarised.
std::map<std::string, std::string> gate_timing_settings(const GateSettings& g);
/// The provenance of a baseline and of a report.
std::map<std::string, std::string> gate_provenance(const GateSettings& g);

/// The build keys whose values differ between a baseline and now ("key 'then' now 'now'; ...").
std::string build_differences(const std::map<std::string, std::string>& baseline,
                              const std::map<std::string, std::string>& now);

/// The confirmation: a regression of `first` stays one only when `second` (the re-run cells,
/// judged on their own) finds it too; otherwise it becomes inconclusive, "not confirmed".
void apply_confirmation(std::vector<TimingVerdict>& first, const std::vector<TimingVerdict>& second);

/// The sweep that re-runs the regressed cells of `verdicts` with fresh pairs (another seed);
/// nothing when none regressed.
std::optional<Sweep> confirmation_sweep(const Sweep& s, const std::vector<TimingVerdict>& verdicts);

/// The whole gate: measures, then records the baseline (g.update: the report holds the measured
/// counts only) or judges against it; writes nothing but the work directory and, with g.update,
/// the baseline.
GateReport run_gate(const std::string& name, const GateSettings& g);

}  // namespace mpimon::harness
