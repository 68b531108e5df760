#include "reorder_model.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "mpimon/base/error.hpp"

namespace mpimon::reorder {

namespace {

// More leaves than this (processes piled on a few places of a large machine) is not modelled.
constexpr std::uint64_t kMaxLeaves = std::uint64_t{1} << 26;

struct Shape {
  std::uint32_t nodes, packages, cores, slots;
};

TreeTopology tree_of(const Shape& s, bool by_core) {
  TreeTopology t;
  auto level = [&t](std::uint32_t arity, std::uint64_t cost) {
    if (arity < 2) return false;
    t.arity.push_back(arity);
    t.link_cost.push_back(cost);
    return true;
  };
  if (level(s.nodes, kNodeLinkCost)) t.node_levels = 1;
  if (level(s.packages, kSocketLinkCost)) t.socket_levels = 1;
  level(s.cores, kCoreLinkCost);
  if (level(s.slots, 0)) t.slots_per_core = s.slots;
  t.source = std::to_string(s.nodes) + (by_core ? " node(s) x " + std::to_string(s.packages) + " package(s) x " +
                                                      std::to_string(s.cores) + " core(s)"
                                                : " node(s), processes placed by node");
  return t;
}

}  // namespace

bool Machine::uniform() const {
  // Only the slot level (cost 0) or nothing: every pair of places is at distance 0.
  return std::all_of(topo.link_cost.begin(), topo.link_cost.end(), [](std::uint64_t c) { return c == 0; });
}

Machine machine_model(const std::vector<ProcessPlace>& places) {
  Machine m;
  std::unordered_map<std::string, std::uint32_t> node_of_host;
  std::vector<std::uint32_t> node(places.size());
  for (std::size_t p = 0; p < places.size(); ++p) {
    node[p] = node_of_host.try_emplace(places[p].host, static_cast<std::uint32_t>(node_of_host.size())).first->second;
  }
  m.nodes = static_cast<std::uint32_t>(node_of_host.size());
  const bool all_bound =
      !places.empty() && std::all_of(places.begin(), places.end(), [](const auto& p) { return p.bound; });
  const bool one_shape = std::all_of(places.begin(), places.end(), [&](const ProcessPlace& p) {
    return p.packages == places[0].packages && p.cores_per_package == places[0].cores_per_package;
  });
  m.by_core = all_bound && one_shape;
  if (all_bound && !one_shape) m.note = "the nodes differ in shape: processes placed by node";
  const std::uint64_t bound_count = std::count_if(places.begin(), places.end(), [](const auto& p) { return p.bound; });
  if (!all_bound && bound_count > 0) {
    m.note = std::to_string(places.size() - bound_count) + " of " + std::to_string(places.size()) +
             " processes are not bound to one core: processes placed by node";
  }
  Shape s{m.nodes, 1, 1, 1};
  if (m.by_core) s.packages = places[0].packages, s.cores = places[0].cores_per_package;
  // The place of each process (a core, or its node) and its slot among the processes sharing it.
  std::vector<std::uint64_t> place(places.size());
  std::map<std::uint64_t, std::uint32_t> sharing;
  for (std::size_t p = 0; p < places.size(); ++p) {
    const auto& pl = places[p];
    if (m.by_core && (pl.package >= s.packages || pl.core >= s.cores)) {
      raise_error(Error::Kind::input, "machine",
                  "process " + std::to_string(p) + " reports core " + std::to_string(pl.core) + " of package " +
                      std::to_string(pl.package) + " beyond its node's shape");
    }
    place[p] = m.by_core ? (std::uint64_t{node[p]} * s.packages + pl.package) * s.cores + pl.core : node[p];
    s.slots = std::max(s.slots, ++sharing[place[p]]);
  }
  const std::uint64_t leaves = std::uint64_t{s.nodes} * s.packages * s.cores * s.slots;
  if (leaves > kMaxLeaves) {
    raise_error(Error::Kind::input, "machine",
                std::to_string(leaves) + " places (processes piled on a few cores or nodes) are more than modelled");
  }
  m.topo = tree_of(s, m.by_core);
  m.leaf_of.resize(places.size());
  std::map<std::uint64_t, std::uint32_t> taken;
  m.topo.excluded.assign(leaves, true);
  for (std::size_t p = 0; p < places.size(); ++p) {
    m.leaf_of[p] = place[p] * s.slots + taken[place[p]]++;
    m.topo.excluded[m.leaf_of[p]] = false;
  }
  return m;
}

std::vector<DirectedEdge> cart_edges(const std::vector<int>& dims, const std::vector<int>& periods) {
  std::uint64_t count = 1;
  for (int d : dims) count *= static_cast<std::uint64_t>(d);
  std::vector<DirectedEdge> edges;
  std::vector<std::uint64_t> stride(dims.size(), 1);
  for (std::size_t d = dims.size(); d-- > 1;) stride[d - 1] = stride[d] * static_cast<std::uint64_t>(dims[d]);
  for (std::uint64_t v = 0; v < count; ++v) {
    for (std::size_t d = 0; d < dims.size(); ++d) {
      const auto n = static_cast<std::uint64_t>(dims[d]);
      const std::uint64_t c = v / stride[d] % n;
      for (int step : {-1, +1}) {
        std::uint64_t to;
        if (step < 0 ? c == 0 : c + 1 == n) {
          if (!periods[d]) continue;
          to = step < 0 ? v + (n - 1) * stride[d] : v - (n - 1) * stride[d];
        } else {
          to = step < 0 ? v - stride[d] : v + stride[d];
        }
        if (to != v) edges.push_back({static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(to), 1});
      }
    }
  }
  return edges;
}

std::vector<DirectedEdge> graph_edges(const std::vector<int>& index, const std::vector<int>& edges) {
  std::vector<DirectedEdge> out;
  int begin = 0;
  for (std::size_t i = 0; i < index.size(); ++i) {
    for (int k = begin; k < index[i]; ++k) {
      out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(edges[static_cast<std::size_t>(k)]), 1});
    }
    begin = index[i];
  }
  return out;
}

double default_time_limit(std::uint32_t vertices) { return std::clamp(vertices / 2000.0, 0.2, 10.0); }

Decision decide(std::uint32_t vertices, const std::vector<DirectedEdge>& edges, const Machine& machine,
                double time_limit) {
  return decide(vertices, fold_edges(vertices, edges), machine, time_limit);
}

Decision decide(std::uint32_t vertices, const AffinityGraph& graph, const Machine& machine, double time_limit) {
  Decision d;
  d.edges = graph.edges.size();
  d.kept = vertices;
  Mapping identity(vertices);
  for (std::uint32_t v = 0; v < vertices; ++v) identity[v] = machine.leaf_of.at(v);
  const PlacementMetrics before = evaluate_mapping(graph, machine.topo, identity);
  const bool nodes_level = machine.topo.node_levels > 0;
  d.cost_before = d.cost_after = static_cast<double>(before.cost);
  d.between_before = d.between_after = nodes_level ? static_cast<double>(before.crossing.at(0)) : 0.0;
  d.process_of.resize(vertices);
  for (std::uint32_t v = 0; v < vertices; ++v) d.process_of[v] = v;
  if (graph.edges.empty()) {
    d.note = "no traffic between the processes: nothing to place";
    return d;
  }
  if (machine.uniform()) {
    d.note = machine.nodes == 1 ? "all processes on one node (" + machine.topo.source +
                                      ") and not bound to cores: every order costs the same"
                                : "every pair of processes is at the same distance: every order costs the same";
    return d;
  }
  if (before.cost == 0) {
    d.note = "the current order costs nothing already";
    return d;
  }
  PlacementRequest request;
  request.methods = {"multisection", "given", "refine"};
  request.start = identity;
  request.time_limit = time_limit;
  request.random_draws = 0;
  const auto rows = place(graph, graph, machine.topo, request);
  const MethodResult& best = cheapest(rows);
  if (best.computed_cost >= before.cost) {
    d.note = "no mapping found is cheaper than the current order";
    return d;
  }
  // The same cost with as many processes as possible on their own vertex (identity: their homes).
  const Mapping relabelled = keep_ranks(best.mapping, machine.topo, identity);
  check_mapping(relabelled, vertices, machine.topo);
  const PlacementMetrics after = evaluate_mapping(graph, machine.topo, relabelled);
  if (after.cost != best.metrics.cost) {
    raise_error(Error::Kind::input, "keep_ranks",
                "the relabelled mapping costs " + to_decimal(after.cost) + ", the mapping found " +
                    to_decimal(best.metrics.cost));
  }
  std::vector<std::int64_t> process_at(machine.topo.leaves(), -1);
  for (std::size_t p = 0; p < machine.leaf_of.size(); ++p)
    process_at[machine.leaf_of[p]] = static_cast<std::int64_t>(p);
  d.kept = 0;
  for (std::uint32_t v = 0; v < vertices; ++v) {
    const std::int64_t p = process_at.at(relabelled[v]);
    if (p < 0) raise_error(Error::Kind::input, "mapping", "vertex " + std::to_string(v) + " on a free place");
    d.process_of[v] = static_cast<std::uint32_t>(p);
    d.kept += d.process_of[v] == v;
  }
  d.rank0_kept = d.process_of[0] == 0;
  d.reordered = true;
  d.method = best.method == "given" ? "identity" : best.method;
  d.cost_after = static_cast<double>(after.cost);
  d.between_after = nodes_level ? static_cast<double>(after.crossing.at(0)) : 0.0;
  return d;
}

}  // namespace mpimon::reorder
