#include "mpimon/placement/placement.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <random>
#include <regex>
#include <sstream>
#include <tuple>

#include "mpimon/base/error.hpp"
#include "placement_internal.hpp"

namespace mpimon {

std::uint64_t TreeTopology::leaves() const {
  return std::accumulate(arity.begin(), arity.end(), std::uint64_t{1}, std::multiplies<>());
}

std::uint64_t TreeTopology::nodes() const {
  return std::accumulate(arity.begin(), arity.begin() + node_levels, std::uint64_t{1}, std::multiplies<>());
}

std::uint64_t TreeTopology::usable_leaves() const {
  if (excluded.empty()) return leaves();
  return static_cast<std::uint64_t>(std::count(excluded.begin(), excluded.end(), false));
}

TreeTopology with_slots(TreeTopology topo, std::uint32_t k) {
  if (k <= 1) return topo;
  if (topo.leaves() * k > (1u << 30)) raise_error(Error::Kind::usage, "--slots-per-leaf", "more than 2^30 slots");
  topo.arity.push_back(k);
  topo.link_cost.push_back(0);                        // ranks on one core: no link between them
  if (!topo.links.empty()) topo.links.push_back({});  // and no time
  topo.slots_per_core = k;
  if (!topo.excluded.empty()) {
    std::vector<bool> slots(topo.leaves());
    for (std::uint64_t s = 0; s < slots.size(); ++s) slots[s] = topo.excluded[s / k];
    topo.excluded = std::move(slots);
  }
  return topo;
}

TreeTopology with_excluded(TreeTopology topo, const std::vector<std::uint64_t>& cores) {
  const std::uint64_t core_count = topo.leaves() / topo.slots_per_core;
  if (topo.excluded.empty()) topo.excluded.assign(topo.leaves(), false);
  for (std::uint64_t c : cores) {
    if (c >= core_count) {
      raise_error(Error::Kind::usage, "--exclude-leaves",
                  "leaf " + std::to_string(c) + " is beyond the " + std::to_string(core_count) + " leaves of '" +
                      topo.tleaf() + "'");
    }
    for (std::uint64_t s = c * topo.slots_per_core; s < (c + 1) * topo.slots_per_core; ++s) topo.excluded[s] = true;
  }
  return topo;
}

std::string TreeTopology::tleaf() const {
  std::string line = "tleaf " + std::to_string(levels());
  for (std::size_t l = 0; l < arity.size(); ++l)
    line += " " + std::to_string(arity[l]) + " " + std::to_string(link_cost[l]);
  return line;
}

std::uint32_t TreeTopology::common_level(std::uint64_t a, std::uint64_t b) const {
  std::uint64_t subtree = leaves();
  for (std::uint32_t l = 0; l < levels(); ++l) {
    subtree /= arity[l];
    if (a / subtree != b / subtree) return l;
  }
  return levels();
}

std::uint64_t TreeTopology::distance(std::uint64_t a, std::uint64_t b) const {
  std::uint64_t d = 0;
  for (std::uint32_t l = common_level(a, b); l < levels(); ++l) d += link_cost[l];
  return d;
}

namespace {

// Open MPI's rankfile needs sockets and cores: the last level numbers the cores of a socket, the
// one above it the sockets of a node, and the levels above those the nodes.
void set_default_roles(TreeTopology& topo) {
  const std::uint32_t n = topo.levels();
  topo.node_levels = n >= 3 ? n - 2 : (n == 2 ? 1 : 0);
  topo.socket_levels = n >= 3 ? 1 : 0;
}

std::uint64_t parse_count(const std::string& token, const std::string& where, const std::string& what) {
  if (token.empty() || token.size() > 18 || !std::all_of(token.begin(), token.end(), ::isdigit)) {
    raise_error(Error::Kind::usage, where, what + " must be a non-negative integer, not '" + token + "'");
  }
  return std::stoull(token);
}

}  // namespace

TreeTopology parse_tleaf(const std::string& text, const std::string& where) {
  std::istringstream in(text);
  std::vector<std::string> tokens;
  for (std::string t; in >> t;) tokens.push_back(t);
  if (tokens.empty() || tokens[0] != "tleaf") raise_error(Error::Kind::usage, where, "expected 'tleaf L a0 c0 ...'");
  if (tokens.size() < 2) raise_error(Error::Kind::usage, where, "'tleaf' needs the number of levels");
  const std::uint64_t levels = parse_count(tokens[1], where, "the number of levels");
  if (levels == 0 || levels > 32) raise_error(Error::Kind::usage, where, "the number of levels must be 1 to 32");
  if (tokens.size() != 2 + 2 * levels) {
    raise_error(Error::Kind::usage, where,
                "'tleaf " + tokens[1] + "' needs " + std::to_string(2 * levels) +
                    " numbers (arity and link cost per level), got " + std::to_string(tokens.size() - 2));
  }
  TreeTopology topo;
  topo.source = text;
  long double leaves = 1;
  for (std::uint64_t l = 0; l < levels; ++l) {
    const std::string level = "level " + std::to_string(l);
    const std::uint64_t a = parse_count(tokens[2 + 2 * l], where, level + "'s arity");
    const std::uint64_t c = parse_count(tokens[3 + 2 * l], where, level + "'s link cost");
    // Scotch refuses smaller values, and TreeMatch and Scotch must read the same tree.
    if (a < 2) raise_error(Error::Kind::usage, where, level + "'s arity must be at least 2");
    if (c < 1) raise_error(Error::Kind::usage, where, level + "'s link cost must be at least 1");
    topo.arity.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(a, 1u << 30)));
    topo.link_cost.push_back(c);
    leaves *= static_cast<long double>(a);
  }
  if (leaves > static_cast<long double>(1u << 30)) raise_error(Error::Kind::usage, where, "more than 2^30 leaves");
  set_default_roles(topo);
  return topo;
}

namespace {

// "8x2x4": nodes x sockets x cores, default costs; levels of arity 1 are dropped.
TreeTopology parse_shorthand(const std::string& text) {
  static const std::regex shape(R"((\d+)x(\d+)x(\d+))");
  std::smatch m;
  std::regex_match(text, m, shape);
  TreeTopology topo;
  topo.source = text;
  const std::uint64_t costs[] = {kNodeLinkCost, kSocketLinkCost, kCoreLinkCost};
  std::uint32_t* roles[] = {&topo.node_levels, &topo.socket_levels, nullptr};
  for (int l = 0; l < 3; ++l) {
    const std::uint64_t a = parse_count(m[l + 1].str(), "--topology", "each of NxSxC");
    if (a == 0 || a > (1u << 20)) raise_error(Error::Kind::usage, "--topology", "each of NxSxC must be 1 to 2^20");
    if (a == 1) continue;
    topo.arity.push_back(static_cast<std::uint32_t>(a));
    topo.link_cost.push_back(costs[l]);
    if (roles[l] != nullptr) ++*roles[l];
  }
  if (topo.arity.empty()) raise_error(Error::Kind::usage, "--topology", "'" + text + "' has a single leaf");
  if (topo.leaves() > (1u << 30)) raise_error(Error::Kind::usage, "--topology", "more than 2^30 leaves");
  return topo;
}

}  // namespace

TreeTopology parse_hwloc_xml(const std::string& path);  // placement_hwloc.cpp

TreeTopology parse_topology(const std::string& text) {
  static const std::regex cluster(R"((\d+)@(.+))");
  if (std::smatch m; std::regex_match(text, m, cluster)) {
    const std::uint64_t nodes = parse_count(m[1].str(), "--topology", "N in N@node.xml");
    if (nodes == 0 || nodes > (1u << 20))
      raise_error(Error::Kind::usage, "--topology", "N in N@node.xml must be 1 to 2^20");
    if (!std::ifstream(m[2].str())) {
      raise_error(Error::Kind::usage, "--topology", "cannot read the node's hwloc XML file '" + m[2].str() + "'");
    }
    TreeTopology topo = parse_hwloc_xml(m[2].str());
    if (nodes > 1) {
      topo.arity.insert(topo.arity.begin(), static_cast<std::uint32_t>(nodes));
      topo.link_cost.insert(topo.link_cost.begin(), kNodeLinkCost);
      topo.node_levels = 1;
    }
    if (topo.leaves() > (1u << 30)) raise_error(Error::Kind::usage, "--topology", "more than 2^30 leaves");
    topo.source = text;
    return topo;
  }
  const auto first = text.find_first_not_of(" \t\n");
  if (first != std::string::npos && text.compare(first, 5, "tleaf") == 0) return parse_tleaf(text, "--topology");
  if (std::regex_match(text, std::regex(R"(\d+x\d+x\d+)"))) return parse_shorthand(text);
  std::ifstream in(text);
  if (!in) {
    raise_error(
        Error::Kind::usage, "--topology",
        "'" + text + "' is neither 'tleaf L a0 c0 ...', NxSxC (e.g. 8x2x4) nor a readable .tgt or hwloc XML file");
  }
  std::string line;
  while (std::getline(in, line) && line.find_first_not_of(" \t\r") == std::string::npos) {
  }
  if (line.find("<?xml") != std::string::npos || line.find("<topology") != std::string::npos) {
    TreeTopology topo = parse_hwloc_xml(text);
    topo.source = text;
    return topo;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  TreeTopology topo = parse_tleaf(line, text);
  topo.source = text;
  return topo;
}

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

void write_mapping(const Mapping& mapping, const TreeTopology& topo, std::ostream& out) {
  for (std::size_t r = 0; r < mapping.size(); ++r) out << r << ' ' << topo.core_of(mapping[r]) << '\n';
}

void write_rankfile(const Mapping& mapping, const TreeTopology& topo, const std::vector<std::string>& hosts,
                    std::ostream& out) {
  const std::uint64_t per_node = topo.leaves_per_node() / topo.slots_per_core;  // cores
  const std::uint64_t per_socket = std::accumulate(topo.arity.begin() + topo.node_levels + topo.socket_levels,
                                                   topo.arity.end(), std::uint64_t{1}, std::multiplies<>()) /
                                   topo.slots_per_core;
  std::uint64_t nodes_used = 0;
  for (auto leaf : mapping) nodes_used = std::max(nodes_used, topo.core_of(leaf) / per_node + 1);
  if (hosts.size() < nodes_used) {
    raise_error(Error::Kind::usage, "--hosts/--hostfile",
                "the mapping uses " + std::to_string(nodes_used) + " nodes but only " + std::to_string(hosts.size()) +
                    " hosts are given");
  }
  for (std::size_t r = 0; r < mapping.size(); ++r) {
    const std::uint64_t core = topo.core_of(mapping[r]), in_node = core % per_node;
    out << "rank " << r << '=' << hosts[core / per_node] << " slot=" << in_node / per_socket << ':'
        << in_node % per_socket << '\n';
  }
}

Mapping read_mapping(const std::string& path, std::uint32_t order, const TreeTopology& topo) {
  std::ifstream in(path);
  if (!in) raise_error(Error::Kind::usage, path, "cannot read the mapping (--start-mapping)");
  const std::uint64_t cores = topo.leaves() / topo.slots_per_core;
  constexpr std::uint64_t kUnset = std::numeric_limits<std::uint64_t>::max();
  Mapping mapping(order, kUnset);
  std::vector<std::size_t> given_at(order, 0);
  std::vector<std::uint32_t> taken(cores, 0);  // slots of each core handed out so far
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string where = path + ":" + std::to_string(++number);
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first[0] == '#') continue;
    std::uint64_t rank = 0, core = 0;
    std::string extra;
    std::istringstream numbers(line);
    if (!(numbers >> rank >> core) || numbers >> extra || line.find('-') != std::string::npos) {
      raise_error(Error::Kind::usage, where, "expected 'RANK LEAF' (two non-negative integers), got '" + line + "'");
    }
    if (rank >= order) {
      raise_error(Error::Kind::usage, where,
                  "rank " + std::to_string(rank) + " out of range (the dump has " + std::to_string(order) + " ranks)");
    }
    if (core >= cores) {
      raise_error(Error::Kind::usage, where,
                  "leaf " + std::to_string(core) + " out of range (the tree has " + std::to_string(cores) + " leaves)");
    }
    if (given_at[rank] != 0) {
      raise_error(
          Error::Kind::usage, where,
          "rank " + std::to_string(rank) + " given twice (first on line " + std::to_string(given_at[rank]) + ")");
    }
    given_at[rank] = number;
    const std::uint32_t slot = std::min(taken[core]++, topo.slots_per_core - 1);  // full: shared, repaired later
    mapping[rank] = core * topo.slots_per_core + slot;
  }
  std::vector<std::uint32_t> missing;
  for (std::uint32_t r = 0; r < order; ++r) {
    if (mapping[r] == kUnset) missing.push_back(r);
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t k = 0; k < missing.size() && k < 10; ++k) list += (k ? ", " : "") + std::to_string(missing[k]);
    raise_error(Error::Kind::usage, path,
                std::to_string(missing.size()) + " of " + std::to_string(order) + " ranks have no line: " + list +
                    (missing.size() > 10 ? ", ..." : ""));
  }
  return mapping;
}

std::vector<std::string> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot read the hostfile");
  std::vector<std::string> hosts;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string host;
    if (words >> host && host[0] != '#') hosts.push_back(host);
  }
  if (hosts.empty()) raise_input_error(path, 0, "names no host");
  return hosts;
}

}  // namespace mpimon
