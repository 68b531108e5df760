// A lower bound on the cost of any mapping, from the weights and the tree alone (no mapping), level
// by level. A pair whose lowest common level is m lies in different children of level l for every
// l >= m, so cost = sum over l of link_cost[l] x cut[l], cut[l] the traffic between different
// subtrees of below[l] leaves. Each such subtree holds at most b = below[l] ranks, so cut[l] is at
// least the largest of (docs/placement.md, Lower bound):
// - global: all weights but the heaviest P, P = the most pairs n ranks can have inside subtrees of
//   b (when packed in order);
// - per rank: a rank has at most b - 1 peers in its subtree, so at least its weights beyond its b - 1
//   heaviest cross (each edge seen from both ends, halved);
// - spanning forest: the ranks fill at least k = ceil(n / b) subtrees, so removing the cut leaves at
//   least k components and the cut holds at least k - c edges of any spanning forest (c = the
//   graph's components): at least the k - c lightest edges of a maximum spanning forest. This one
//   binds on sparse graphs (trees, meshes' coarse levels), where the first two let whole
//   neighbourhoods sit inside a subtree.
#include <algorithm>
#include <functional>
#include <numeric>

#include "placement_internal.hpp"

namespace mpimon {

namespace {

using placement_detail::Csr;
using placement_detail::TreeShape;

// Most pairs inside subtrees of b leaves when n ranks fill them in order.
uint128 packed_pairs(uint128 n, uint128 b) {
  const uint128 rest = n % b;
  return (n / b) * (b * (b - 1) / 2) + rest * (rest - (rest ? 1 : 0)) / 2;
}

// prefix[i] = sum of the i first of `weights`.
std::vector<uint128> prefix_sums(const std::vector<std::uint64_t>& weights) {
  std::vector<uint128> prefix(weights.size() + 1, 0);
  for (std::size_t i = 0; i < weights.size(); ++i) prefix[i + 1] = prefix[i] + weights[i];
  return prefix;
}

void global_cuts(const AffinityGraph& graph, const TreeShape& tree, std::vector<uint128>& cut) {
  std::vector<std::uint64_t> weights;
  weights.reserve(graph.edges.size());
  for (const auto& e : graph.edges) weights.push_back(e.weight);
  std::sort(weights.begin(), weights.end(), std::greater<>());
  const auto prefix = prefix_sums(weights);
  for (std::uint32_t l = 0; l < tree.levels; ++l) {
    const uint128 inside = std::min<uint128>(packed_pairs(graph.order, tree.below[l]), weights.size());
    cut[l] = std::max(cut[l], prefix.back() - prefix[static_cast<std::size_t>(inside)]);
  }
}

void per_rank_cuts(const AffinityGraph& graph, const TreeShape& tree, std::vector<uint128>& cut) {
  const Csr csr(graph);
  std::vector<uint128> twice(tree.levels, 0);
  std::vector<std::uint64_t> weights;
  for (std::uint32_t v = 0; v < graph.order; ++v) {
    weights.assign(csr.weight.begin() + static_cast<long>(csr.offset[v]),
                   csr.weight.begin() + static_cast<long>(csr.offset[v + 1]));
    std::sort(weights.begin(), weights.end(), std::greater<>());
    const auto prefix = prefix_sums(weights);
    for (std::uint32_t l = 0; l < tree.levels; ++l) {
      twice[l] += prefix.back() - prefix[std::min<std::size_t>(tree.below[l] - 1, weights.size())];
    }
  }
  for (std::uint32_t l = 0; l < tree.levels; ++l) cut[l] = std::max(cut[l], (twice[l] + 1) / 2);
}

void spanning_forest_cuts(const AffinityGraph& graph, const TreeShape& tree, std::vector<uint128>& cut) {
  std::vector<std::uint32_t> order(graph.edges.size()), parent(graph.order);
  std::iota(order.begin(), order.end(), 0u);
  std::iota(parent.begin(), parent.end(), 0u);
  std::sort(order.begin(), order.end(),
            [&](std::uint32_t x, std::uint32_t y) { return graph.edges[x].weight > graph.edges[y].weight; });
  auto root = [&](std::uint32_t v) {
    while (parent[v] != v) v = parent[v] = parent[parent[v]];
    return v;
  };
  std::vector<std::uint64_t> forest;  // Kruskal, heaviest first: a maximum spanning forest
  for (const std::uint32_t e : order) {
    const std::uint32_t a = root(graph.edges[e].a), b = root(graph.edges[e].b);
    if (a != b) parent[a] = b, forest.push_back(graph.edges[e].weight);
  }
  const std::uint64_t components = graph.order - forest.size();
  const auto prefix = prefix_sums(forest);
  for (std::uint32_t l = 0; l < tree.levels; ++l) {
    const std::uint64_t subtrees = (graph.order + tree.below[l] - 1) / tree.below[l];
    if (subtrees <= components) continue;
    const std::size_t lightest = std::min<std::size_t>(subtrees - components, forest.size());
    cut[l] = std::max(cut[l], prefix.back() - prefix[forest.size() - lightest]);
  }
}

}  // namespace

namespace placement_detail {

std::vector<uint128> cut_lower_bounds(const AffinityGraph& graph, const TreeShape& tree) {
  std::vector<uint128> cut(tree.levels, 0);
  global_cuts(graph, tree, cut);
  per_rank_cuts(graph, tree, cut);
  spanning_forest_cuts(graph, tree, cut);
  return cut;
}

}  // namespace placement_detail

uint128 placement_lower_bound(const AffinityGraph& graph, const TreeTopology& topo) {
  const TreeShape tree(topo);
  const std::vector<uint128> cut = placement_detail::cut_lower_bounds(graph, tree);
  uint128 bound = 0;
  for (std::uint32_t l = 0; l < tree.levels; ++l) bound += (tree.suffix[l] - tree.suffix[l + 1]) * cut[l];
  return bound;
}

}  // namespace mpimon
