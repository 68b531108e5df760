#pragma once
// What a matrices file holds that decides which known defects can affect it (`mpimon show`,
// `mpimon report`): the defect table lives with the models, this reads the file.

#include <string>

#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/models/defects.hpp"

namespace mpimon {

/// The facts of one dump of a matrices file (its communicators `comms`, read by the caller), with
/// the run's Open MPI series and monitoring components from the file's root attributes.
RecordedFacts recorded_facts(const MatrixFile& file, const std::string& dump, const CommunicatorTable& comms,
                             bool internal_distinguished);

}  // namespace mpimon
