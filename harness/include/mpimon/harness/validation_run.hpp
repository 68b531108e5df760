#pragma once
// `mpimon validate`'s selection of runs (cases x process counts x modes, leaving out cases whose
// component the library lacks), the Open MPI series whose defects are expected, and what it writes:
// CTest registrations and the JSON report (docs/validation.md).

#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/harness/validation_suite.hpp"

namespace mpimon::harness {

struct Selection {
  const ValidationCase* c;
  int np, mode;
  /// Why the run is left out ("needs osc:pt2pt, which ompi_info does not list"); empty when it runs.
  std::string left_out = "";
};

/// The components ompi_info lists: "framework:component" -> the component's version (empty when
/// ompi_info cannot be run). Asked once: it takes a second or two.
const std::map<std::string, std::string>& installed_components();

/// The components, asked only when a selected case needs one (installed_components in mpimon).
using ComponentsProbe = std::function<const std::map<std::string, std::string>&()>;

/// The runs of the cases matching any glob of `patterns` (all when empty), at `nps` and `modes`
/// (each case's own when empty). The runs of a case needing a component that `components()` lacks
/// are kept with the reason in `left_out` (reported "not checked", never dropped); with no components
/// known at all, every case runs. A usage Error naming a pattern that matches no case.
std::vector<Selection> select_cases(const std::vector<std::string>& patterns, const std::vector<int>& nps,
                                    const std::vector<int>& modes, const ComponentsProbe& components);

/// "validation.CASE.modeM.npN".
std::string test_name(const Selection& s);

/// CTest registrations (read at test time through TEST_INCLUDE_FILES): one test per run, running
/// `self validate` on it with the programs of `programs` (a run left out there is a skip with its
/// reason, exit 77, which the CI's list of expected skips must name); HDF5's error stack in its
/// output fails it, as every test of the project (cmake/test_guard.cmake).
void write_ctest_script(std::ostream& out, const std::vector<Selection>& selection, const std::string& self,
                        const std::string& programs);

/// The Open MPI series whose defects are expected: the launcher's, else the library's
/// (ompi_info), else the newest established one.
std::string mpi_series_of(const std::string& launcher);

/// "pml/monitoring 4.1.4", ... from `components` (ompi_info's).
std::vector<std::string> monitoring_components(const std::map<std::string, std::string>& components);

/// The JSON report: provenance (generator, library, series, components, launcher) and every run.
void write_validation_json(std::ostream& out, const std::vector<std::pair<Selection, CaseResult>>& results,
                           const SuiteOptions& options, const std::string& mpi_library,
                           const std::vector<std::string>& components);

}  // namespace mpimon::harness
