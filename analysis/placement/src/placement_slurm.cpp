// A mapping applied by Slurm (docs/placement.md, "Under Slurm"): the hosts in rank order for
// srun --distribution=arbitrary, and the CPUs of each node's ranks in local-id order for
// --cpu-bind=map_cpu, one list for every node after renumbering within nodes.
#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/mapping_files.hpp"

namespace mpimon {

namespace {

std::uint64_t product(const TreeTopology& topo, std::uint32_t from, std::uint32_t to) {
  return std::accumulate(topo.arity.begin() + from, topo.arity.begin() + to, std::uint64_t{1}, std::multiplies<>());
}

}  // namespace

Mapping renumber_within_nodes(const Mapping& mapping, const TreeTopology& topo) {
  if (!topo.excluded.empty()) return mapping;
  const std::uint64_t per_node = topo.leaves_per_node();
  // For each level below the nodes: how many leaves one of its children spans.
  std::vector<std::uint64_t> span;
  for (std::uint32_t l = topo.node_levels; l < topo.levels(); ++l) span.push_back(product(topo, l + 1, topo.levels()));
  // (node, renumbered path so far, level) -> old child -> new child, in order of first reach.
  std::map<std::tuple<std::uint64_t, std::uint64_t, std::size_t>, std::map<std::uint64_t, std::uint64_t>> renamed;
  Mapping out(mapping.size());
  for (std::size_t r = 0; r < mapping.size(); ++r) {
    const std::uint64_t node = mapping[r] / per_node;
    std::uint64_t rest = mapping[r] % per_node, renumbered = 0;
    for (std::size_t l = 0; l < span.size(); ++l) {
      auto& children = renamed[{node, renumbered, l}];
      const std::uint64_t child = rest / span[l];
      rest %= span[l];
      const auto [it, added] = children.try_emplace(child, children.size());
      renumbered += it->second * span[l];
    }
    out[r] = node * per_node + renumbered;
  }
  return out;
}

SlurmPlacement slurm_placement(const Mapping& mapping, const TreeTopology& topo,
                               const std::vector<std::string>& hosts) {
  const std::uint64_t per_node = machine_shape(topo).cores_per_node();
  std::map<std::uint64_t, std::vector<std::uint64_t>> cpus;  // node -> CPUs by local id
  SlurmPlacement p;
  for (const auto leaf : mapping) {
    const std::uint64_t core = topo.core_of(leaf), node = core / per_node;
    if (node >= hosts.size()) {
      raise_error(Error::Kind::usage, "--hosts/--hostfile",
                  "the mapping uses " + std::to_string(node + 1) + " nodes but only " + std::to_string(hosts.size()) +
                      " hosts are given");
    }
    p.rank_hosts.push_back(hosts[node]);
    cpus[node].push_back(core % per_node);
  }
  for (auto& [node, list] : cpus) {
    p.node_cpus.emplace_back(hosts[node], list);
    if (list.size() > p.map_cpu.size()) p.map_cpu = list;
  }
  for (const auto& [host, list] : p.node_cpus) {
    if (!std::equal(list.begin(), list.end(), p.map_cpu.begin())) {
      p.map_cpu.clear();
      break;
    }
  }
  return p;
}

void write_slurm_hostfile(const SlurmPlacement& slurm, std::ostream& out) {
  for (const auto& host : slurm.rank_hosts) out << host << '\n';
}

void write_slurm_launch(const SlurmPlacement& slurm, const std::string& hostfile, std::ostream& out) {
  auto list = [](const std::vector<std::uint64_t>& cpus) {
    std::string text;
    for (auto c : cpus) text += (text.empty() ? "" : ",") + std::to_string(c);
    return text;
  };
  const std::string launch =
      "SLURM_HOSTFILE=" + hostfile + " srun --distribution=arbitrary -n " + std::to_string(slurm.rank_hosts.size());
  if (!slurm.map_cpu.empty()) {
    out << "slurm: " << launch << " --cpu-bind=map_cpu:" << list(slurm.map_cpu)
        << " COMMAND\n  (each rank on its node and core; Slurm binds only where the step holds whole nodes: "
           "--exclusive)\n";
    return;
  }
  out << "slurm: " << launch << " COMMAND puts each rank on its node; the cores of the nodes' ranks differ (";
  for (const auto& [host, cpus] : slurm.node_cpus)
    out << (&host == &slurm.node_cpus.front().first ? "" : "; ") << host << " map_cpu:" << list(cpus);
  out << ") and --cpu-bind=map_cpu takes one list for every node\n";
}

}  // namespace mpimon
