#pragma once
// The tree as the placement sources read it (placement_detail, private): its distances in
// O(levels) without allocation, and its links as the time model numbers them.
#include <cstdint>
#include <vector>

#include "mpimon/placement/topology.hpp"

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

}  // namespace mpimon::placement_detail
