// The baselines (mappers.hpp): packed, cyclic, and seeded random mappings.
#include <numeric>
#include <random>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/mappers.hpp"

namespace mpimon {

namespace {

void check_fits(std::uint32_t order, const TreeTopology& topo) {
  if (order > topo.usable_leaves()) {
    raise_error(Error::Kind::input, "--topology",
                std::to_string(order) + " ranks do not fit on the " + std::to_string(topo.usable_leaves()) +
                    (topo.excluded.empty() ? "" : " usable") + " leaves of '" + topo.tleaf() + "'");
  }
}

std::vector<std::uint64_t> usable_list(const TreeTopology& topo) {
  std::vector<std::uint64_t> leaves;
  for (std::uint64_t l = 0; l < topo.leaves(); ++l) {
    if (topo.usable(l)) leaves.push_back(l);
  }
  return leaves;
}

}  // namespace

Mapping packed_mapping(std::uint32_t order, const TreeTopology& topo) {
  check_fits(order, topo);
  const auto leaves = usable_list(topo);
  return {leaves.begin(), leaves.begin() + order};
}

Mapping cyclic_mapping(std::uint32_t order, const TreeTopology& topo) {
  check_fits(order, topo);
  // Round robin over nodes; on a single node, over sockets.
  std::uint32_t group_levels = topo.nodes() > 1 ? topo.node_levels : topo.node_levels + topo.socket_levels;
  const std::uint64_t groups =
      std::accumulate(topo.arity.begin(), topo.arity.begin() + group_levels, std::uint64_t{1}, std::multiplies<>());
  const std::uint64_t per_group = topo.leaves() / groups;
  // Each group's usable leaves in order; rank i goes to group i mod groups, or the next one not full.
  std::vector<std::uint64_t> next(groups);
  for (std::uint64_t g = 0; g < groups; ++g) next[g] = g * per_group;
  auto advance = [&](std::uint64_t g) {
    while (next[g] < (g + 1) * per_group && !topo.usable(next[g])) ++next[g];
    return next[g] < (g + 1) * per_group;
  };
  Mapping m(order);
  for (std::uint32_t i = 0; i < order; ++i) {
    std::uint64_t g = i % groups;
    while (!advance(g)) g = (g + 1) % groups;
    m[i] = next[g]++;
  }
  return m;
}

Mapping random_mapping(std::uint32_t order, const TreeTopology& topo, std::uint64_t seed) {
  check_fits(order, topo);
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> leaves = usable_list(topo);
  for (std::uint32_t i = 0; i < order; ++i) {  // partial Fisher-Yates: the first `order` leaves
    std::uniform_int_distribution<std::uint64_t> pick(i, leaves.size() - 1);
    std::swap(leaves[i], leaves[pick(rng)]);
  }
  return {leaves.begin(), leaves.begin() + order};
}

}  // namespace mpimon
