// The time model (time_model.hpp, docs/placement.md "The time model"): the directed flows of a
// recorded run, the links of the tree, the prediction for a mapping and its lower bound.
#include <algorithm>
#include <cmath>
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>
#include <unordered_map>

#include "mpimon/base/error.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/placement/time_model.hpp"
#include "placement_internal.hpp"

namespace mpimon {

namespace placement_detail {

TimeNetwork::TimeNetwork(const TreeTopology& topo)
    : tree(topo), seconds_per_byte(tree.levels, 0), path_latency(tree.levels + 1, 0), first_link(tree.levels + 1, 0) {
  for (std::uint32_t l = 0; l < tree.levels; ++l) {
    const LinkSpec link = l < topo.links.size() ? topo.links[l] : LinkSpec{};
    if (link.bits_per_second > 0) seconds_per_byte[l] = 8.0 / link.bits_per_second;
    first_link[l + 1] = first_link[l] + tree.leaves / tree.below[l];
  }
  // Up the sender's links of levels c..L-1, down the receiver's: twice each level's latency.
  for (std::uint32_t c = tree.levels; c-- > 0;) {
    const double latency = c < topo.links.size() ? topo.links[c].latency_seconds : 0;
    path_latency[c] = path_latency[c + 1] + 2 * latency;
  }
}

}  // namespace placement_detail

using placement_detail::TimeNetwork;

namespace {

// Bucket k >= 1 of the histogram holds messages of 2^(k-1) to 2^k - 1 bytes: the first bucket whose
// messages are all at least kEagerLimit bytes.
constexpr std::size_t first_rendezvous_bucket() {
  std::size_t k = 1;
  while ((std::uint64_t{1} << (k - 1)) < kEagerLimit) ++k;
  return k;
}

std::uint64_t key_of(std::uint64_t from, std::uint64_t to) { return from << 32 | to; }

}  // namespace

TimeTraffic time_traffic(const SparseMatrix& bytes, const SparseMatrix& messages, const HistogramTable* histograms) {
  if (bytes.rows != bytes.columns || messages.rows != messages.columns || bytes.rows != messages.rows) {
    raise_error(Error::Kind::input, "matrix", "the bytes and messages matrices are not square of one order");
  }
  std::unordered_map<std::uint64_t, std::uint64_t> large;  // (rank, peer) -> messages of >= kEagerLimit bytes
  if (histograms != nullptr) {
    for (std::size_t k = 0; k < histograms->size(); ++k) {
      std::uint64_t n = 0;
      for (std::size_t b = first_rendezvous_bucket(); b < kHistogramBuckets; ++b)
        n += histograms->counts[k * kHistogramBuckets + b];
      if (n > 0) large[key_of(histograms->pairs[2 * k], histograms->pairs[2 * k + 1])] += n;
    }
  }
  TimeTraffic traffic;
  traffic.order = bytes.rows;
  traffic.rendezvous_source = histograms != nullptr ? "histogram" : "mean size";
  auto add = [&](std::uint32_t from, std::uint32_t to, std::uint64_t b, std::uint64_t m) {
    if (from == to || (b == 0 && m == 0)) return;
    std::uint64_t rendezvous = 0;
    if (histograms != nullptr) {
      const auto it = large.find(key_of(from, to));
      rendezvous = it == large.end() ? 0 : std::min(it->second, m);
    } else if (m > 0 && b / m >= kEagerLimit) {
      rendezvous = m;
    }
    traffic.flows.push_back({from, to, b, m, rendezvous});
  };
  for (std::uint32_t i = 0; i < bytes.rows; ++i) {  // the two rows merged by column
    auto kb = bytes.indptr[i], km = messages.indptr[i];
    const auto eb = bytes.indptr[i + 1], em = messages.indptr[i + 1];
    while (kb < eb || km < em) {
      const std::uint32_t jb = kb < eb ? bytes.indices[kb] : UINT32_MAX,
                          jm = km < em ? messages.indices[km] : UINT32_MAX;
      const std::uint32_t j = std::min(jb, jm);
      add(i, j, jb == j ? bytes.values[kb++] : 0, jm == j ? messages.values[km++] : 0);
    }
  }
  return traffic;
}

TimeTraffic read_time_traffic(const MatrixFile& file, const std::string& dump,
                              const std::vector<TrafficClass>& classes) {
  const std::set<TrafficClass> chosen(classes.begin(), classes.end());
  const bool point_to_point = chosen == std::set<TrafficClass>{TrafficClass::external, TrafficClass::internal};
  const HistogramTable histograms =
      point_to_point && file.histogram_count(dump) > 0 ? file.histograms(dump) : HistogramTable{};
  return time_traffic(sum_classes(file, dump, classes, Metric::bytes), sum_classes(file, dump, classes, Metric::count),
                      histograms.size() > 0 ? &histograms : nullptr);
}

TimePrediction predict_time(const TimeTraffic& traffic, const TreeTopology& topo, const Mapping& mapping) {
  check_mapping(mapping, traffic.order, topo);
  const TimeNetwork net(topo);
  std::vector<double> up(net.links(), 0), down(net.links(), 0), latency(traffic.order, 0);
  for (const auto& f : traffic.flows) {
    const std::uint64_t a = mapping[f.from], b = mapping[f.to];
    const std::uint32_t c = net.common_level(a, b);
    for (std::uint32_t l = c; l < net.tree.levels; ++l) {
      up[net.link(l, a)] += static_cast<double>(f.bytes);
      down[net.link(l, b)] += static_cast<double>(f.bytes);
    }
    latency[f.from] += static_cast<double>(f.messages + 2 * f.rendezvous) * net.path_latency[c];
  }
  TimePrediction p;
  for (std::uint32_t l = 0; l < net.tree.levels; ++l) {
    for (std::uint64_t k = net.first_link[l]; k < net.first_link[l + 1]; ++k) {
      for (const bool leaving : {true, false}) {
        const double bytes = leaving ? up[k] : down[k], t = bytes * net.seconds_per_byte[l];
        if (t > p.bandwidth_seconds) {
          p.bandwidth_seconds = t, p.busiest_level = l, p.busiest_subtree = k - net.first_link[l];
          p.busiest_up = leaving, p.busiest_bytes = bytes;
        }
      }
    }
  }
  for (std::uint32_t r = 0; r < traffic.order; ++r) {
    if (latency[r] > p.latency_seconds) p.latency_seconds = latency[r], p.latency_rank = r;
  }
  p.seconds = p.bandwidth_seconds + p.latency_seconds;
  return p;
}

namespace {

// The bytes as the cost model's undirected graph (w_ij = bytes i->j + j->i), for its cut bounds.
AffinityGraph byte_graph(const TimeTraffic& traffic) {
  std::unordered_map<std::uint64_t, std::uint64_t> weight;
  for (const auto& f : traffic.flows) {
    if (f.bytes > 0) weight[key_of(std::min(f.from, f.to), std::max(f.from, f.to))] += f.bytes;
  }
  AffinityGraph graph;
  graph.order = traffic.order;
  for (const auto& [key, w] : weight) {
    graph.edges.push_back({static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key), w});
  }
  std::sort(graph.edges.begin(), graph.edges.end(),
            [](const auto& x, const auto& y) { return std::pair(x.a, x.b) < std::pair(y.a, y.b); });
  return graph;
}

// What a rank sends (or receives) beyond its `inside` heaviest peers: at least that leaves its subtree.
double beyond_heaviest(std::vector<std::uint64_t>& amounts, std::uint64_t inside) {
  std::sort(amounts.begin(), amounts.end(), std::greater<>());
  double rest = 0;
  for (std::size_t k = inside; k < amounts.size(); ++k) rest += static_cast<double>(amounts[k]);
  return rest;
}

}  // namespace

TimeBound time_lower_bound(const TimeTraffic& traffic, const TreeTopology& topo) {
  const TimeNetwork net(topo);
  const auto& tree = net.tree;
  TimeBound bound;
  // Per level: the crossing traffic, spread over as many subtrees as can hold ranks.
  const std::vector<uint128> cut = placement_detail::cut_lower_bounds(byte_graph(traffic), tree);
  for (std::uint32_t l = 0; l < tree.levels; ++l) {
    std::uint64_t subtrees = 0;
    for (std::uint64_t s = 0; s < tree.leaves / tree.below[l]; ++s) {
      bool usable = false;
      for (std::uint64_t x = s * tree.below[l]; x < (s + 1) * tree.below[l] && !usable; ++x) usable = topo.usable(x);
      subtrees += usable ? 1 : 0;
    }
    subtrees = std::min<std::uint64_t>(subtrees, traffic.order);
    if (subtrees > 0) {
      bound.bandwidth_seconds =
          std::max(bound.bandwidth_seconds,
                   static_cast<double>(cut[l]) / static_cast<double>(subtrees) * net.seconds_per_byte[l]);
    }
  }
  // Per rank: what it sends (receives) beyond its below[l] - 1 heaviest receivers (senders) leaves
  // (enters) its subtree of level l; its sends' latency with its peers on the cheapest paths.
  std::vector<std::vector<std::uint64_t>> sent(traffic.order), received(traffic.order), weight(traffic.order);
  for (const auto& f : traffic.flows) {
    sent[f.from].push_back(f.bytes), received[f.to].push_back(f.bytes);
    weight[f.from].push_back(f.messages + 2 * f.rendezvous);
  }
  for (std::uint32_t r = 0; r < traffic.order; ++r) {
    for (std::uint32_t l = 0; l < tree.levels; ++l) {
      for (auto* amounts : {&sent[r], &received[r]}) {
        bound.bandwidth_seconds =
            std::max(bound.bandwidth_seconds, beyond_heaviest(*amounts, tree.below[l] - 1) * net.seconds_per_byte[l]);
      }
    }
    std::sort(weight[r].begin(), weight[r].end(), std::greater<>());
    double latency = 0;
    std::size_t next = 0;
    for (std::uint32_t c = tree.levels; c-- > 0 && next < weight[r].size();) {  // the deepest (cheapest) level first
      const std::uint64_t peers_at_c = tree.below_parent(c) - tree.below[c];
      for (std::uint64_t k = 0; k < peers_at_c && next < weight[r].size(); ++k)
        latency += static_cast<double>(weight[r][next++]) * net.path_latency[c];
    }
    bound.latency_seconds = std::max(bound.latency_seconds, latency);
  }
  bound.seconds = bound.bandwidth_seconds + bound.latency_seconds;
  return bound;
}

}  // namespace mpimon
