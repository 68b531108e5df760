#pragma once
// What `mpimon show` says of a dump beyond its totals and top talkers (matrix_view.hpp):
// the ranks without a dump.

#include <string>

#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon {

/// The ranks of 0..nprocs-1 without a dump, as "3, 5, 7" (the first 20, then a count).
std::string missing_ranks(const DumpInfo& info);

}  // namespace mpimon
