// What `mpimon show` says of a dump beyond its totals and top talkers (dump_summary.hpp).

#include "mpimon/matrices/dump_summary.hpp"

#include <algorithm>

namespace mpimon {

// The ranks of 0..nprocs-1 without a dump, as "3, 5, 7" (the first 20, then a count).
std::string missing_ranks(const DumpInfo& info) {
  std::string out;
  std::size_t missing = 0;
  for (std::uint64_t r = 0; r < info.nprocs; ++r) {
    if (std::find(info.ranks_present.begin(), info.ranks_present.end(), r) != info.ranks_present.end()) continue;
    if (++missing <= 20) out += (out.empty() ? "" : ", ") + std::to_string(r);
  }
  if (missing > 20) out += " and " + std::to_string(missing - 20) + " more";
  return out;
}

}  // namespace mpimon
