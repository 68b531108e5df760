#pragma once
// The summary of a merged matrices file, shared by `mpimon show` and `mpimon record`.

#include <cstddef>
#include <string>

namespace mpimon::cli {

/// Prints the file's generator, then for each dump (or only `dump`, when not empty) its
/// processes, the totals of each traffic class, and the `top` pairs exchanging the most
/// point-to-point bytes.
void show_matrices(const std::string& input, const std::string& dump, std::size_t top);

}  // namespace mpimon::cli
