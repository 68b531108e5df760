#pragma once
// The validation suite behind `mpimon validate`: cases that run a ledger-keeping MPI program
// under monitoring and compare what Open MPI recorded with what the program sent.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/models/defects.hpp"
#include "mpimon/models/ledger.hpp"

namespace mpimon::harness {

struct ValidationCase {
  std::string name;  ///< e.g. "p2p", "rma.put.fence", "coll.gather"
  std::string description;
  std::string program;            ///< executable in the programs directory
  std::vector<std::string> args;  ///< after the ledger prefix
  bool control = false;           ///< also run with --control and subtract its dump
  /// The program compares what it can read in-process (MPI_T variables) with its ledger itself and
  /// prints MISMATCH / UNSUPPORTED / CHECKED lines; those lines are the report.
  bool self_checking = false;
  std::vector<int> process_counts;
  std::vector<int> modes;  ///< pml_monitoring_enable values
  std::vector<std::pair<std::string, std::string>> mca;
  LedgerCheck check;
  std::string defect;  ///< id in known_defects() when the case pins a defect
  /// When set, the ledger prefix is passed as this option's value (e.g. "--ledger") instead of as
  /// the program's first argument.
  std::string ledger_option{};
  /// The Open MPI series ("4.1", "5.0") on which the defect was seen (docs/defects.md); on the
  /// others the case must hold like any case.
  std::vector<std::string> defect_present_on = {};
  /// The program flushes this many phases through MPI_T to LEDGER_PREFIX.phase_K.RANK.prof, with
  /// a ledger per phase: mpimon-merge must make one group per phase, each equal to its ledger.
  int flushed_phases = 0;
  /// "framework:component" the case needs (e.g. "osc:pt2pt", gone from Open MPI 5): the case is
  /// left out, and said so, where ompi_info does not list it.
  std::string required_component = "";
};

/// The Open MPI series the suite has been run on; the expectations of the defects are set for these.
const std::vector<std::string>& established_series();
/// Whether the case's pinned defect is expected on this series ("" when unknown: the newest
/// established one's expectation).
bool defect_expected(const ValidationCase& c, const std::string& series);

/// Every case, in a stable order.
const std::vector<ValidationCase>& validation_cases();

/// unreachable: the MPI library cannot reach what the case tests (the MPI_T flush on Open MPI 4.1),
/// so nothing was checked; a verdict of its own, neither exact nor a failure.
enum class Outcome { holds, fails, defect_present, defect_fixed, error, unreachable };
const char* outcome_name(Outcome o);
/// holds, defect_present and unreachable are what is expected; the others fail the suite.
bool outcome_expected(Outcome o);

struct CaseResult {
  std::string name;
  int np = 0, mode = 0;
  Outcome outcome = Outcome::error;
  std::string summary;               ///< one line for the table
  std::vector<std::string> details;  ///< every mismatch, or the error output
  std::string defect;
  double seconds = 0;
};

struct SuiteOptions {
  std::string launcher = "mpirun";
  std::string programs_dir;
  std::string work_dir;  ///< where runs go (a temporary directory when empty, removed after)
  int timeout_seconds = 120;
  std::string mpi_series;  ///< "4.1", "5.0": selects the defects expected (launcher_version_line)
};

struct Verdict {
  Outcome outcome = Outcome::error;
  std::string summary;
  std::vector<std::string> details;
};

/// The lines a defect's `exact_report` rule (or a `crash_or_report` run that survived) expects of
/// a run at `np` processes: an
/// expected line holding `{rank}` and/or `{peer}` stands for one line per rank and/or peer (each
/// substituted by 0 to np - 1); the others are taken as they are.
std::vector<std::string> expected_lines_at(const KnownDefect& d, int np);

/// The differences between a self-checking program's report (or the list of a run's differences
/// from its ledgers) and the lines a defect's `exact_report` rule expects at `np` processes:
/// "missing: ..." for an expected line no report line matches, "unexpected: ..." for a report line
/// no expected line matches.
std::vector<std::string> differences_from_expected_lines(const KnownDefect& d, const std::vector<std::string>& report,
                                                         int np = 0);

/// A flushed dump `file` without its communicator records whose members are not ranks (a D line
/// such as "procs: (null)", and its O2A, A2O and A2A lines): each is reported as "WHERE flushed a
/// record of communicator NAME whose members are not ranks: LIST", and the rest, which mpimon-merge
/// can read, is written to a copy in `dir` whose path is returned (`file` itself when nothing was
/// dropped). Open MPI 5.0.7 flushes a freed communicator's record so (flush-after-comm-free).
std::string without_unranked_records(const std::string& file, const std::filesystem::path& dir,
                                     const std::string& where, std::vector<std::string>& report);

/// The differences between a failed run and the model of a `crash`, `crash_or_report` or `refused`
/// defect: its output shows every one of the defect's expected lines; for the crashes, it is a segmentation fault that
/// the unmonitored run (`control_failure`, empty when that run succeeded) does not show; for
/// `refused`, the unmonitored run succeeded.
std::vector<std::string> differences_from_failure(const KnownDefect& d, const std::string& failure,
                                                  const std::string& control_failure);

/// The verdict of a case pinning defect `d`. `against_ideal`: the differences between the run and
/// the correct behaviour (the ideal ledger); `against_defect`: between the run and the defect's
/// model (the ledger transformed by its rule). Where the defect is expected (`expected_here`), the
/// case shows it only when the run equals the model exactly; equal to the ideal is DEFECT FIXED;
/// anything else fails with both differences. Where it is not expected, the case must be ideal.
Verdict judge_pinned(const KnownDefect& d, bool expected_here, const std::string& series,
                     const std::vector<std::string>& against_ideal, const std::vector<std::string>& against_defect);

/// The verdict of what a run of case `c` recorded (its dumps merged, minus the control run's)
/// against the ledgers of its ranks: equal for a case pinning nothing; for a case pinning a
/// `ledger_transform` defect, `judge_pinned` against the ideal ledgers and their transform.
Verdict judge_recording(const ValidationCase& c, const std::string& series, const RecordedTraffic& recorded,
                        const std::vector<Ledger>& ledgers);

/// Runs one case at one process count and monitoring mode.
CaseResult run_case(const ValidationCase& c, int np, int mode, const SuiteOptions& options);

}  // namespace mpimon::harness
