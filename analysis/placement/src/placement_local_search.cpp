// Local search under the exact tree cost (VieM's idea, von Kirchbach, Schulz, Traeff): a rank is
// only tried on the leaves next to its peers (the bottom subtree of each peer's leaf), swapped with
// their occupant or moved to a free leaf; after a swap only the ranks whose neighbourhood changed
// are looked at again. O(non-zeros x bottom arity) per sweep, no N x N anywhere.
#include <algorithm>
#include <chrono>
#include <deque>
#include <unordered_map>

#include "mpimon/placement/mappers.hpp"
#include "placement_internal.hpp"

namespace mpimon {

namespace placement_detail {

TreeShape::TreeShape(const TreeTopology& topo)
    : levels(topo.levels()), leaves(topo.leaves()), below(levels), suffix(levels + 1, 0) {
  std::uint64_t size = leaves;
  for (std::uint32_t l = 0; l < levels; ++l) below[l] = size /= topo.arity[l];
  for (std::uint32_t l = levels; l-- > 0;) suffix[l] = suffix[l + 1] + topo.link_cost[l];
}

Csr::Csr(const AffinityGraph& graph) : offset(graph.order + 1, 0) {
  for (const auto& e : graph.edges) ++offset[e.a + 1], ++offset[e.b + 1];
  for (std::uint32_t v = 0; v < graph.order; ++v) offset[v + 1] += offset[v];
  peer.resize(offset.back());
  weight.resize(offset.back());
  std::vector<std::uint64_t> next(offset.begin(), offset.end() - 1);
  for (const auto& e : graph.edges) {
    peer[next[e.a]] = e.b, weight[next[e.a]++] = e.weight;
    peer[next[e.b]] = e.a, weight[next[e.b]++] = e.weight;
  }
}

}  // namespace placement_detail

namespace {

using placement_detail::Csr;
using placement_detail::TreeShape;
__extension__ typedef __int128 int128;
constexpr std::int64_t kFree = -1;
// Above this degree a rank's cost at a leaf comes from per-subtree sums, and it is not tried as
// the partner of a swap (each try would cost its degree).
constexpr std::uint64_t kDirectDegree = 64;
// A rank looks for leaves next to at most this many of its heaviest peers.
constexpr std::size_t kPeersTried = 8;
// Trees this small also get passes over every pair of leaves (as the exhaustive refinement did).
constexpr std::uint64_t kAllPairsLeaves = 256;

class LocalSearch {
 public:
  LocalSearch(const AffinityGraph& graph, const TreeTopology& topo, Mapping mapping)
      : tree_(topo),
        csr_(graph),
        leaf_(std::move(mapping)),
        occupant_(tree_.leaves, kFree),
        peer_weight_(graph.order, 0),
        tried_(tree_.leaves, 0),
        group_(tree_.levels >= 2 ? tree_.below[tree_.levels - 2] : tree_.leaves),
        queued_(graph.order, true),
        cost_valid_(graph.order, false),
        cached_cost_(graph.order, 0) {
    for (std::uint32_t r = 0; r < graph.order; ++r) occupant_[leaf_[r]] = r;
    for (std::uint64_t l = 0; l < tree_.leaves; ++l) usable_.push_back(topo.usable(l));
    for (std::uint32_t r = 0; r < graph.order; ++r) queue_.push_back(r);
  }

  Mapping run(std::chrono::steady_clock::time_point deadline) {
    do {
      for (std::uint64_t step = 0; !queue_.empty(); ++step) {
        if ((step & 255) == 0 && std::chrono::steady_clock::now() > deadline) return leaf_;
        const std::uint32_t v = queue_.front();
        queue_.pop_front();
        queued_[v] = false;
        improve(v);
      }
    } while (tree_.leaves <= kAllPairsLeaves && all_pairs_pass(deadline));
    return leaf_;
  }

 private:
  // The cost of v's edges with v on `leaf` (its peers where they are).
  int128 cost_at(std::uint32_t v, std::uint64_t leaf) const {
    int128 c = 0;
    for (auto k = csr_.offset[v]; k < csr_.offset[v + 1]; ++k)
      c += static_cast<int128>(csr_.weight[k]) * tree_.distance(leaf, leaf_[csr_.peer[k]]);
    return c;
  }

  // For a rank of high degree: the traffic to its peers in each subtree of each level.
  void index_subtrees(std::uint32_t v) {
    sums_.assign(tree_.levels, {});
    total_ = 0;
    for (auto k = csr_.offset[v]; k < csr_.offset[v + 1]; ++k) {
      total_ += csr_.weight[k];
      for (std::uint32_t l = 0; l < tree_.levels; ++l) sums_[l][leaf_[csr_.peer[k]] / tree_.below[l]] += csr_.weight[k];
    }
  }
  int128 indexed_cost_at(std::uint64_t leaf) const {
    int128 c = 0;
    for (std::uint32_t l = 0; l < tree_.levels; ++l) {
      const auto it = sums_[l].find(leaf / tree_.below[l]);
      c += static_cast<int128>(tree_.suffix[l] - tree_.suffix[l + 1]) *
           (total_ - (it == sums_[l].end() ? 0 : it->second));
    }
    return c;
  }

  void improve(std::uint32_t v) {
    const std::uint64_t from = leaf_[v];
    const bool indexed = csr_.degree(v) > kDirectDegree;
    if (indexed) index_subtrees(v);
    const int128 base = indexed ? indexed_cost_at(from) : cost_at(v, from);
    for (auto k = csr_.offset[v]; k < csr_.offset[v + 1]; ++k) peer_weight_[csr_.peer[k]] = csr_.weight[k];
    ++stamp_;
    tried_[from] = stamp_;
    int128 best = 0;
    std::uint64_t best_leaf = from;
    const std::uint64_t last_cost = tree_.suffix[tree_.levels - 1];
    const std::uint64_t own = from / group_;
    for (std::uint32_t p : heaviest_peers(v)) {
      // The leaves of a bottom subtree are interchangeable: a swap inside v's own changes nothing.
      if (leaf_[p] / group_ == own) continue;
      const std::uint64_t first = leaf_[p] / group_ * group_;
      int128 in_group = -1;  // v's cost in this group with its peers there all at the last level's cost
      for (std::uint64_t x = first; x < first + group_ && x < tree_.leaves; ++x) {
        if (tried_[x] == stamp_) continue;
        tried_[x] = stamp_;
        if (!usable_[x]) continue;
        const std::int64_t y = occupant_[x];
        const std::uint64_t w_x = y == kFree ? 0 : peer_weight_[y];
        if (!indexed && in_group < 0) in_group = group_cost(v, first);
        int128 delta = (indexed ? indexed_cost_at(x) : in_group - static_cast<int128>(w_x) * last_cost) - base;
        if (y != kFree) {
          const auto u = static_cast<std::uint32_t>(y);
          if (csr_.degree(u) > kDirectDegree) continue;
          delta += cost_at(u, from) - current_cost(u) + 2 * static_cast<int128>(w_x) * tree_.distance(from, x);
        }
        if (delta < best) best = delta, best_leaf = x;
      }
    }
    for (auto k = csr_.offset[v]; k < csr_.offset[v + 1]; ++k) peer_weight_[csr_.peer[k]] = 0;
    if (best_leaf != from) swap(v, from, best_leaf);
  }

  // v's cost on any leaf of the bottom subtree starting at `first`, its peers in that subtree
  // counted at the last level's cost (the caller subtracts the one on the leaf itself).
  int128 group_cost(std::uint32_t v, std::uint64_t first) const {
    int128 c = 0;
    const std::uint64_t last_cost = tree_.suffix[tree_.levels - 1];
    for (auto k = csr_.offset[v]; k < csr_.offset[v + 1]; ++k) {
      const std::uint64_t at = leaf_[csr_.peer[k]];
      c +=
          static_cast<int128>(csr_.weight[k]) * (at / group_ == first / group_ ? last_cost : tree_.distance(first, at));
    }
    return c;
  }

  // The cost of u's edges where u is, cached until u or a peer moves.
  int128 current_cost(std::uint32_t u) {
    if (!cost_valid_[u]) cached_cost_[u] = cost_at(u, leaf_[u]), cost_valid_[u] = true;
    return cached_cost_[u];
  }

  // On small trees, every pair of leaves too (what the neighbourhoods miss); true when a swap helped.
  bool all_pairs_pass(std::chrono::steady_clock::time_point deadline) {
    bool improved = false;
    for (std::uint64_t a = 0; a < tree_.leaves; ++a) {
      if (std::chrono::steady_clock::now() > deadline) break;
      for (std::uint64_t b = a + 1; b < tree_.leaves; ++b) {
        const std::int64_t x = occupant_[a], y = occupant_[b];
        if ((x == kFree && y == kFree) || !usable_[a] || !usable_[b]) continue;
        int128 delta = 0;
        if (x != kFree) delta += cost_at(static_cast<std::uint32_t>(x), b) - cost_at(static_cast<std::uint32_t>(x), a);
        if (y != kFree) delta += cost_at(static_cast<std::uint32_t>(y), a) - cost_at(static_cast<std::uint32_t>(y), b);
        if (x != kFree && y != kFree) delta += 2 * static_cast<int128>(weight_between(x, y)) * tree_.distance(a, b);
        if (delta >= 0) continue;
        if (x != kFree) {
          swap(static_cast<std::uint32_t>(x), a, b);
        } else {
          swap(static_cast<std::uint32_t>(y), b, a);
        }
        improved = true;
      }
    }
    return improved;
  }

  std::uint64_t weight_between(std::int64_t x, std::int64_t y) const {
    for (auto k = csr_.offset[x]; k < csr_.offset[x + 1]; ++k) {
      if (csr_.peer[k] == y) return csr_.weight[k];
    }
    return 0;
  }

  std::vector<std::uint32_t> heaviest_peers(std::uint32_t v) const {
    std::vector<std::pair<std::uint64_t, std::uint32_t>> peers;
    for (auto k = csr_.offset[v]; k < csr_.offset[v + 1]; ++k) peers.emplace_back(csr_.weight[k], csr_.peer[k]);
    if (peers.size() > kPeersTried) {
      std::partial_sort(peers.begin(), peers.begin() + kPeersTried, peers.end(), std::greater<>());
      peers.resize(kPeersTried);
    }
    std::vector<std::uint32_t> out;
    for (const auto& p : peers) out.push_back(p.second);
    return out;
  }

  void swap(std::uint32_t v, std::uint64_t from, std::uint64_t to) {
    const std::int64_t u = occupant_[to];
    occupant_[to] = v, leaf_[v] = to;
    occupant_[from] = u;
    wake(v);
    if (u != kFree) leaf_[u] = from, wake(static_cast<std::uint32_t>(u));
  }

  // v moved: it and its peers may now have a better swap (and their costs changed).
  void wake(std::uint32_t v) {
    auto push = [&](std::uint32_t r) {
      cost_valid_[r] = false;
      if (!queued_[r]) queued_[r] = true, queue_.push_back(r);
    };
    push(v);
    for (auto k = csr_.offset[v]; k < csr_.offset[v + 1]; ++k) push(csr_.peer[k]);
  }

  TreeShape tree_;
  Csr csr_;
  Mapping leaf_;
  std::vector<std::int64_t> occupant_;
  std::vector<std::uint64_t> peer_weight_;  // weight to the rank being improved, 0 for others
  std::vector<std::uint64_t> tried_;
  std::uint64_t stamp_ = 0;
  std::uint64_t group_;  // leaves of a bottom subtree
  std::vector<bool> queued_;
  std::vector<bool> usable_;
  std::vector<bool> cost_valid_;
  std::vector<int128> cached_cost_;
  std::deque<std::uint32_t> queue_;
  std::vector<std::unordered_map<std::uint64_t, std::uint64_t>> sums_;
  std::uint64_t total_ = 0;
};

}  // namespace

Mapping refine_mapping(const AffinityGraph& graph, const TreeTopology& topo, Mapping start, double max_seconds) {
  check_mapping(start, graph.order, topo);
  const auto deadline = placement_detail::deadline_after(max_seconds);
  Mapping best = LocalSearch(graph, topo, std::move(start)).run(deadline);
  // A fresh search, its caches rebuilt, finds swaps the previous one's queue no longer held (about
  // 0.6 % on random geometric graphs): repeat while it gains and time is left.
  for (uint128 cost = evaluate_mapping(graph, topo, best).cost; std::chrono::steady_clock::now() < deadline;) {
    Mapping next = LocalSearch(graph, topo, best).run(deadline);
    const uint128 next_cost = evaluate_mapping(graph, topo, next).cost;
    if (next_cost >= cost) break;
    best = std::move(next), cost = next_cost;
  }
  return best;
}

}  // namespace mpimon
