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

/// What a JSON input of `mpimon report` is: "validate" for `mpimon validate --json` output (an
/// object with `cases`), "place" for `mpimon place --json` output (format `mpimon-placement`).
/// Anything else is an input error naming the file.
std::string report_json_kind(const std::string& path);

}  // namespace mpimon::harness
