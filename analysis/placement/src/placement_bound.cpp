// A lower bound on the cost of any mapping, from the weights and the tree alone (no mapping):
// the larger of two rearrangement bounds.
// - Global: the pair weights sorted down laid on the pair distances sorted up. Packing the ranks
//   on the first leaves has, at every level at once, the most pairs inside one subtree, so its
//   sorted distances are below those of any set of occupied leaves.
// - Per rank: a rank's peers sit on distinct leaves, so its own traffic costs at least its weights
//   sorted down laid on the distances from one leaf sorted up; each edge counts from both ends.
#include <algorithm>
#include <functional>

#include "placement_internal.hpp"

namespace mpimon {

namespace {

using placement_detail::Csr;
using placement_detail::TreeShape;

// Lays `weights` (sorted down) on distance classes (cheapest first, as (distance, count)).
uint128 lay(const std::vector<std::uint64_t>& weights, const std::vector<std::pair<std::uint64_t, uint128>>& classes) {
  uint128 total = 0;
  std::size_t k = 0;
  for (const auto& [distance, count] : classes) {
    for (uint128 c = 0; c < count && k < weights.size(); ++c, ++k) total += static_cast<uint128>(weights[k]) * distance;
    if (k == weights.size()) break;
  }
  return total;
}

uint128 global_bound(const AffinityGraph& graph, const TreeShape& tree) {
  const uint128 n = graph.order;
  // Pairs inside one subtree of size b when n ranks fill the leaves in order.
  auto same = [&](uint128 b) { return (n / b) * (b * (b - 1) / 2) + (n % b) * (n % b - (n % b ? 1 : 0)) / 2; };
  std::vector<std::pair<std::uint64_t, uint128>> classes;
  for (std::uint32_t l = tree.levels; l-- > 0;) {
    const uint128 outer = l == 0 ? n * (n - (n ? 1 : 0)) / 2 : same(tree.below[l - 1]);
    classes.emplace_back(tree.suffix[l], outer - same(tree.below[l]));
  }
  std::vector<std::uint64_t> weights;
  weights.reserve(graph.edges.size());
  for (const auto& e : graph.edges) weights.push_back(e.weight);
  std::sort(weights.begin(), weights.end(), std::greater<>());
  return lay(weights, classes);
}

uint128 per_rank_bound(const AffinityGraph& graph, const TreeShape& tree) {
  const Csr csr(graph);
  std::vector<std::pair<std::uint64_t, uint128>> classes;  // leaves at each distance from one leaf
  for (std::uint32_t l = tree.levels; l-- > 0;) {
    classes.emplace_back(tree.suffix[l], (l == 0 ? tree.leaves : tree.below[l - 1]) - tree.below[l]);
  }
  uint128 twice = 0;
  std::vector<std::uint64_t> weights;
  for (std::uint32_t v = 0; v < graph.order; ++v) {
    weights.assign(csr.weight.begin() + static_cast<long>(csr.offset[v]),
                   csr.weight.begin() + static_cast<long>(csr.offset[v + 1]));
    std::sort(weights.begin(), weights.end(), std::greater<>());
    twice += lay(weights, classes);
  }
  return (twice + 1) / 2;
}

}  // namespace

uint128 placement_lower_bound(const AffinityGraph& graph, const TreeTopology& topo) {
  const TreeShape tree(topo);
  return std::max(global_bound(graph, tree), per_rank_bound(graph, tree));
}

}  // namespace mpimon
