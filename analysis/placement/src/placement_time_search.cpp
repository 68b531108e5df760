// Local search on the predicted time (time_model.hpp). The prediction is a sum of two maxima (the
// busiest link, the rank paying the most latency), flat almost everywhere for a search: moving one
// rank changes it only when the rank uses the busiest link, and where several links are equally
// busy (a symmetric stencil) no single move lowers it. So the search descends a surrogate that the
// busiest terms dominate, sum over links and ranks of (their time / the start's predicted time)^8,
// and keeps the mapping whose predicted time is the least it has seen.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/time_model.hpp"
#include "placement_internal.hpp"

namespace mpimon {

namespace {

using placement_detail::TimeNetwork;
constexpr std::int64_t kFree = -1;
// Trees this small try every leaf for every rank; larger ones the leaves next to its heaviest peers
// and a few drawn at random.
constexpr std::uint64_t kAllLeaves = 256;
constexpr std::size_t kPeersTried = 8, kRandomTried = 16;
// A move must lower the surrogate by more than this (its busiest term is about 1): rounding never
// makes the search cycle.
constexpr double kMinGain = 1e-12;
// Perturbations without a faster mapping after which the search stops (plus one per rank).
constexpr std::size_t kPatience = 50;

class TimeSearch {
 public:
  TimeSearch(const TimeTraffic& traffic, const TreeTopology& topo)
      : net_(topo),
        traffic_(traffic),
        occupant_(net_.tree.leaves, kFree),
        flows_of_(traffic.order),
        load_(2 * net_.links(), 0),
        latency_(traffic.order, 0),
        link_delta_(load_.size(), 0),
        latency_delta_(traffic.order, 0),
        link_mark_(load_.size(), 0),
        rank_mark_(traffic.order, 0),
        flow_mark_(traffic.flows.size(), 0),
        group_(net_.tree.levels >= 2 ? net_.tree.below[net_.tree.levels - 2] : net_.tree.leaves) {
    for (std::uint64_t x = 0; x < net_.tree.leaves; ++x) {
      if (topo.usable(x)) usable_.push_back(x);
    }
    std::vector<std::vector<std::pair<double, std::uint32_t>>> peers(traffic.order);
    for (std::size_t k = 0; k < traffic.flows.size(); ++k) {
      const auto& f = traffic.flows[k];
      flows_of_[f.from].push_back(k), flows_of_[f.to].push_back(k);
      peers[f.from].emplace_back(static_cast<double>(f.bytes), f.to);
      peers[f.to].emplace_back(static_cast<double>(f.bytes), f.from);
    }
    heaviest_.resize(traffic.order);
    for (std::uint32_t r = 0; r < traffic.order; ++r) {
      auto& p = peers[r];
      const std::size_t keep = std::min(p.size(), kPeersTried);
      std::partial_sort(p.begin(), p.begin() + static_cast<long>(keep), p.end(), std::greater<>());
      for (std::size_t k = 0; k < keep; ++k) heaviest_[r].push_back(p[k].second);
    }
  }

  /// Descends from `start` (the surrogate scaled by its predicted time) until no move helps or the
  /// deadline; returns the fastest mapping met and sets `seconds` to its predicted time.
  Mapping descend(Mapping start, std::chrono::steady_clock::time_point deadline, std::mt19937_64& rng,
                  double& seconds) {
    leaf_ = std::move(start);
    std::fill(occupant_.begin(), occupant_.end(), kFree);
    for (std::uint32_t r = 0; r < traffic_.order; ++r) occupant_[leaf_[r]] = r;
    recompute();
    scale_ = predicted();
    Mapping best = leaf_;
    seconds = scale_;
    if (scale_ <= 0 || net_.tree.levels < 2) return best;
    double best_time = predicted();
    std::vector<std::uint64_t> candidates;
    for (bool moved = true; moved;) {
      moved = false;
      for (std::uint32_t v = 0; v < traffic_.order; ++v) {
        if ((v & 15) == 0 && std::chrono::steady_clock::now() > deadline) return best_of(best, best_time, seconds);
        candidates_of(v, rng, candidates);
        double best_delta = -kMinGain;
        std::uint64_t target = leaf_[v];
        for (const std::uint64_t x : candidates) {
          const double d = delta(v, x);
          if (d < best_delta) best_delta = d, target = x;
        }
        if (target != leaf_[v]) move(v, target), moved = true;
      }
      recompute();  // no drift from the incremental updates
      if (predicted() < best_time) best = leaf_, best_time = predicted();
    }
    seconds = best_time;
    return best;
  }

  /// `m` with `swaps` random exchanges of ranks (or a rank and a free leaf) in different bottom subtrees.
  Mapping perturbed(Mapping m, std::size_t swaps, std::mt19937_64& rng) const {
    std::vector<std::int64_t> at(net_.tree.leaves, kFree);
    for (std::uint32_t r = 0; r < m.size(); ++r) at[m[r]] = r;
    std::uniform_int_distribution<std::uint32_t> rank(0, static_cast<std::uint32_t>(m.size() - 1));
    std::uniform_int_distribution<std::size_t> leaf(0, usable_.size() - 1);
    for (std::size_t tries = 0, done = 0; tries < 4 * swaps && done < swaps; ++tries) {
      const std::uint32_t v = rank(rng);
      const std::uint64_t x = usable_[leaf(rng)], from = m[v];
      if (x / group_ == from / group_) continue;
      const std::int64_t u = at[x];
      m[v] = x, at[x] = v, at[from] = u;
      if (u != kFree) m[static_cast<std::size_t>(u)] = from;
      ++done;
    }
    return m;
  }

 private:
  Mapping best_of(Mapping& best, double best_time, double& seconds) {
    recompute();
    seconds = std::min(best_time, predicted());
    return predicted() < best_time ? leaf_ : best;
  }

  // The surrogate's term of a time.
  [[nodiscard]] double term(double seconds) const {
    const double x = seconds / scale_, x2 = x * x, x4 = x2 * x2;
    return x4 * x4;
  }

  [[nodiscard]] double predicted() const {
    return *std::max_element(load_.begin(), load_.end()) + *std::max_element(latency_.begin(), latency_.end());
  }

  // Adds (sign +1) or removes (-1) a flow's time on its links and its sender's latency, into the
  // state or, with `into_delta`, into the deltas of a candidate move (marking what it touches).
  void apply(const TimeTraffic::Flow& f, std::uint64_t a, std::uint64_t b, double sign, bool into_delta) {
    const std::uint32_t c = net_.common_level(a, b);
    for (std::uint32_t l = c; l < net_.tree.levels; ++l) {
      const double t = sign * static_cast<double>(f.bytes) * net_.seconds_per_byte[l];
      if (t == 0) continue;
      const std::uint64_t up = 2 * net_.link(l, a), down = 2 * net_.link(l, b) + 1;
      if (into_delta) {
        touch_link(up), touch_link(down);
        link_delta_[up] += t, link_delta_[down] += t;
      } else {
        load_[up] += t, load_[down] += t;
      }
    }
    const double t = sign * static_cast<double>(f.messages + 2 * f.rendezvous) * net_.path_latency[c];
    if (t == 0) return;
    if (into_delta) {
      if (rank_mark_[f.from] != stamp_) rank_mark_[f.from] = stamp_, touched_ranks_.push_back(f.from);
      latency_delta_[f.from] += t;
    } else {
      latency_[f.from] += t;
    }
  }
  void touch_link(std::uint64_t id) {
    if (link_mark_[id] != stamp_) link_mark_[id] = stamp_, touched_links_.push_back(id);
  }

  // The flows of v and of x's occupant, each once.
  void gather(std::uint32_t v, std::int64_t u) {
    ++stamp_;
    moved_flows_.clear();
    touched_links_.clear();
    touched_ranks_.clear();
    for (const std::int64_t r : {static_cast<std::int64_t>(v), u}) {
      if (r == kFree) continue;
      for (const std::size_t k : flows_of_[static_cast<std::size_t>(r)]) {
        if (flow_mark_[k] != stamp_) flow_mark_[k] = stamp_, moved_flows_.push_back(k);
      }
    }
  }

  // The change of the surrogate if v moved to leaf x (swapping with its occupant).
  double delta(std::uint32_t v, std::uint64_t x) {
    const std::uint64_t from = leaf_[v];
    const std::int64_t u = occupant_[x];
    gather(v, u);
    auto after = [&](std::uint32_t r) { return r == v ? x : (static_cast<std::int64_t>(r) == u ? from : leaf_[r]); };
    for (const std::size_t k : moved_flows_) {
      const auto& f = traffic_.flows[k];
      apply(f, leaf_[f.from], leaf_[f.to], -1, true);
      apply(f, after(f.from), after(f.to), +1, true);
    }
    double d = 0;
    for (const std::uint64_t id : touched_links_) {
      d += term(std::max(load_[id] + link_delta_[id], 0.0)) - term(load_[id]);
      link_delta_[id] = 0;
    }
    for (const std::uint32_t r : touched_ranks_) {
      d += term(std::max(latency_[r] + latency_delta_[r], 0.0)) - term(latency_[r]);
      latency_delta_[r] = 0;
    }
    return d;
  }

  void move(std::uint32_t v, std::uint64_t x) {
    const std::uint64_t from = leaf_[v];
    const std::int64_t u = occupant_[x];
    gather(v, u);
    for (const std::size_t k : moved_flows_)
      apply(traffic_.flows[k], leaf_[traffic_.flows[k].from], leaf_[traffic_.flows[k].to], -1, false);
    leaf_[v] = x, occupant_[x] = v, occupant_[from] = u;
    if (u != kFree) leaf_[static_cast<std::size_t>(u)] = from;
    for (const std::size_t k : moved_flows_)
      apply(traffic_.flows[k], leaf_[traffic_.flows[k].from], leaf_[traffic_.flows[k].to], +1, false);
  }

  void recompute() {
    std::fill(load_.begin(), load_.end(), 0.0);
    std::fill(latency_.begin(), latency_.end(), 0.0);
    for (const auto& f : traffic_.flows) apply(f, leaf_[f.from], leaf_[f.to], +1, false);
  }

  // Leaves outside v's bottom subtree (a swap inside it changes nothing): every usable one on small
  // trees, else its heaviest peers' bottom subtrees and a few drawn at random.
  void candidates_of(std::uint32_t v, std::mt19937_64& rng, std::vector<std::uint64_t>& out) const {
    out.clear();
    const std::uint64_t own = leaf_[v] / group_;
    auto add = [&](std::uint64_t x) {
      if (x / group_ != own) out.push_back(x);
    };
    if (usable_.size() <= kAllLeaves) {
      for (const std::uint64_t x : usable_) add(x);
      return;
    }
    for (const std::uint32_t p : heaviest_[v]) {
      const std::uint64_t first = leaf_[p] / group_ * group_;
      for (std::uint64_t x = first; x < first + group_; ++x) {
        if (std::binary_search(usable_.begin(), usable_.end(), x)) add(x);
      }
    }
    std::uniform_int_distribution<std::size_t> pick(0, usable_.size() - 1);
    for (std::size_t k = 0; k < kRandomTried; ++k) add(usable_[pick(rng)]);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }

  TimeNetwork net_;
  const TimeTraffic& traffic_;
  Mapping leaf_;
  std::vector<std::int64_t> occupant_;
  std::vector<std::uint64_t> usable_;                 // in increasing order
  std::vector<std::vector<std::size_t>> flows_of_;    // flows each rank sends or receives
  std::vector<std::vector<std::uint32_t>> heaviest_;  // its heaviest peers by bytes
  std::vector<double> load_;                          // [2 link + (0 up, 1 down)]: seconds of bytes
  std::vector<double> latency_;                       // per rank: seconds its sends pay
  std::vector<double> link_delta_, latency_delta_;    // a candidate move's changes
  std::vector<std::uint64_t> link_mark_, rank_mark_, flow_mark_;
  std::vector<std::uint64_t> touched_links_;
  std::vector<std::uint32_t> touched_ranks_;
  std::vector<std::size_t> moved_flows_;
  std::uint64_t stamp_ = 0;
  std::uint64_t group_;  // leaves of a bottom subtree
  double scale_ = 0;
};

}  // namespace

Mapping refine_time_mapping(const TimeTraffic& traffic, const TreeTopology& topo, const std::vector<Mapping>& starts,
                            double max_seconds) {
  if (starts.empty()) raise_error(Error::Kind::input, "mapping", "no mapping to start the search from");
  for (const auto& s : starts) check_mapping(s, traffic.order, topo);
  const auto deadline = placement_detail::deadline_after(max_seconds);
  TimeSearch search(traffic, topo);
  std::mt19937_64 rng(1);
  Mapping best;
  double best_seconds = 0;
  auto keep = [&](Mapping m, double seconds) {
    if (best.empty() || seconds < best_seconds) best = std::move(m), best_seconds = seconds;
  };
  for (const auto& s : starts) {  // every start descended once
    double seconds = 0;
    Mapping m = search.descend(s, deadline, rng, seconds);
    keep(std::move(m), seconds);
    if (std::chrono::steady_clock::now() > deadline) return best;
  }
  if (best_seconds <= 0 || topo.levels() < 2) return best;  // nothing to lower, or nowhere to move
  // Then the best perturbed (a few ranks swapped at random) and descended again, while that finds
  // faster mappings now and then: a max has local minima the surrogate's descent cannot leave.
  const std::size_t patience = kPatience + traffic.order;
  for (std::size_t idle = 0; idle < patience && std::chrono::steady_clock::now() < deadline; ++idle) {
    const std::size_t swaps = 2 + rng() % std::max<std::size_t>(2, traffic.order / 8);
    double seconds = 0;
    Mapping m = search.descend(search.perturbed(best, swaps, rng), deadline, rng, seconds);
    if (seconds < best_seconds) idle = 0;
    keep(std::move(m), seconds);
  }
  return best;
}

}  // namespace mpimon
