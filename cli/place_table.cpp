// `mpimon place`'s table (place_table.hpp).
#include "place_table.hpp"

#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>

#include "mpimon/matrices/export.hpp"

namespace mpimon::cli {

namespace {

// The column name of traffic crossing level l: what the level's subtrees are.
std::string level_label(const TreeTopology& topo, std::uint32_t l) {
  const char* role = l < topo.node_levels ? "node" : l < topo.node_levels + topo.socket_levels ? "socket" : "core";
  return "L" + std::to_string(l) + " " + role;
}

// "0.53 x": the mapping's modelled cost over the reference's (below 1: cheaper), from the gain
// 100 x (reference / cost - 1) the placement reports.
std::string format_ratio(const std::optional<double>& gain) {
  if (!gain) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << 100.0 / (100.0 + *gain) << " x";
  return s.str();
}

// "traffic between nodes -50 % (1200 -> 600 bytes)": a level's crossing against packed's.
std::string crossing_change(const char* what, uint128 packed, uint128 chosen, const std::string& unit) {
  std::ostringstream s;
  s << "traffic between " << what << " ";
  if (packed == chosen) {
    s << "unchanged";
  } else if (packed == 0) {
    s << "up from none";
  } else {
    s << std::showpos << std::fixed << std::setprecision(0)
      << 100.0 * (static_cast<double>(chosen) / static_cast<double>(packed) - 1.0) << std::noshowpos << " %";
  }
  s << " (" << to_decimal(packed) << " -> " << to_decimal(chosen) << " " << unit << ")";
  return s.str();
}

// The chosen mapping against packed (ranks in order), in words: which is cheaper and by how much.
void print_verdict(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                   const std::string& metric, const std::string& chosen) {
  const auto find = [&](const std::string& m) {
    return std::find_if(rows.begin(), rows.end(), [&](const MethodResult& r) { return r.method == m; });
  };
  const auto packed = find("packed"), best = find(chosen);
  if (packed == rows.end() || best == rows.end() || !packed->unavailable.empty()) return;
  if (chosen == "packed" || best->metrics.cost == packed->metrics.cost) {
    out << "Packed (ranks in order) is already the cheapest: no method lowers the modelled cost.\n";
    return;
  }
  const std::string unit = metric == "count" ? "messages" : "bytes";
  out << "Chosen: " << chosen << " costs " << format_ratio(best->gain_vs_packed) << " packed (ranks in order)";
  const std::uint32_t node_level = topo.node_levels, socket_level = topo.node_levels + topo.socket_levels;
  if (topo.nodes() > 1 && node_level > 0) {
    out << "; "
        << crossing_change("nodes", packed->metrics.crossing[node_level - 1], best->metrics.crossing[node_level - 1],
                           unit);
  }
  if (topo.socket_levels > 0 && socket_level < topo.levels()) {
    out << "; "
        << crossing_change("sockets", packed->metrics.crossing[socket_level - 1],
                           best->metrics.crossing[socket_level - 1], unit);
  }
  out << " (modelled).\n";
}

// The cost over the lower bound no mapping can beat (docs/placement.md): how far from optimal at most.
std::string format_bound_ratio(const MethodResult& r) {
  if (r.lower_bound == 0) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << r.cost() / static_cast<double>(r.lower_bound) << " x";
  return s.str();
}

std::string format_cost(const MethodResult& r) {
  if (r.draws <= 1) return to_decimal(r.metrics.cost);
  std::ostringstream s;
  s << std::setprecision(6) << r.cost_mean << " +-" << r.cost_sd;
  return s.str();
}

}  // namespace

void print_table(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                 const PlaceOptions& o, std::uint32_t ranks, const std::string& dump, const std::string& chosen) {
  out << "Placement of " << ranks << " ranks (" << o.input << ", dump " << dump << ") on '" << topo.tleaf() << "' ("
      << topo.leaves() << " leaves, " << topo.nodes() << " node" << (topo.nodes() == 1 ? "" : "s") << ")\n";
  out << "Mappings computed from " << o.classes << " " << o.metric << ", costed on " << o.evaluate_classes << " "
      << o.metric << "\n";
  out << kPlacementModel << ".\n\n";
  std::vector<std::string> header = {"method", "cost", "x bound", "x packed", "x random"};
  // The bottom level's crossing is all the traffic between distinct leaves: not a column.
  for (std::uint32_t l = 0; l + 1 < topo.levels(); ++l) header.push_back(level_label(topo, l));
  if (topo.nodes() > 1) header.push_back("busiest node off");
  std::vector<std::vector<std::string>> table = {header};
  for (const auto& r : rows) {
    std::vector<std::string> line = {r.method + (r.method == chosen ? " *" : "")};
    if (!r.unavailable.empty()) {
      line.push_back("unavailable");
      table.push_back(line);
      continue;
    }
    line.push_back(format_cost(r));
    line.push_back(format_bound_ratio(r));
    line.push_back(format_ratio(r.gain_vs_packed));
    line.push_back(format_ratio(r.gain_vs_random));
    for (std::uint32_t l = 0; l + 1 < topo.levels(); ++l) line.push_back(to_decimal(r.metrics.crossing[l]));
    if (topo.nodes() > 1) line.push_back(to_decimal(r.metrics.busiest_node_off_node));
    table.push_back(line);
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& line : table) {
    for (std::size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  }
  for (const auto& line : table) {
    for (std::size_t c = 0; c < line.size(); ++c) {
      if (c == 0) {
        out << std::left << std::setw(static_cast<int>(width[c])) << line[c];
      } else {
        out << "  " << std::right << std::setw(static_cast<int>(width[c])) << line[c];
      }
    }
    out << "\n";
  }
  out << "\n";
  print_verdict(out, rows, topo, o.metric, chosen);
  out << "x packed, x random: the mapping's modelled cost divided by packed's (ranks in order) or random's; below 1 "
         "is cheaper.\nLk: traffic between different subtrees of level k (L0 = top).\n";
  if (!rows.empty()) {
    out << "x bound: the cost divided by " << to_decimal(rows.front().lower_bound)
        << ", a lower bound on any mapping's cost (rearrangement of the weights on the tree's distances)\n";
  }
  for (const auto& r : rows) {
    if (r.draws > 1) {
      out << "random: mean +- sd over " << r.draws << " seeded draws (seeds " << o.seed << ".." << o.seed + r.draws - 1
          << "), min " << std::setprecision(6) << r.cost_min << ", max " << r.cost_max << "\n";
    }
    if (!r.note.empty()) out << r.method << ": " << r.note << "\n";
    if (!r.unavailable.empty()) out << r.method << ": " << r.unavailable << "\n";
  }
  out << "* the mapping --mapping-out and --rankfile write: the cheapest on the traffic the mappings are computed "
         "from\n";
  for (const auto& r : rows) {
    if (r.draws > 1) out << "(random's traffic columns are those of its first draw)\n";
  }
}

void print_slurm_line(std::ostream& out, const SlurmPlacement& slurm, const std::string& hostfile) {
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

}  // namespace mpimon::cli
