// The tree a placement maps onto (topology.hpp): its leaves and distances, slots and exclusions,
// what --topology reads, and the machine's shape (nodes, sockets, cores).
#include "mpimon/placement/topology.hpp"

#include <algorithm>
#include <fstream>
#include <functional>
#include <numeric>
#include <regex>
#include <sstream>

#include "mpimon/base/error.hpp"

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

namespace {

std::uint64_t product(const TreeTopology& topo, std::uint32_t from, std::uint32_t to) {
  return std::accumulate(topo.arity.begin() + from, topo.arity.begin() + to, std::uint64_t{1}, std::multiplies<>());
}

std::string count_text(std::uint64_t n, const char* one) { return std::to_string(n) + " " + one + (n == 1 ? "" : "s"); }

}  // namespace

std::string MachineShape::text() const {
  return count_text(nodes, "node") + " x " + count_text(sockets, "socket") + " x " + count_text(cores, "core");
}

MachineShape machine_shape(const TreeTopology& topo) {
  const std::uint32_t socket_end = topo.node_levels + topo.socket_levels;
  const std::uint64_t cores = product(topo, socket_end, topo.levels()) / topo.slots_per_core;
  return {product(topo, 0, topo.node_levels), product(topo, topo.node_levels, socket_end), cores};
}

}  // namespace mpimon
