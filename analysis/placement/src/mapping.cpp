// The traffic as an undirected graph, and a mapping's cost and traffic per level (mapping.hpp).
#include "mpimon/placement/mapping.hpp"

#include <algorithm>
#include <limits>
#include <tuple>

#include "mpimon/base/error.hpp"
#include "tree_shape.hpp"

namespace mpimon {

AffinityGraph fold_traffic(const SparseMatrix& directed) {
  if (directed.rows != directed.columns) {
    raise_error(Error::Kind::input, "matrix",
                "is " + std::to_string(directed.rows) + " x " + std::to_string(directed.columns) + ", not square");
  }
  const SparseMatrix folded = add(directed, directed.transposed());
  AffinityGraph graph;
  graph.order = folded.rows;
  for (std::uint32_t i = 0; i < folded.rows; ++i) {
    for (auto k = folded.indptr[i]; k < folded.indptr[i + 1]; ++k) {
      if (folded.indices[k] > i && folded.values[k] != 0)
        graph.edges.push_back({i, folded.indices[k], folded.values[k]});
    }
  }
  return graph;
}

AffinityGraph fold_edges(std::uint32_t order, std::vector<AffinityGraph::Edge> directed) {
  for (auto& e : directed) {
    if (e.a >= order || e.b >= order) {
      raise_error(Error::Kind::input, "graph",
                  "edge " + std::to_string(e.a) + " -> " + std::to_string(e.b) + " names a vertex beyond 0.." +
                      std::to_string(order == 0 ? 0 : order - 1));
    }
    if (e.a > e.b) std::swap(e.a, e.b);
  }
  std::erase_if(directed, [](const AffinityGraph::Edge& e) { return e.a == e.b || e.weight == 0; });
  std::sort(directed.begin(), directed.end(),
            [](const auto& x, const auto& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
  AffinityGraph graph;
  graph.order = order;
  for (const auto& e : directed) {
    if (!graph.edges.empty() && graph.edges.back().a == e.a && graph.edges.back().b == e.b) {
      auto& w = graph.edges.back().weight;
      if (w > std::numeric_limits<std::uint64_t>::max() - e.weight) {
        raise_error(Error::Kind::input, "graph",
                    "the weights between " + std::to_string(e.a) + " and " + std::to_string(e.b) + " exceed 64 bits");
      }
      w += e.weight;
    } else {
      graph.edges.push_back(e);
    }
  }
  return graph;
}

std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> AffinityGraph::adjacency() const {
  std::vector<std::vector<std::pair<std::uint32_t, std::uint64_t>>> adj(order);
  for (const auto& e : edges) {
    adj[e.a].emplace_back(e.b, e.weight);
    adj[e.b].emplace_back(e.a, e.weight);
  }
  return adj;
}

std::vector<std::uint32_t> repair_mapping(const AffinityGraph& graph, const TreeTopology& topo, Mapping& mapping) {
  std::vector<bool> used(topo.leaves(), false);
  std::vector<std::uint32_t> displaced;
  for (std::uint32_t r = 0; r < mapping.size(); ++r) {
    if (used[mapping[r]] || !topo.usable(mapping[r])) {
      displaced.push_back(r);
    } else {
      used[mapping[r]] = true;
    }
  }
  if (displaced.empty()) return displaced;
  const auto adj = graph.adjacency();
  for (std::uint32_t r : displaced) {
    std::uint64_t best = 0;
    uint128 best_cost = std::numeric_limits<uint128>::max();
    for (std::uint64_t leaf = 0; leaf < used.size(); ++leaf) {
      if (used[leaf] || !topo.usable(leaf)) continue;
      uint128 cost = 0;
      for (const auto& [peer, w] : adj[r]) cost += static_cast<uint128>(w) * topo.distance(leaf, mapping[peer]);
      if (cost < best_cost) best_cost = cost, best = leaf;
    }
    mapping[r] = best;
    used[best] = true;
  }
  return displaced;
}

void check_mapping(const Mapping& mapping, std::uint32_t order, const TreeTopology& topo) {
  if (mapping.size() != order) {
    raise_error(Error::Kind::input, "mapping",
                "has " + std::to_string(mapping.size()) + " ranks, expected " + std::to_string(order));
  }
  std::vector<bool> used(topo.leaves(), false);
  for (std::size_t r = 0; r < mapping.size(); ++r) {
    if (mapping[r] >= used.size()) {
      raise_error(Error::Kind::input, "mapping",
                  "rank " + std::to_string(r) + " on leaf " + std::to_string(mapping[r]) + ", beyond the " +
                      std::to_string(used.size()) + " leaves");
    }
    if (used[mapping[r]]) {
      raise_error(Error::Kind::input, "mapping", "two ranks on leaf " + std::to_string(mapping[r]));
    }
    if (!topo.usable(mapping[r])) {
      raise_error(Error::Kind::input, "mapping",
                  "rank " + std::to_string(r) + " on leaf " + std::to_string(mapping[r]) + ", which is excluded");
    }
    used[mapping[r]] = true;
  }
}

PlacementMetrics evaluate_mapping(const AffinityGraph& graph, const TreeTopology& topo, const Mapping& mapping) {
  check_mapping(mapping, graph.order, topo);
  PlacementMetrics m;
  m.crossing.assign(topo.levels(), 0);
  std::vector<uint128> off_node(topo.nodes(), 0);
  const std::uint64_t per_node = topo.leaves_per_node();
  const placement_detail::TreeShape tree(topo);
  for (const auto& e : graph.edges) {
    const std::uint64_t a = mapping[e.a], b = mapping[e.b];
    std::uint32_t level = 0;
    while (level < tree.levels && a / tree.below[level] == b / tree.below[level]) ++level;
    m.cost += static_cast<uint128>(e.weight) * tree.suffix[level];
    for (std::uint32_t l = level; l < topo.levels(); ++l) m.crossing[l] += e.weight;
    if (level < topo.node_levels) {
      off_node[a / per_node] += e.weight;
      off_node[b / per_node] += e.weight;
    }
  }
  if (!off_node.empty()) m.busiest_node_off_node = *std::max_element(off_node.begin(), off_node.end());
  return m;
}

}  // namespace mpimon
