#pragma once
// The validation suite behind `mpimon validate`: cases (validation_cases.hpp) that run a
// ledger-keeping MPI program under monitoring, launched here, whose recording the judge
// (validation_judge.hpp) compares with what the program sent.

#include <filesystem>
#include <string>
#include <vector>

#include "mpimon/harness/validation_cases.hpp"
#include "mpimon/harness/validation_judge.hpp"

namespace mpimon::harness {

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

/// A flushed dump `file` without its communicator records whose members are not ranks (a D line
/// such as "procs: (null)", and its O2A, A2O and A2A lines): each is reported as "WHERE flushed a
/// record of communicator NAME whose members are not ranks: LIST", and the rest, which mpimon-merge
/// can read, is written to a copy in `dir` whose path is returned (`file` itself when nothing was
/// dropped). Open MPI 5.0.7 flushes a freed communicator's record so (flush-after-comm-free).
std::string without_unranked_records(const std::string& file, const std::filesystem::path& dir,
                                     const std::string& where, std::vector<std::string>& report);

/// Runs one case at one process count and monitoring mode, and judges the run.
CaseResult run_case(const ValidationCase& c, int np, int mode, const SuiteOptions& options);

}  // namespace mpimon::harness
