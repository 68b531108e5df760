// keep_ranks: a mapping relabelled by the symmetries of the machine's tree so that as many processes
// as possible keep their rank, rank 0 first (reorder_model.hpp). Exchanging two subtrees of one
// shape under one parent moves no pair of leaves closer or further apart, so the modelled cost
// cannot change. The best relabelling is a dynamic programme over the tree: the most vertices a
// subtree A of the mapping can bring home when it is laid onto a subtree H of the same shape is a
// maximum-weight assignment of A's children onto H's children, from the same numbers one level
// down. Only pairs (A, H) that hold a vertex of A whose home is in H are ever computed: at most one
// per vertex and level.
#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "mpimon/base/error.hpp"
#include "reorder_model.hpp"

namespace mpimon::reorder {

namespace {

/// Per depth (0: the root, levels(): the leaves), each subtree's shape: equal ids at one depth are
/// subtrees that a symmetry exchanges (the same arities and the same usable leaves up to order).
std::vector<std::vector<std::uint32_t>> subtree_shapes(const TreeTopology& topo) {
  const std::uint32_t levels = topo.levels();
  std::vector<std::vector<std::uint32_t>> shape(levels + 1);
  shape[levels].resize(topo.leaves());
  for (std::uint64_t leaf = 0; leaf < shape[levels].size(); ++leaf) shape[levels][leaf] = topo.usable(leaf) ? 1 : 0;
  for (std::uint32_t d = levels; d-- > 0;) {
    const std::uint32_t arity = topo.arity[d];
    shape[d].resize(shape[d + 1].size() / arity);
    std::map<std::vector<std::uint32_t>, std::uint32_t> ids;
    std::vector<std::uint32_t> children(arity);
    for (std::uint64_t i = 0; i < shape[d].size(); ++i) {
      std::copy_n(shape[d + 1].begin() + static_cast<std::ptrdiff_t>(i * arity), arity, children.begin());
      std::sort(children.begin(), children.end());
      shape[d][i] = ids.try_emplace(children, static_cast<std::uint32_t>(ids.size())).first->second;
    }
  }
  return shape;
}

using Pair = std::pair<std::uint64_t, std::uint64_t>;  // (subtree of the mapping, subtree it is laid onto)
struct Candidate {
  Pair pair;
  std::uint64_t weight;
};

/// The Hungarian method (shortest augmenting paths with potentials, O(k^3)): the assignment of k
/// rows to k columns of the largest total weight; returns the column of each row.
std::vector<std::size_t> best_assignment(const std::vector<std::vector<std::int64_t>>& weight) {
  const std::size_t k = weight.size();
  constexpr std::int64_t kInf = std::numeric_limits<std::int64_t>::max() / 4;
  std::vector<std::int64_t> u(k + 1), v(k + 1);
  std::vector<std::size_t> row_of(k + 1, 0), way(k + 1, 0);  // 1-based; row_of[column], 0: free
  for (std::size_t row = 1; row <= k; ++row) {
    row_of[0] = row;
    std::size_t column = 0;
    std::vector<std::int64_t> least(k + 1, kInf);
    std::vector<bool> used(k + 1, false);
    do {
      used[column] = true;
      const std::size_t r = row_of[column];
      std::int64_t delta = kInf;
      std::size_t next = 0;
      for (std::size_t c = 1; c <= k; ++c) {
        if (used[c]) continue;
        const std::int64_t reduced = -weight[r - 1][c - 1] - u[r] - v[c];  // minimise the negated weight
        if (reduced < least[c]) least[c] = reduced, way[c] = column;
        if (least[c] < delta) delta = least[c], next = c;
      }
      for (std::size_t c = 0; c <= k; ++c) {
        if (used[c]) {
          u[row_of[c]] += delta, v[c] -= delta;
        } else {
          least[c] -= delta;
        }
      }
      column = next;
    } while (row_of[column] != 0);
    do {
      const std::size_t previous = way[column];
      row_of[column] = row_of[previous];
      column = previous;
    } while (column != 0);
  }
  std::vector<std::size_t> column_of(k);
  for (std::size_t c = 1; c <= k; ++c) column_of[row_of[c] - 1] = c - 1;
  return column_of;
}

/// The pairs of children to lay onto each other: a matching of the candidates (each subtree at most
/// once on either side) of the largest total weight; exact up to `exact_limit` subtrees a side,
/// heaviest first beyond.
std::vector<Candidate> best_matching(std::vector<Candidate> candidates, std::size_t exact_limit) {
  std::map<std::uint64_t, std::size_t> rows, columns;
  for (const auto& c : candidates) {
    rows.try_emplace(c.pair.first, rows.size());
    columns.try_emplace(c.pair.second, columns.size());
  }
  std::vector<Candidate> chosen;
  const std::size_t k = std::max(rows.size(), columns.size());
  if (k > exact_limit) {
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.weight > b.weight; });
    std::vector<bool> row_taken(rows.size()), column_taken(columns.size());
    for (const auto& c : candidates) {
      const std::size_t r = rows[c.pair.first], col = columns[c.pair.second];
      if (row_taken[r] || column_taken[col]) continue;
      row_taken[r] = column_taken[col] = true;
      chosen.push_back(c);
    }
    return chosen;
  }
  std::vector<std::vector<std::int64_t>> weight(k, std::vector<std::int64_t>(k, 0));
  for (const auto& c : candidates)
    weight[rows[c.pair.first]][columns[c.pair.second]] = static_cast<std::int64_t>(c.weight);
  const auto column_of = best_assignment(weight);
  for (const auto& c : candidates) {
    if (column_of[rows[c.pair.first]] == columns[c.pair.second]) chosen.push_back(c);
  }
  return chosen;
}

}  // namespace

Mapping keep_ranks(const Mapping& mapping, const TreeTopology& topo, const std::vector<std::uint64_t>& home,
                   std::size_t exact_limit) {
  if (home.size() < mapping.size()) {
    raise_error(Error::Kind::input, "keep_ranks", "fewer homes than vertices");
  }
  const std::uint32_t levels = topo.levels();
  if (mapping.empty() || levels == 0) return mapping;
  const auto shape = subtree_shapes(topo);
  // chosen[d][(A, H)]: the children pairs of the best assignment of A onto H (depth d), and best
  // scores one level down.
  std::vector<std::map<Pair, std::vector<Pair>>> chosen(levels);
  std::map<Pair, std::uint64_t> score;  // the current depth's pairs and what they bring home
  // Vertex 0 weighs more than all others together: it goes home whenever a symmetry allows.
  const auto vertices = static_cast<std::uint64_t>(mapping.size());
  for (std::size_t v = 0; v < mapping.size(); ++v) {
    if (!topo.usable(mapping[v]) || !topo.usable(home[v])) {
      raise_error(Error::Kind::input, "keep_ranks", "vertex " + std::to_string(v) + " on a free place");
    }
    score[{mapping[v], home[v]}] += v == 0 ? vertices : 1;
  }
  for (std::uint32_t d = levels; d-- > 0;) {
    const std::uint32_t arity = topo.arity[d];
    std::map<Pair, std::vector<Candidate>> by_parent;
    for (const auto& [pair, weight] : score) {
      by_parent[{pair.first / arity, pair.second / arity}].push_back({pair, weight});
    }
    std::map<Pair, std::uint64_t> parent_score;
    for (auto& [parent, candidates] : by_parent) {
      if (shape[d][parent.first] != shape[d][parent.second]) continue;  // no symmetry lays one onto the other
      std::uint64_t total = 0;
      auto& pairs = chosen[d][parent];
      for (const auto& c : best_matching(std::move(candidates), exact_limit)) {
        total += c.weight;
        pairs.push_back(c.pair);
      }
      parent_score[parent] = total;
    }
    score = std::move(parent_score);
  }
  // Top down: each subtree holding a vertex gets its image, the chosen pairs first, then the first
  // free subtree of its shape.
  std::unordered_map<std::uint64_t, std::uint64_t> image{{0, 0}};
  std::vector<std::uint64_t> span(levels + 1, 1);  // leaves below one subtree of each depth
  for (std::uint32_t d = levels; d-- > 0;) span[d] = span[d + 1] * topo.arity[d];
  for (std::uint32_t d = 0; d < levels; ++d) {
    const std::uint32_t arity = topo.arity[d];
    std::map<std::uint64_t, bool> needed;  // children at depth d + 1 that hold a vertex
    for (const auto leaf : mapping) needed[leaf / span[d + 1]] = true;
    std::unordered_map<std::uint64_t, std::uint64_t> next;
    for (const auto& [a, h] : image) {
      std::vector<bool> taken(arity, false);
      if (auto it = chosen[d].find({a, h}); it != chosen[d].end()) {
        for (const auto& [child, onto] : it->second) {
          next[child] = onto;
          taken[onto - h * arity] = true;
        }
      }
      for (std::uint32_t c = 0; c < arity; ++c) {
        const std::uint64_t child = a * arity + c;
        if (!needed.count(child) || next.count(child)) continue;
        std::uint32_t free = 0;
        while (free < arity && (taken[free] || shape[d + 1][h * arity + free] != shape[d + 1][child])) ++free;
        if (free == arity) raise_error(Error::Kind::input, "keep_ranks", "no subtree of the same shape left");
        taken[free] = true;
        next[child] = h * arity + free;
      }
    }
    image = std::move(next);
  }
  Mapping out(mapping.size());
  for (std::size_t v = 0; v < mapping.size(); ++v) out[v] = image.at(mapping[v]);
  return out;
}

}  // namespace mpimon::reorder
