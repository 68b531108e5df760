// Global multisection (Faraj, van der Grinten, Meyerhenke, Traeff, Schulz, SEA 2020), written here
// from the paper's idea: split the ranks into as many parts as the top level has subtrees with a
// multilevel partitioner (METIS), each part again at the next level, down to one rank per leaf.
// The parts are balanced exactly (subtrees filled in order, so fewer ranks than leaves stay
// packed); the local search then works under the exact tree cost. O(levels x non-zeros) memory.
#include <metis.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <queue>
#include <random>
#include <set>
#include <tuple>

#include "mpimon/base/error.hpp"
#include "mpimon/placement/mappers.hpp"
#include "placement_internal.hpp"

namespace mpimon {

namespace {

using placement_detail::Csr;
using placement_detail::TreeShape;

constexpr std::size_t kRecursiveParts = 256;
// METIS's imbalance (1/1000) on the tight seeds and the loose ones: a loose split, made exact by
// balance(), often cuts less traffic at the top levels (random geometric graphs: 4-8 % cheaper).
constexpr idx_t kTightImbalance = 1, kLooseImbalance = 100;

class Multisection {
 public:
  Multisection(const AffinityGraph& graph, const TreeTopology& topo, std::uint64_t seed)
      : tree_(topo),
        csr_(graph),
        seed_(seed),
        rng_(seed),
        local_(graph.order, -1),
        mapping_(graph.order),
        usable_before_(tree_.leaves + 1, 0) {
    for (std::uint64_t l = 0; l < tree_.leaves; ++l)
      usable_before_[l + 1] = usable_before_[l] + (topo.usable(l) ? 1 : 0);
  }

  Mapping run() {
    std::vector<std::uint32_t> all(csr_.offset.size() - 1);
    std::iota(all.begin(), all.end(), 0u);
    split(all, 0, 0);
    return mapping_;
  }

 private:
  // Places `ranks` in the subtree of level `level` whose first leaf is `first`.
  void split(const std::vector<std::uint32_t>& ranks, std::uint32_t level, std::uint64_t first) {
    if (ranks.empty()) return;
    if (level == tree_.levels) {
      mapping_[ranks[0]] = first;
      return;
    }
    // Children filled in order (their usable leaves each), so fewer ranks than leaves stay packed.
    const std::uint64_t size = tree_.below[level];
    std::vector<std::uint64_t> sizes, child;
    std::uint64_t left = ranks.size();
    for (std::uint64_t c = 0; first + c * size < first + tree_.below_parent(level) && left > 0; ++c) {
      const std::uint64_t capacity = usable_in(first + c * size, size);
      if (capacity == 0) continue;
      sizes.push_back(std::min(capacity, left));
      child.push_back(c);
      left -= sizes.back();
    }
    // Children that are single leaves are interchangeable (every leaf of a bottom subtree costs the
    // same to every other leaf): one rank each, in order, without METIS (it was a third of the time).
    std::vector<std::uint32_t> part(ranks.size(), 0);
    if (size == 1) {
      std::iota(part.begin(), part.end(), 0u);
    } else if (sizes.size() > 1) {
      part = partition(ranks, sizes);
    }
    std::vector<std::vector<std::uint32_t>> members(sizes.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) members[part[i]].push_back(ranks[i]);
    for (std::size_t p = 0; p < sizes.size(); ++p) split(members[p], level + 1, first + child[p] * size);
  }

  std::uint64_t usable_in(std::uint64_t first, std::uint64_t count) const {
    return usable_before_[first + count] - usable_before_[first];
  }

  // METIS on the subgraph of `ranks`, then moves until every part has exactly its size.
  std::vector<std::uint32_t> partition(const std::vector<std::uint32_t>& given,
                                       const std::vector<std::uint64_t>& sizes) {
    // METIS 5.1 gives the same parts whatever its seed option: the vertex order is what varies.
    std::vector<std::uint32_t> ranks = given;
    if (seed_ > 0) std::shuffle(ranks.begin(), ranks.end(), rng_);
    for (std::size_t i = 0; i < ranks.size(); ++i) local_[ranks[i]] = static_cast<std::int64_t>(i);
    std::vector<idx_t> xadj(1, 0), adjncy;
    std::vector<std::uint64_t> weights;
    long double total = 0;
    for (std::uint32_t r : ranks) {
      for (auto k = csr_.offset[r]; k < csr_.offset[r + 1]; ++k) {
        if (local_[csr_.peer[k]] < 0) continue;
        adjncy.push_back(static_cast<idx_t>(local_[csr_.peer[k]]));
        weights.push_back(csr_.weight[k]);
        total += csr_.weight[k];
      }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
    }
    // METIS sums weights in 32-bit integers: scale so that the total fits, no edge below 1.
    const long double scale = total > (1 << 28) ? (1 << 28) / total : 1.0L;
    std::vector<idx_t> adjwgt(weights.size());
    for (std::size_t k = 0; k < weights.size(); ++k)
      adjwgt[k] = static_cast<idx_t>(std::max<long double>(1, std::llround(weights[k] * scale)));
    idx_t n = static_cast<idx_t>(ranks.size()), constraints = 1, nparts = static_cast<idx_t>(sizes.size()), cut = 0;
    std::vector<real_t> target(sizes.size());
    for (std::size_t p = 0; p < sizes.size(); ++p) target[p] = static_cast<real_t>(sizes[p]) / static_cast<real_t>(n);
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(seed_ % 1000003);
    options[METIS_OPTION_UFACTOR] = (seed_ / 2) % 2 == 0 ? kTightImbalance : kLooseImbalance;
    options[METIS_OPTION_NUMBERING] = 0;
    std::vector<idx_t> part(ranks.size(), 0);
    // Seeds alternate METIS's two methods (recursive bisection is often better for few parts), and
    // by pairs its imbalance. k-way alone for many parts, where bisections would cost log2(parts) passes.
    const bool recursive = seed_ % 2 == 0 && sizes.size() <= kRecursiveParts;
    const int status =
        adjncy.empty() ? METIS_ERROR
        : recursive
            ? METIS_PartGraphRecursive(&n, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, adjwgt.data(),
                                       &nparts, target.data(), nullptr, options, &cut, part.data())
            : METIS_PartGraphKway(&n, &constraints, xadj.data(), adjncy.data(), nullptr, nullptr, adjwgt.data(),
                                  &nparts, target.data(), nullptr, options, &cut, part.data());
    std::vector<std::uint32_t> assigned(ranks.size());
    if (status == METIS_OK) {
      for (std::size_t i = 0; i < ranks.size(); ++i) assigned[i] = static_cast<std::uint32_t>(part[i]);
    } else {  // no edges (or METIS refused): ranks in order
      for (std::size_t i = 0, p = 0, used = 0; i < ranks.size(); ++i, ++used) {
        if (used == sizes[p]) ++p, used = 0;
        assigned[i] = static_cast<std::uint32_t>(p);
      }
    }
    balance(xadj, adjncy, weights, sizes, assigned);
    std::vector<std::uint32_t> in_given_order(ranks.size());
    for (std::size_t i = 0; i < given.size(); ++i) in_given_order[i] = assigned[local_[given[i]]];
    for (std::uint32_t r : ranks) local_[r] = -1;
    return in_given_order;
  }

  // Moves ranks out of parts above their size into parts below it, the move that keeps the most
  // traffic first; a move whose target filled up meanwhile is re-aimed. O(moves x degree x log).
  static void balance(const std::vector<idx_t>& xadj, const std::vector<idx_t>& adjncy,
                      const std::vector<std::uint64_t>& weights, const std::vector<std::uint64_t>& sizes,
                      std::vector<std::uint32_t>& part) {
    std::vector<std::int64_t> excess(sizes.size());
    for (std::size_t p = 0; p < sizes.size(); ++p) excess[p] = -static_cast<std::int64_t>(sizes[p]);
    for (auto p : part) ++excess[p];
    std::set<std::uint32_t> short_parts;
    for (std::uint32_t p = 0; p < sizes.size(); ++p) {
      if (excess[p] < 0) short_parts.insert(p);
    }
    if (short_parts.empty()) return;
    std::vector<double> to(sizes.size(), 0);
    using Move = std::tuple<double, std::uint32_t, std::uint32_t>;  // gain, rank, target
    // The best part below its size for v (the first such part when v has no traffic to any).
    auto aim = [&](std::uint32_t v) {
      for (auto k = xadj[v]; k < xadj[v + 1]; ++k) to[part[adjncy[k]]] += static_cast<double>(weights[k]);
      std::uint32_t target = *short_parts.begin();
      double best = 0;
      for (auto k = xadj[v]; k < xadj[v + 1]; ++k) {
        const std::uint32_t p = part[adjncy[k]];
        if (excess[p] < 0 && to[p] > best) best = to[p], target = p;
      }
      const Move move{best - to[part[v]], v, target};
      for (auto k = xadj[v]; k < xadj[v + 1]; ++k) to[part[adjncy[k]]] = 0;
      return move;
    };
    std::priority_queue<Move> moves;
    for (std::uint32_t v = 0; v < part.size(); ++v) {
      if (excess[part[v]] > 0) moves.push(aim(v));
    }
    while (!moves.empty() && !short_parts.empty()) {
      const auto [gain, v, target] = moves.top();
      moves.pop();
      if (excess[part[v]] <= 0) continue;
      if (excess[target] >= 0) {
        moves.push(aim(v));
        continue;
      }
      --excess[part[v]], ++excess[target];
      if (excess[target] == 0) short_parts.erase(target);
      part[v] = target;
    }
  }

  TreeShape tree_;
  Csr csr_;
  std::uint64_t seed_;
  std::mt19937_64 rng_;
  std::vector<std::int64_t> local_;  // index of a rank in the subgraph being split, -1 outside it
  Mapping mapping_;
  std::vector<std::uint64_t> usable_before_;  // usable leaves before each leaf
};

}  // namespace

Mapping multisection_mapping(const AffinityGraph& graph, const TreeTopology& topo, std::uint64_t seed) {
  if (graph.order > topo.usable_leaves()) {
    raise_error(Error::Kind::input, "--topology",
                std::to_string(graph.order) + " ranks do not fit on " + std::to_string(topo.usable_leaves()) +
                    " usable leaves");
  }
  return Multisection(graph, topo, seed).run();
}

}  // namespace mpimon
