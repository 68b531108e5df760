#pragma once
// Shared by the placement sources: the tree's distances in O(levels) without allocation, the
// traffic as CSR, and a computation in a child process that can be stopped at a deadline.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mpimon/placement/placement.hpp"

namespace mpimon::placement_detail {

/// The tree as the searches use it: `below[l]` leaves under each child of level l, `suffix[l]`
/// the cost of a pair whose lowest common level is l.
struct TreeShape {
  explicit TreeShape(const TreeTopology& topo);
  std::uint32_t levels;
  std::uint64_t leaves;
  std::vector<std::uint64_t> below, suffix;
  /// Leaves under one subtree of level l (the whole tree for l = 0).
  [[nodiscard]] std::uint64_t below_parent(std::uint32_t l) const { return l == 0 ? leaves : below[l - 1]; }
  [[nodiscard]] std::uint64_t distance(std::uint64_t a, std::uint64_t b) const {
    for (std::uint32_t l = 0; l < levels; ++l) {
      if (a / below[l] != b / below[l]) return suffix[l];
    }
    return 0;
  }
};

/// The tree's links as the time model reads them (time_model.hpp): below level l, one link per
/// subtree of below[l] leaves, numbered from first_link[l]; a message between leaves whose lowest
/// common level is c crosses the links of levels c..L-1 on both sides.
struct TimeNetwork {
  explicit TimeNetwork(const TreeTopology& topo);
  TreeShape tree;
  std::vector<double> seconds_per_byte;   ///< per level: 8 / rate, 0 when the rate is unknown (free)
  std::vector<double> path_latency;       ///< [c]: one message whose lowest common level is c ([L]: none)
  std::vector<std::uint64_t> first_link;  ///< per level, and the total at [L]
  [[nodiscard]] std::uint64_t links() const { return first_link.back(); }
  [[nodiscard]] std::uint32_t common_level(std::uint64_t a, std::uint64_t b) const {
    std::uint32_t c = 0;
    while (c < tree.levels && a / tree.below[c] == b / tree.below[c]) ++c;
    return c;
  }
  [[nodiscard]] std::uint64_t link(std::uint32_t level, std::uint64_t leaf) const {
    return first_link[level] + leaf / tree.below[level];
  }
};

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
