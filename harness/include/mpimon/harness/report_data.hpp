#pragma once
// What `mpimon report` computes for a matrices file besides its view (matrix_view.hpp) and its
// placement (cli/report.cpp): what the file says of the run and the known defects its content can
// show (docs/report.md).

#include <string>

#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon::harness {

/// One JSON object: `open_mpi_version`, `monitoring_components`, `classes` (name, messages,
/// bytes, pairs of each traffic class), and `defects`: the known defects the dump's content can
/// show on the run's Open MPI (id, meaning, why, link), as `mpimon show` lists them.
std::string run_facts_json(const MatrixFile& file, const std::string& dump);

}  // namespace mpimon::harness
