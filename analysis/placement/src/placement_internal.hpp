#pragma once
// Shared by the placement sources: the tree as they read it (tree_shape.hpp), the traffic as CSR,
// the cut bounds, and a computation in a child process that can be stopped at a deadline.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mpimon/placement/mapping.hpp"
#include "mpimon/placement/topology.hpp"
#include "tree_shape.hpp"

namespace mpimon::placement_detail {

/// The undirected traffic as CSR: the neighbours of rank v are peer[offset[v] .. offset[v + 1]).
struct Csr {
  explicit Csr(const AffinityGraph& graph);
  std::vector<std::uint64_t> offset;
  std::vector<std::uint32_t> peer;
  std::vector<std::uint64_t> weight;
  [[nodiscard]] std::uint64_t degree(std::uint32_t v) const { return offset[v + 1] - offset[v]; }
};

/// Per level l, a lower bound on the traffic between different subtrees of below[l] leaves under
/// any mapping (placement_bound.cpp: the largest of the global, per-rank and spanning-forest bounds).
std::vector<uint128> cut_lower_bounds(const AffinityGraph& graph, const TreeShape& tree);

/// Now plus `seconds` (at most a year: "no limit").
inline std::chrono::steady_clock::time_point deadline_after(double seconds) {
  const double capped = std::min(std::max(seconds, 0.0), 3.2e7);
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(capped));
}

/// Why Scotch cannot run ("" when this mpimon was built with it).
std::string scotch_unavailable();

/// Runs `compute` in a child process (its output: one leaf per rank) and returns the mapping, or
/// an empty mapping with `timed_out` set when it has not finished within `seconds` (the child is
/// killed). Throws Error::Kind::system naming `what` when the child fails.
Mapping compute_in_child(const std::string& what, const std::function<Mapping()>& compute, std::uint32_t ranks,
                         double seconds, bool& timed_out, int messages_fd = -1);

}  // namespace mpimon::placement_detail
