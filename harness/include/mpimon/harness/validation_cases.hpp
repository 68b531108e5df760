#pragma once
// The validation suite's cases, as one table (validation_cases.cpp): what program each case runs,
// with which arguments, process counts, modes and MCA parameters, what of the recording it
// compares with the ledgers, and which known defect (docs/defects.md) it pins.

#include <string>
#include <utility>
#include <vector>

#include "mpimon/checks/ledger_check.hpp"
#include "mpimon/models/defects.hpp"

namespace mpimon::harness {

// Every member has a default, so that a row of the table names only what it sets.
struct ValidationCase {
  std::string name{};  ///< e.g. "p2p", "rma.put.fence", "coll.gather"
  std::string description{};
  std::string program{};            ///< executable in the programs directory
  std::vector<std::string> args{};  ///< after the ledger prefix
  bool control = false;             ///< also run with --control and subtract its dump
  /// The program compares what it can read in-process (MPI_T variables) with its ledger itself and
  /// prints MISMATCH / UNSUPPORTED / CHECKED lines; those lines are the report.
  bool self_checking = false;
  std::vector<int> process_counts{};
  std::vector<int> modes{};  ///< pml_monitoring_enable values
  std::vector<std::pair<std::string, std::string>> mca{};
  LedgerCheck check{};
  std::string defect{};  ///< id in known_defects() when the case pins a defect
  /// When set, the ledger prefix is passed as this option's value (e.g. "--ledger") instead of as
  /// the program's first argument.
  std::string ledger_option{};
  /// The Open MPI series ("4.1", "5.0") on which the defect was seen (docs/defects.md); on the
  /// others the case must hold like any case. Filled from the defect table.
  std::vector<std::string> defect_present_on = {};
  /// The program flushes this many phases through MPI_T to LEDGER_PREFIX.phase_K.RANK.prof, with
  /// a ledger per phase: mpimon-merge must make one group per phase, each equal to its ledger.
  int flushed_phases = 0;
  /// "framework:component" the case needs (e.g. "osc:pt2pt", gone from Open MPI 5): the case is
  /// left out, and said so, where ompi_info does not list it.
  std::string required_component = "";
};

/// Every case, in a stable order.
const std::vector<ValidationCase>& validation_cases();

/// What a point-to-point case compares: E and its histograms exact, I empty (the workload calls no
/// collective).
LedgerCheck point_to_point_check();

}  // namespace mpimon::harness
