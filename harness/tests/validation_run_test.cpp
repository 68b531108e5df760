// Unit tests of `mpimon validate`'s selection and reports (validation_run.hpp), without mpirun:
// globs, the components probe, the CTest registrations and the JSON report.

#include "mpimon/harness/validation_run.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "harness_test_util.hpp"

namespace mpimon::harness {
namespace {

using Components = std::map<std::string, std::string>;

ComponentsProbe probe_of(const Components& components, int& calls) {
  return [&components, &calls]() -> const Components& {
    ++calls;
    return components;
  };
}

TEST(ValidationRun, GlobsProcessCountsAndModes) {
  const Components none;
  int calls = 0;
  const auto s = select_cases({"p2p"}, {2, 3}, {1}, probe_of(none, calls));
  ASSERT_EQ(s.size(), 2U);
  EXPECT_EQ(test_name(s[0]), "validation.p2p.mode1.np2");
  EXPECT_EQ(test_name(s[1]), "validation.p2p.mode1.np3");
  EXPECT_EQ(calls, 0);  // p2p needs no component: ompi_info is not asked
  // Each case's own counts and modes: p2p runs at np 1 to 4 and modes 1 and 2 (validation_cases.cpp).
  EXPECT_EQ(select_cases({"p2p"}, {}, {}, probe_of(none, calls)).size(), 8U);
}

TEST(ValidationRun, ACaseWhoseComponentIsNotListedIsKeptAsLeftOutWithItsReason) {
  const Components listed{{"pml:monitoring", "4.1.4"}, {"osc:rdma", "4.1.4"}};
  int calls = 0;
  const auto s = select_cases({"rma.*.put.fence"}, {3}, {2}, probe_of(listed, calls));
  ASSERT_EQ(s.size(), 2U);
  EXPECT_EQ(s[0].c->name, "rma.rdma.put.fence");
  EXPECT_EQ(s[0].left_out, "");
  EXPECT_EQ(s[1].c->name, "rma.pt2pt.put.fence");
  EXPECT_EQ(s[1].left_out, "needs osc:pt2pt, which ompi_info does not list");
  EXPECT_EQ(test_name(s[1]), "validation.rma.pt2pt.put.fence.mode2.np3");
  EXPECT_GT(calls, 0);
  // Without ompi_info's answer, every case runs (its failure then says what is wrong).
  const Components none;
  const auto all = select_cases({"rma.*.put.fence"}, {3}, {2}, probe_of(none, calls));
  ASSERT_EQ(all.size(), 2U);
  EXPECT_EQ(all[1].left_out, "");
}

TEST(ValidationRun, APatternMatchingNoCaseIsAUsageErrorNamingIt) {
  const Components none;
  int calls = 0;
  EXPECT_EQ(test::error_of([&] { select_cases({"nothing*"}, {}, {}, probe_of(none, calls)); }),
            "--case 'nothing*' matches no validation case (see --list)");
  // One pattern matching nothing among others that match is an error too: its cases are not lost.
  EXPECT_EQ(test::error_of([&] {
              select_cases({"p2p", "p2p.typo*"}, {}, {}, probe_of(none, calls));
            }),
            "--case 'p2p.typo*' matches no validation case (see --list)");
}

TEST(ValidationRun, CTestRegistrationRunsOneCaseWithItsLabels) {
  const Components none;
  int calls = 0;
  std::ostringstream out;
  write_ctest_script(out, select_cases({"defect.persistent_send"}, {2}, {2}, probe_of(none, calls)), "/p/bin/mpimon",
                     "/p/libexec/mpimon");
  EXPECT_EQ(out.str(),
            "add_test([=[validation.defect.persistent_send.mode2.np2]=] [=[/p/bin/mpimon]=] validate --case "
            "[=[defect.persistent_send]=] --np 2 --mode 2 --programs [=[/p/libexec/mpimon]=])\n"
            "set_tests_properties([=[validation.defect.persistent_send.mode2.np2]=] PROPERTIES LABELS "
            "[=[validation;mpi;suite;defect]=] PROCESSORS 2 TIMEOUT 300 SKIP_RETURN_CODE 77 FAIL_REGULAR_EXPRESSION "
            "HDF5-DIAG)\n");
}

TEST(ValidationRun, MonitoringComponentsWithTheirVersions) {
  const Components listed{{"pml:monitoring", "4.1.4"}, {"pml:ob1", "4.1.4"}, {"coll:monitoring", "4.1.4"}};
  EXPECT_EQ(monitoring_components(listed), (std::vector<std::string>{"pml/monitoring 4.1.4", "coll/monitoring 4.1.4"}));
}

TEST(ValidationRun, JsonReportHoldsProvenanceAndEveryRun) {
  const Components none;
  int calls = 0;
  const auto s = select_cases({"p2p"}, {2}, {2}, probe_of(none, calls));
  CaseResult r;
  r.name = "p2p";
  r.np = 2;
  r.mode = 2;
  r.outcome = Outcome::holds;
  r.summary = "exact \"quoted\"";
  SuiteOptions options;
  options.mpi_series = "4.1";
  std::ostringstream out;
  write_validation_json(out, {{s[0], r}}, options, "mpirun (Open MPI) 4.1.4", {"pml/monitoring 4.1.4"});
  const std::string json = out.str();
  for (const char* part :
       {"\"mpi_library\": \"mpirun (Open MPI) 4.1.4\"", "\"open_mpi_version\": \"4.1.4\"",
        "\"defects_expected_as_on\": \"4.1\"", "\"monitoring_components\": [\"pml/monitoring 4.1.4\"]",
        "{\"case\": \"p2p\", \"np\": 2, \"pml_monitoring_enable\": 2", "\"outcome\": \"holds\"",
        "\"summary\": \"exact \\\"quoted\\\"\""}) {
    EXPECT_NE(json.find(part), std::string::npos) << part << "\n" << json;
  }
}

}  // namespace
}  // namespace mpimon::harness
