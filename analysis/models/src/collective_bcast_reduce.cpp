// The messages of coll/tuned's bcast and reduce algorithms (Open MPI 4.1 and 5.0,
// ompi/mca/coll/base/), with the trees they send along and Rabenseifner's reduce-scatter that
// allreduce shares; docs/collectives.md states every rule used here.

#include <algorithm>
#include <cmath>

#include "collective_algorithms.hpp"

namespace mpimon::collective_detail {

// ---- Trees: every edge of the tree carries the whole buffer, segmented. ----

void tree_down(Messages& m, const ProcessTree& tree, std::uint64_t per_segment) {
  for (std::uint32_t parent = 0; parent < tree.children.size(); ++parent) {
    for (std::uint32_t child : tree.children[parent]) m.segmented(parent, child, m.spec().count, per_segment);
  }
}

void tree_up(Messages& m, const ProcessTree& tree, std::uint64_t per_segment) {
  for (std::uint32_t parent = 0; parent < tree.children.size(); ++parent) {
    for (std::uint32_t child : tree.children[parent]) m.segmented(child, parent, m.spec().count, per_segment);
  }
}

std::uint64_t spec_segment(const CollectiveSpec& s) { return segment_elements(s.segment_size, s.type_size, s.count); }

// ---- bcast ----

void bcast_linear(Messages& m, std::uint32_t root) {
  for (std::uint32_t r = 0; r < m.size(); ++r) {
    if (r != root) m.internal(root, r, m.bytes(m.spec().count));
  }
}

/// Each half of the buffer goes down one subtree of the binary tree (odd virtual ranks hold the
/// first half, even ones the second), then neighbours v and v+1 swap halves.
void bcast_split_binary(Messages& m) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size(), root = s.root;
  const std::uint64_t half[2] = {(s.count + 1) / 2, s.count / 2};
  std::uint64_t segment_size = s.segment_size;
  if (segment_size > 0) segment_size = std::max(segment_size, s.type_size);
  if (half[1] == 0 || segment_size > m.bytes(half[1])) {
    // Too small to split: Open MPI falls back to a pipeline, with the segment size adjusted above.
    tree_down(m, chain_tree(1, p, root), segment_elements(segment_size, s.type_size, s.count));
    return;
  }
  const std::uint64_t per_segment[2] = {segment_size > 0 ? segment_size / s.type_size : half[0],
                                        segment_size > 0 ? segment_size / s.type_size : half[1]};
  auto virtual_rank = [&](std::uint32_t r) { return (r + p - root) % p; };
  auto half_of = [&](std::uint32_t r) { return virtual_rank(r) % 2 == 1 ? 0 : 1; };
  const ProcessTree tree = kary_tree(2, p, root);
  for (std::uint32_t parent = 0; parent < p; ++parent) {
    for (std::uint32_t child : tree.children[parent]) {
      const int h = half_of(child);
      m.segmented(parent, child, half[h], per_segment[h]);
    }
  }
  for (std::uint32_t r = 0; r < p; ++r) {
    const std::uint32_t v = virtual_rank(r);
    if (v == 0) continue;
    if (p % 2 == 0 && v == p - 1) {
      m.internal(root, r, m.bytes(half[1]));  // the last rank has no partner: the root sends it half 1
      continue;
    }
    const std::uint32_t partner = v % 2 == 1 ? ring_at(r, 1, p) : ring_at(r, -1, p);
    m.internal(r, partner, m.bytes(half[half_of(r)]));
  }
}

/// Binomial scatter of ceil(count / P)-element blocks from the root (virtual ranks), shared by
/// bcast scatter_allgather and scatter_allgather_ring: a parent hands child v + mask everything
/// it holds beyond its first mask blocks. Returns what each virtual rank holds afterwards, in
/// elements, and each rank's last receive bound (Open MPI reuses that variable later).
struct ScatterState {
  std::uint64_t block = 0;
  std::vector<std::int64_t> held;        // by virtual rank
  std::vector<std::int64_t> last_bound;  // recv_count after the scatter, by virtual rank
};

ScatterState bcast_binomial_scatter(Messages& m) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  const auto count = static_cast<std::int64_t>(s.count);
  ScatterState st;
  st.block = (s.count + p - 1) / p;
  const auto block = static_cast<std::int64_t>(st.block);
  st.held.assign(p, 0);
  st.last_bound.assign(p, 0);
  std::vector<std::int64_t> received(p, 0);
  for (std::uint32_t v = 0; v < p; ++v) {  // a parent (v - mask) always comes before its child
    std::uint32_t mask = 1;
    while (mask < p && (v & mask) == 0) mask <<= 1;
    if (v == 0) {
      st.held[0] = count;
    } else {
      st.last_bound[v] = count - static_cast<std::int64_t>(v) * block;
      st.held[v] = st.last_bound[v] <= 0 ? 0 : received[v];
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
      if (v + mask >= p) continue;
      const std::int64_t send = st.held[v] - block * mask;
      if (send <= 0) continue;
      m.internal((v + s.root) % p, (v + mask + s.root) % p, m.bytes(static_cast<std::uint64_t>(send)));
      received[v + mask] = send;
      st.held[v] -= send;
    }
  }
  return st;
}

/// Elements of block b (blocks of `block` elements, the last ones short or empty).
std::int64_t scatter_block(std::int64_t count, std::int64_t block, std::int64_t b) {
  return std::clamp<std::int64_t>(count - b * block, 0, block);
}

/// bcast scatter_allgather: the binomial scatter, then a recursive-doubling allgather in which,
/// when P is not a power of two, ranks whose partner does not exist get the missing blocks from
/// a rank of their half that has them (recursive halving).
void bcast_scatter_allgather(Messages& m) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  if (s.count < p) return bcast_linear(m, s.root);
  ScatterState st = bcast_binomial_scatter(m);
  const auto count = static_cast<std::int64_t>(s.count), block = static_cast<std::int64_t>(st.block);
  const auto np = static_cast<std::int64_t>(p);
  auto real = [&](std::int64_t v) { return static_cast<std::uint32_t>((v + s.root) % p); };
  std::vector<std::int64_t> held(p), last = st.last_bound;
  for (std::int64_t v = 0; v < np; ++v) held[v] = scatter_block(count, block, v);
  for (std::int64_t mask = 1; mask < np; mask <<= 1) {
    // Exchange with v XOR mask (an empty message when there is nothing to send).
    const std::vector<std::int64_t> before = held;
    for (std::int64_t v = 0; v < np; ++v) {
      const std::int64_t remote = v ^ mask;
      if (remote >= np) continue;
      m.internal(real(v), real(remote), m.bytes(static_cast<std::uint64_t>(before[v])));
      last[v] = before[remote];
      held[v] += before[remote];
    }
    // Groups whose partner group is cut short by P: forward by recursive halving what was just
    // received, from the ranks that have it to those that do not; each round in lockstep.
    for (std::int64_t half = mask >> 1; half > 0; half >>= 1) {
      std::vector<std::pair<std::int64_t, std::int64_t>> sends;  // receiver, elements
      for (std::int64_t v = 0; v < np; ++v) {
        const std::int64_t group = v / mask * mask, remote_group = (v ^ mask) / mask * mask;
        if (remote_group + mask <= np) continue;
        const std::int64_t with_data = np - group - mask;
        const std::int64_t remote = v ^ half, tree_root = v / (half * 2) * (half * 2);
        if (remote > v && v < tree_root + with_data && remote >= tree_root + with_data) {
          m.internal(real(v), real(remote), m.bytes(static_cast<std::uint64_t>(last[v])));
          sends.emplace_back(remote, last[v]);
        }
      }
      for (const auto& [to, elements] : sends) {
        last[to] = elements;
        held[to] += elements;
      }
    }
  }
}

/// bcast scatter_allgather_ring: the binomial scatter, then P-1 ring steps in which virtual rank
/// v passes block v - i + 1 to its right neighbour (empty blocks as empty messages).
void bcast_scatter_allgather_ring(Messages& m) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  if (s.count < p) return bcast_linear(m, s.root);
  const ScatterState st = bcast_binomial_scatter(m);
  const auto count = static_cast<std::int64_t>(s.count), block = static_cast<std::int64_t>(st.block);
  for (std::uint32_t r = 0; r < p; ++r) {
    const std::uint32_t v = (r + p - s.root) % p;
    for (std::int64_t i = 1; i < p; ++i) {
      const std::int64_t sent_block = ring_at(v, 1 - i, p);
      m.internal(r, ring_next(r, p), m.bytes(static_cast<std::uint64_t>(scatter_block(count, block, sent_block))));
    }
  }
}

void predict_bcast(Messages& m, int algorithm) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  switch (algorithm) {
    case 1:
      return bcast_linear(m, s.root);
    case 2:
      return tree_down(m, chain_tree(s.chain_fanout, p, s.root), spec_segment(s));
    case 3:
      return tree_down(m, chain_tree(1, p, s.root), spec_segment(s));
    case 4:
      return bcast_split_binary(m);
    case 5:
      return tree_down(m, kary_tree(2, p, s.root), spec_segment(s));
    case 6:
      return tree_down(m, binomial_tree(p, s.root), spec_segment(s));
    case 7:
      return tree_down(m, knomial_tree(s.knomial_radix, p, s.root), spec_segment(s));
    case 8:
      return bcast_scatter_allgather(m);
    case 9:
      return bcast_scatter_allgather_ring(m);
    default:
      not_modelled("bcast algorithm " + std::to_string(algorithm));
  }
}

// ---- reduce ----

void reduce_linear(Messages& m, std::uint32_t root) {
  for (std::uint32_t r = 0; r < m.size(); ++r) {
    if (r != root) m.internal(r, root, m.bytes(m.spec().count));
  }
}

// ---- Rabenseifner's reduce-scatter (reduce and allreduce `rabenseifner`). ----

/// P' = the largest power of two <= P takes part; the first 2(P - P') ranks pair up first (even
/// i and i+1): i sends the upper half (count - count/2) to i+1, i+1 sends the lower half (count/2)
/// and then its reduced upper half back to i; i continues as new rank i/2, i+1 sits out. Other
/// ranks continue as i - (P - P').
struct Halving {
  std::uint32_t participants = 1;  // P'
  std::uint32_t extra = 0;         // P - P'
  [[nodiscard]] std::uint32_t real(std::uint32_t newrank) const {
    return newrank < extra ? newrank * 2 : newrank + extra;
  }
};

/// One step of the recursive halving: the peer, what is sent, what is kept (and reduced).
struct HalvingStep {
  std::uint32_t peer;
  std::uint64_t sent;
  std::uint64_t kept;
};

Halving halving_of(std::uint32_t p) { return {floor_power_of_two(p), p - floor_power_of_two(p)}; }

void halving_pairing(Messages& m, const Halving& h) {
  const std::uint64_t count = m.spec().count, lower = count / 2, upper = count - lower;
  for (std::uint32_t r = 0; r + 1 < 2 * h.extra; r += 2) {
    m.internal(r, r + 1, m.bytes(upper));
    m.internal(r + 1, r, m.bytes(lower));
    m.internal(r + 1, r, m.bytes(upper));
  }
}

/// The steps of new rank n: for distances 1, 2, 4, ... < P', with the peer n XOR d, the window
/// halves; the lower new rank keeps the lower part (window / 2 elements) and sends the rest,
/// the higher one sends the lower part (window / 2) and keeps the rest.
std::vector<HalvingStep> halving_steps(const Halving& h, std::uint32_t newrank, std::uint64_t count) {
  std::vector<HalvingStep> steps;
  std::uint64_t window = count;
  for (std::uint32_t mask = 1; mask < h.participants; mask <<= 1) {
    const std::uint32_t peer = newrank ^ mask;
    const std::uint64_t small = window / 2;
    const bool lower = newrank < peer;
    steps.push_back({h.real(peer), lower ? window - small : small, lower ? small : window - small});
    window = steps.back().kept;
  }
  return steps;
}

/// allreduce rabenseifner: pairing, recursive halving, then recursive doubling in reverse step
/// order (each sends what it kept at that step), and the pair's even rank sends the whole result
/// to the odd one. Counts below P' (and non-commutative operations, which the program does not
/// use) fall back to basic_linear.
void allreduce_rabenseifner(Messages& m) {
  const CollectiveSpec& s = m.spec();
  const Halving h = halving_of(m.size());
  if (s.count < h.participants) {
    reduce_linear(m, 0);
    return bcast_linear(m, 0);
  }
  halving_pairing(m, h);
  for (std::uint32_t n = 0; n < h.participants; ++n) {
    const auto steps = halving_steps(h, n, s.count);
    for (const HalvingStep& st : steps) m.internal(h.real(n), st.peer, m.bytes(st.sent));
    for (const HalvingStep& st : steps) m.internal(h.real(n), st.peer, m.bytes(st.kept));
  }
  for (std::uint32_t r = 0; r + 1 < 2 * h.extra; r += 2) m.internal(r, r + 1, m.bytes(s.count));
}

/// reduce rabenseifner: pairing and recursive halving as allreduce, then a binomial gather of the
/// pieces to the root's new rank, in reverse step order: at step k (distance 2^k) a rank whose
/// peer lies in the root's subtree of size 2^k sends what it kept at step k and stops. A root
/// that sits out (odd, below 2(P - P')) takes new rank 0's place: rank 0 first sends it its piece
/// and stops, and the messages meant for new rank 0 go to the root. Counts below P' fall back to
/// linear.
void reduce_rabenseifner(Messages& m) {
  const CollectiveSpec& s = m.spec();
  const Halving h = halving_of(m.size());
  if (h.participants < 2 || s.count < h.participants) return reduce_linear(m, s.root);
  halving_pairing(m, h);
  const bool root_sits_out = s.root < 2 * h.extra && s.root % 2 == 1;
  std::uint32_t root_newrank = s.root >= 2 * h.extra ? s.root - h.extra : s.root / 2;
  if (root_sits_out) root_newrank = 0;
  const int levels = std::countr_zero(h.participants);
  for (std::uint32_t n = 0; n < h.participants; ++n) {
    const auto steps = halving_steps(h, n, s.count);
    for (const HalvingStep& st : steps) m.internal(h.real(n), st.peer, m.bytes(st.sent));
    if (root_sits_out && n == 0) {
      m.internal(0, s.root, m.bytes(steps.back().kept));
      continue;
    }
    for (int k = levels - 1; k >= 0; --k) {
      const std::uint32_t peer = n ^ (1U << k);
      if ((peer >> k) == (root_newrank >> k)) {
        m.internal(h.real(n), root_sits_out && peer == 0 ? s.root : h.real(peer), m.bytes(steps[k].kept));
        break;
      }
    }
  }
}

void predict_reduce(Messages& m, int algorithm) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  switch (algorithm) {
    case 1:
      return reduce_linear(m, s.root);
    case 2:
      return tree_up(m, chain_tree(s.chain_fanout, p, s.root), spec_segment(s));
    case 3:
      return tree_up(m, chain_tree(1, p, s.root), spec_segment(s));
    case 4:
      return tree_up(m, kary_tree(2, p, s.root), spec_segment(s));
    case 5:
      return tree_up(m, in_order_binomial_tree(p, s.root), spec_segment(s));
    case 6:
      // The in-order tree is rooted at P-1, which then sends the result to the real root whole.
      tree_up(m, in_order_binary_tree(p), spec_segment(s));
      if (s.root != p - 1) m.internal(p - 1, s.root, m.bytes(s.count));
      return;
    case 7:
      return reduce_rabenseifner(m);
    default:
      not_modelled("reduce algorithm " + std::to_string(algorithm));
  }
}

}  // namespace mpimon::collective_detail
