#pragma once
// Helpers of the harness unit tests: the analysis tests' helpers, and a fake launcher.

#include <sys/stat.h>

#include <string>

#include "test_util.hpp"  // analysis/tests: the shared test support

namespace mpimon::harness::test {

using mpimon::test::error_of;
using mpimon::test::read_text;
using mpimon::test::TempDir;

/// A launcher that runs nothing: appends "MONITORING BTL ARGS..." to `log` and exits with
/// `exit_code`; MONITORING and BTL are the MCA settings it was given as a launcher other than Open
/// MPI's (OMPI_MCA_pml_monitoring_enable or "off", OMPI_MCA_btl or "default").
inline std::string fake_launcher(const TempDir& dir, const std::string& log, int exit_code = 0) {
  const std::string script =
      "#!/bin/sh\n[ \"$1\" = --version ] && exit 0\n"  // asked for provenance
      "echo \"${OMPI_MCA_pml_monitoring_enable:-off} ${OMPI_MCA_btl:-default} $*\" >> '" +
      log + "'\nexit " + std::to_string(exit_code) + "\n";
  const std::string path = dir.write("fake-launcher", script);
  chmod(path.c_str(), 0755);
  return path;
}

}  // namespace mpimon::harness::test
