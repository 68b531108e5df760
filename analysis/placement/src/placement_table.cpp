// `mpimon place`'s table (place.hpp): each mapping's modelled cost and traffic per level, and in
// words which mapping is cheaper than packed and by how much.
#include <algorithm>
#include <iomanip>
#include <optional>
#include <sstream>

#include "mpimon/base/number_text.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/placement/links.hpp"
#include "mpimon/placement/place.hpp"
#include "mpimon/placement/time_model.hpp"

namespace mpimon {

namespace {

// The column name of traffic crossing level l: what the level's subtrees are.
std::string level_label(const TreeTopology& topo, std::uint32_t l) {
  const char* role = l < topo.node_levels ? "node" : l < topo.node_levels + topo.socket_levels ? "socket" : "core";
  return "L" + std::to_string(l) + " " + role;
}

// "0.53 x": the mapping's modelled cost over the reference's (below 1: cheaper), from the gain
// 100 x (reference / cost - 1) the placement reports.
std::string format_ratio(const std::optional<double>& gain) {
  return format_number(gain ? std::optional(100.0 / (100.0 + *gain)) : std::nullopt, "%.2f x");
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

std::string format_time_ratio(const MethodResult& r) {
  if (!r.time_vs_packed) return "-";
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << *r.time_vs_packed << " x";
  return s.str();
}

// "node 2's link, incoming, 23.6 MB": where the busiest link is.
std::string busiest_link(const TimePrediction& p, const TreeTopology& topo) {
  std::ostringstream s;
  const char* role = p.busiest_level < topo.node_levels                        ? "node"
                     : p.busiest_level < topo.node_levels + topo.socket_levels ? "socket"
                                                                               : "core";
  s << role << " " << p.busiest_subtree << "'s link (below level " << p.busiest_level << "), "
    << (p.busiest_up ? "outgoing" : "incoming") << ", " << std::setprecision(3) << p.busiest_bytes / 1e6 << " MB";
  return s.str();
}

// The chosen mapping's predicted time against packed's, in words.
void print_time_verdict(std::ostream& out, const MethodResult& best, const TreeTopology& topo) {
  if (!best.predicted) return;
  out << "Predicted communication time " << format_seconds(best.predicted_seconds());
  if (best.time_vs_packed) out << ", " << format_time_ratio(best) << " packed";
  out << " (" << format_seconds(best.predicted->bandwidth_seconds) << " on the busiest link, "
      << busiest_link(*best.predicted, topo) << "; " << format_seconds(best.predicted->latency_seconds)
      << " of latency, rank " << best.predicted->latency_rank << ") (modelled).\n";
}

// Under objective time, which mapping was kept and what it was weighed against (predictions on the
// traffic the mappings are computed from, as the choice is made).
void print_time_choice(std::ostream& out, const std::vector<MethodResult>& rows, const MethodResult& kept) {
  const MethodResult* fastest = nullptr;
  for (const auto& r : rows) {
    if (r.unavailable.empty() && (fastest == nullptr || r.computed_seconds < fastest->computed_seconds)) fastest = &r;
  }
  const MethodResult& by_cost = cheapest(rows);
  const auto packed = std::find_if(rows.begin(), rows.end(),
                                   [](const MethodResult& r) { return r.method == "packed" && r.unavailable.empty(); });
  const auto named = [](const MethodResult& r) { return r.method + " (" + format_seconds(r.computed_seconds) + ")"; };
  out << "Objective time kept " << named(kept);
  if (&kept == &by_cost) {
    out << ", the hop-bytes choice";
    const auto& in_order = fastest->computed_ordered_seconds;
    if (fastest->computed_seconds * (1 + kTimeTolerance) >= kept.computed_seconds &&
        fastest->computed_seconds < kept.computed_seconds) {
      out << ": the fastest, " << named(*fastest) << ", is within " << 100 * kTimeTolerance
          << " %, a tie the cost decides";
    } else if (fastest->computed_seconds < kept.computed_seconds && in_order && kept.computed_ordered_seconds &&
               *in_order > *kept.computed_ordered_seconds * (1 + kTimeTolerance)) {
      out << ": the fastest, " << named(*fastest) << ", takes longer with the transfers in order ("
          << format_seconds(*in_order) << " against " << format_seconds(*kept.computed_ordered_seconds)
          << ": a rank forwards what it received)";
    } else if (fastest->computed_seconds < kept.computed_seconds) {
      out << ": no faster mapping passed the guards in brackets";
    } else {
      out << ": no mapping is predicted faster";
    }
  } else {
    out << " over the hop-bytes choice " << named(by_cost);
  }
  if (packed != rows.end() && &*packed != &kept) out << "; packed " << format_seconds(packed->computed_seconds);
  out << " (predicted on the traffic the mappings are computed from; never a mapping predicted slower than the "
         "hop-bytes choice or packed, nor one slower than the hop-bytes choice with the transfers in order).\n";
}

// The chosen mapping against packed (ranks in order), in words: which is cheaper and by how much.
void print_verdict(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                   const std::string& metric, const std::string& chosen, bool by_time) {
  const auto find = [&](const std::string& m) {
    return std::find_if(rows.begin(), rows.end(), [&](const MethodResult& r) { return r.method == m; });
  };
  const auto packed = find("packed"), best = find(chosen);
  if (best != rows.end()) print_time_verdict(out, *best, topo);
  if (best != rows.end() && by_time) print_time_choice(out, rows, *best);
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

void write_placement_table(std::ostream& out, const std::vector<MethodResult>& rows, const TreeTopology& topo,
                           const PlacementContext& o, const std::string& chosen, Objective objective) {
  out << "Placement of " << o.ranks << " ranks (" << o.input << ", dump " << o.dump << ") on '" << topo.tleaf() << "' ("
      << topo.leaves() << " leaves, " << topo.nodes() << " node" << (topo.nodes() == 1 ? "" : "s") << ")\n";
  out << "Mappings computed from " << o.classes << " " << o.metric << ", costed on " << o.evaluate_classes << " "
      << o.metric << "\n";
  out << kPlacementModel << ".\n";
  const bool timed = has_links(topo);
  if (timed) {
    out << kTimeModel << "; links from " << o.links_source << ":";
    for (std::uint32_t l = 0; l < topo.links.size(); ++l) {
      if (l + 1 == topo.links.size() && topo.slots_per_core > 1) break;  // the slots' level: nothing to say
      out << (l ? ";" : "") << " below level " << l << " " << format_link(topo.links[l]);
    }
    out << ". Objective: " << objective_name(objective) << ".\n";
  }
  out << "\n";
  std::vector<std::string> header = {"method", "cost", "x bound", "x packed", "x random"};
  if (timed) header.insert(header.end(), {"predicted", "t x packed"});
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
    if (timed) {
      line.push_back(r.predicted ? format_seconds(r.predicted_seconds()) : "-");
      line.push_back(format_time_ratio(r));
    }
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
  print_verdict(out, rows, topo, o.metric, chosen, timed && objective == Objective::time);
  out << "x packed, x random: the mapping's modelled cost divided by packed's (ranks in order) or random's; below 1 "
         "is cheaper.\nLk: traffic between different subtrees of level k (L0 = top).\n";
  if (!rows.empty()) {
    out << "x bound: the cost divided by " << to_decimal(rows.front().lower_bound)
        << ", a lower bound on any mapping's cost (rearrangement of the weights on the tree's distances)\n";
    if (timed) {
      out << "predicted: the time model's communication time (random: mean over its draws); t x packed: over packed's; "
             "no mapping is predicted below "
          << format_seconds(rows.front().time_bound_seconds)
          << " (a lower bound: the traffic that must cross each level spread evenly, and each rank's messages on the "
             "cheapest paths)\n";
    }
  }
  for (const auto& r : rows) {
    if (r.draws > 1) {
      out << "random: mean +- sd over " << r.draws << " seeded draws (seeds " << o.seed << ".." << o.seed + r.draws - 1
          << "), min " << std::setprecision(6) << r.cost_min << ", max " << r.cost_max << "\n";
    }
    if (!r.note.empty()) out << r.method << ": " << r.note << "\n";
    if (!r.unavailable.empty()) out << r.method << ": " << r.unavailable << "\n";
  }
  out << "* the mapping --mapping-out and --rankfile write: the "
      << (objective == Objective::time ? "least predicted time" : "cheapest")
      << " on the traffic the mappings are computed from\n";
  for (const auto& r : rows) {
    if (r.draws > 1) out << "(random's traffic columns are those of its first draw)\n";
  }
}

}  // namespace mpimon
