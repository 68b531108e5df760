// The messages of each coll/tuned algorithm of Open MPI 4.1 and 5.0 (ompi/mca/coll/base/), written from
// what each algorithm does; docs/collectives.md states every rule used here.

#include <algorithm>
#include <bit>
#include <cmath>

#include "mpimon/base/error.hpp"
#include "mpimon/models/collective_model.hpp"

namespace mpimon {

namespace {

/// Records the messages of one call, classed as the monitoring classes them.
class Messages {
 public:
  explicit Messages(const CollectiveSpec& spec) : spec_(spec) {}

  /// A message sent with a collective's internal (negative) tag.
  void internal(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes, std::uint64_t messages = 1) {
    traffic_.add(spec_.monitoring_mode >= 2 ? TrafficClass::internal : TrafficClass::external, src, dst, bytes,
                 messages);
  }
  /// A message sent through a persistent request started with the PML's start: Open MPI 4.1's
  /// monitoring records it with tag 1, i.e. as external, whatever its real tag.
  void persistent(std::uint32_t src, std::uint32_t dst, std::uint64_t bytes) {
    const bool as_internal = spec_.ideal_monitoring && spec_.monitoring_mode >= 2;
    traffic_.add(as_internal ? TrafficClass::internal : TrafficClass::external, src, dst, bytes);
  }
  /// `count` elements sent in segments of `per_segment` elements: the last segment is shorter.
  void segmented(std::uint32_t src, std::uint32_t dst, std::uint64_t count, std::uint64_t per_segment) {
    const std::uint64_t segments = (count + per_segment - 1) / per_segment;
    internal(src, dst, per_segment * spec_.type_size, segments - 1);
    internal(src, dst, (count - (segments - 1) * per_segment) * spec_.type_size);
  }
  /// Internal messages given by their totals on one pair.
  void merge_totals(std::uint32_t src, std::uint32_t dst, const TrafficLoad& load) {
    traffic_.add_totals(spec_.monitoring_mode >= 2 ? TrafficClass::internal : TrafficClass::external, src, dst, load);
  }
  /// The messages of a collective this one calls (already classed).
  void merge(const EdgeTraffic& nested) {
    for (const auto& [edge, load] : nested.edges()) traffic_.add_totals(edge.traffic_class, edge.src, edge.dst, load);
  }
  [[nodiscard]] const CollectiveSpec& spec() const { return spec_; }
  [[nodiscard]] std::uint32_t size() const { return spec_.nprocs; }
  [[nodiscard]] std::uint64_t bytes(std::uint64_t elements) const { return elements * spec_.type_size; }
  EdgeTraffic take() { return std::move(traffic_); }

 private:
  const CollectiveSpec& spec_;
  EdgeTraffic traffic_;
};

std::uint32_t ring_next(std::uint32_t r, std::uint32_t p) { return (r + 1) % p; }
/// (r + offset) mod p for a possibly negative offset.
std::uint32_t ring_at(std::uint32_t r, std::int64_t offset, std::uint32_t p) {
  const std::int64_t n = p;
  return static_cast<std::uint32_t>(((static_cast<std::int64_t>(r) + offset) % n + n) % n);
}
/// The largest power of two not above p.
std::uint32_t floor_power_of_two(std::uint32_t p) { return std::bit_floor(p); }

[[noreturn]] void not_modelled(const std::string& what) {
  raise_error(Error::Kind::input, "model", what + " (docs/collectives.md lists what the model covers)");
}

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

// ---- The fixed decisions, which composite algorithms reach through the communicator. ----

/// One row of a fixed decision: below this many bytes, this algorithm.
struct SizeRule {
  std::uint64_t below;
  int algorithm;
};
/// The algorithm of the first rule whose bound exceeds `bytes`, else `otherwise`.
int pick(std::uint64_t bytes, std::initializer_list<SizeRule> rules, int otherwise) {
  for (const SizeRule& r : rules) {
    if (bytes < r.below) return r.algorithm;
  }
  return otherwise;
}

/// coll/tuned's fixed bcast decision of Open MPI 4.1 (coll_tuned_decision_fixed.c).
int fixed_bcast_algorithm(std::uint32_t p, std::uint64_t bytes) {
  if (p < 4) {
    return pick(
        bytes,
        {{32, 3}, {256, 5}, {512, 3}, {1024, 7}, {32768, 1}, {131072, 5}, {262144, 2}, {524288, 1}, {1048576, 6}}, 5);
  }
  if (p < 8) return pick(bytes, {{64, 5}, {128, 6}, {2048, 5}, {8192, 6}, {1048576, 1}}, 2);
  if (p < 16) return pick(bytes, {{8, 7}, {64, 5}, {4096, 7}, {16384, 5}, {32768, 6}}, 1);
  if (p < 32) return pick(bytes, {{4096, 7}, {1048576, 6}}, 8);
  if (p < 64) return pick(bytes, {{2048, 6}}, 7);
  if (p < 128) return 7;
  if (p < 256) return pick(bytes, {{2, 6}, {16384, 5}, {32768, 1}, {65536, 5}}, 7);
  if (p < 1024) return pick(bytes, {{16384, 7}, {32768, 4}}, 7);
  if (p < 2048) return pick(bytes, {{524288, 7}}, 8);
  if (p < 4096) return pick(bytes, {{262144, 7}}, 8);
  return pick(bytes, {{8192, 7}, {16384, 5}, {262144, 7}}, 8);
}

/// coll/tuned's fixed reduce decision for a commutative operation.
int fixed_reduce_algorithm(std::uint32_t p, std::uint64_t bytes) {
  if (p < 4) return pick(bytes, {{8, 7}, {16, 4}, {32, 3}, {262144, 1}, {524288, 3}, {1048576, 2}}, 3);
  if (p < 8) return pick(bytes, {{4096, 4}, {65536, 2}, {262144, 5}, {524288, 1}, {1048576, 5}}, 1);
  if (p < 16) return pick(bytes, {{8192, 4}}, 5);
  if (p < 32) return pick(bytes, {{4096, 4}}, 5);
  if (p < 256) return 5;
  if (p < 512) return pick(bytes, {{8192, 5}, {16384, 6}}, 5);
  if (p < 2048) return 5;
  if (p < 4096) return pick(bytes, {{512, 5}, {1024, 6}, {8192, 5}, {16384, 6}}, 5);
  return pick(bytes, {{16, 5}, {32, 6}, {1024, 5}, {2048, 6}, {8192, 5}, {16384, 6}}, 5);
}

/// coll/tuned's fixed gather decision.
int fixed_gather_algorithm(std::uint32_t p, std::uint64_t bytes) {
  if (p < 4) {
    if (bytes < 2) return 3;
    if (bytes < 4) return 1;
    if (bytes < 32768) return 2;
    if (bytes < 65536) return 1;
    return bytes < 131072 ? 2 : 3;
  }
  if (p < 8) {
    if (bytes < 1024) return 2;
    if (bytes < 8192) return 1;
    if (bytes < 32768) return 2;
    return bytes < 262144 ? 1 : 3;
  }
  if (p < 256) return 2;
  if (p < 512) return bytes < 2048 || bytes >= 8192 ? 2 : 1;
  return 2;
}

/// A collective the algorithm calls through the communicator, i.e. through coll/tuned's fixed
/// decision (only the forced operation is decided dynamically), with no segmentation and fan-out
/// 0 (a chain of one).
EdgeTraffic nested_call(const CollectiveSpec& outer, CollectiveOp op, std::uint64_t count, int algorithm) {
  CollectiveSpec inner = outer;
  inner.op = op;
  inner.algorithm = algorithm;
  inner.count = count;
  inner.root = 0;
  inner.segment_size = 0;
  inner.chain_fanout = 0;
  return predict_collective(inner);
}

// ---- allreduce ----

/// Pairwise exchanges on the largest power of two of ranks; the first 2 * extra ranks pair up
/// first, the even one handing its data to the odd one and getting the result back at the end.
void allreduce_recursive_doubling(Messages& m) {
  const std::uint32_t p = m.size();
  const std::uint64_t whole = m.bytes(m.spec().count);
  const std::uint32_t base = floor_power_of_two(p), extra = p - base;
  for (std::uint32_t r = 0; r < p; ++r) {
    std::int64_t newrank = static_cast<std::int64_t>(r) - extra;
    if (r < 2 * extra) {
      if (r % 2 == 0) {
        m.internal(r, r + 1, whole);
        continue;
      }
      newrank = r / 2;
      m.internal(r, r - 1, whole);  // the result, at the end
    }
    for (std::uint32_t distance = 1; distance < base; distance <<= 1) {
      const auto partner = static_cast<std::uint32_t>(newrank) ^ distance;
      m.internal(r, partner < extra ? partner * 2 + 1 : partner + extra, whole);
    }
  }
}

/// Block b (of count elements cut into P blocks) of the ring algorithms.
std::uint64_t ring_block(const CollectiveSpec& s, std::uint32_t b) { return block_elements(s.count, s.nprocs, b); }

/// Reduce-scatter around the ring (each rank sends the blocks r, r-1, ..., r-P+2 to r+1), then
/// allgather around the ring (blocks r+1, r, ..., r-P+3).
void allreduce_ring(Messages& m) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  if (s.count < p) return allreduce_recursive_doubling(m);
  for (std::uint32_t r = 0; r < p; ++r) {
    for (std::int64_t k = 0; k + 1 < p; ++k) {
      m.internal(r, ring_next(r, p), m.bytes(ring_block(s, ring_at(r, -k, p))));
      m.internal(r, ring_next(r, p), m.bytes(ring_block(s, ring_at(r, 1 - k, p))));
    }
  }
}

/// The ring's reduce-scatter repeated in phases, each moving one part of every block; then the
/// ring's allgather of whole blocks.
void allreduce_segmented_ring(Messages& m) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  const std::uint64_t per_segment = spec_segment(s);
  if (s.count < p * per_segment) return allreduce_ring(m);
  const std::uint64_t round = p * per_segment;
  std::uint64_t phases = s.count / round;
  if (s.count % round >= p && s.count % round > round / 2) ++phases;
  for (std::uint32_t r = 0; r < p; ++r) {
    for (std::int64_t k = 0; k + 1 < p; ++k) {
      // One message per phase, the block's parts adding up to the whole block (summed here:
      // there can be millions of phases).
      const std::uint64_t block = ring_block(s, ring_at(r, -k, p));
      m.merge_totals(r, ring_next(r, p), {m.bytes(block), phases});
      m.internal(r, ring_next(r, p), m.bytes(ring_block(s, ring_at(r, 1 - k, p))));
    }
  }
}

void predict_allreduce(Messages& m, int algorithm) {
  const CollectiveSpec& s = m.spec();
  switch (algorithm) {
    case 1:
      reduce_linear(m, 0);
      return bcast_linear(m, 0);
    case 2: {  // reduce to 0, then bcast from 0, through the fixed decisions
      const std::uint64_t bytes = m.bytes(s.count);
      m.merge(nested_call(s, CollectiveOp::reduce, s.count, fixed_reduce_algorithm(s.nprocs, bytes)));
      m.merge(nested_call(s, CollectiveOp::bcast, s.count, fixed_bcast_algorithm(s.nprocs, bytes)));
      return;
    }
    case 3:
      return allreduce_recursive_doubling(m);
    case 4:
      return allreduce_ring(m);
    case 5:
      return allreduce_segmented_ring(m);
    case 6:
      return allreduce_rabenseifner(m);
    default:
      not_modelled("allreduce algorithm " + std::to_string(algorithm));
  }
}

// ---- alltoall ----

/// How many of 1..p-1 have the bit `bit` set: whole runs of 2 x bit numbers hold bit of them.
std::uint64_t indices_with_bit(std::uint32_t p, std::uint32_t bit) {
  const std::uint64_t run = 2ULL * bit;
  return p / run * bit + (p % run > bit ? p % run - bit : 0);
}

void predict_alltoall(Messages& m, int algorithm) {
  const std::uint32_t p = m.size();
  const std::uint64_t block = m.bytes(m.spec().count);
  for (std::uint32_t r = 0; r < p; ++r) {
    switch (algorithm) {
      case 1:  // persistent requests started with the PML's start
        for (std::uint32_t d = 0; d < p; ++d) {
          if (d != r) m.persistent(r, d, block);
        }
        break;
      case 2:  // step s sends to r + s; the last step, to itself, is a local copy
      case 4:
      case 5:
        for (std::uint32_t d = 0; d < p; ++d) {
          if (d != r) m.internal(r, d, block);
        }
        break;
      case 3:  // step 2^k sends to r + 2^k the blocks whose index has bit k set
        for (std::uint32_t distance = 1; distance < p; distance <<= 1) {
          m.internal(r, ring_at(r, distance, p), indices_with_bit(p, distance) * block);
        }
        break;
      default:
        not_modelled("alltoall algorithm " + std::to_string(algorithm));
    }
  }
}

// ---- allgather ----

void allgather_bruck(Messages& m) {
  const std::uint32_t p = m.size();
  for (std::uint32_t r = 0; r < p; ++r) {
    for (std::uint32_t distance = 1; distance < p; distance <<= 1) {
      const std::uint64_t blocks = distance <= p / 2 ? distance : p - distance;
      m.internal(r, ring_at(r, -static_cast<std::int64_t>(distance), p), blocks * m.bytes(m.spec().count));
    }
  }
}

void allgather_ring(Messages& m) {
  for (std::uint32_t r = 0; r < m.size(); ++r)
    m.internal(r, ring_next(r, m.size()), m.bytes(m.spec().count), m.size() - 1);
}

/// Even ranks start with their right neighbour, odd ones with their left; then two blocks at a
/// time, alternating sides.
void allgather_neighbor(Messages& m) {
  const std::uint32_t p = m.size();
  if (p % 2 == 1) return allgather_ring(m);
  const std::uint64_t block = m.bytes(m.spec().count);
  for (std::uint32_t r = 0; r < p; ++r) {
    const std::uint32_t first = r % 2 == 0 ? ring_at(r, 1, p) : ring_at(r, -1, p);
    const std::uint32_t second = r % 2 == 0 ? ring_at(r, -1, p) : ring_at(r, 1, p);
    m.internal(r, first, block);
    for (std::uint32_t step = 1; step < p / 2; ++step) m.internal(r, step % 2 == 0 ? first : second, 2 * block);
  }
}

/// allgather sparbit (Open MPI 5.0): ceil(log2 P) steps at distances 2^(L-1), ..., 2, 1; each rank
/// sends to r + distance one message per block it forwards, 1, 2, 4, ... blocks, less one at the
/// steps P's binary form marks as excluded (the distances where a block would arrive twice).
void allgather_sparbit(Messages& m) {
  const std::uint32_t p = m.size();
  // Open MPI computes the step count in floating point; the same expression here.
  const auto steps = static_cast<int>(std::ceil(std::log(static_cast<double>(p)) / std::log(2.0)));
  std::uint32_t distance = 1U << (steps - 1);
  const int last_ignore = std::countr_zero(p);
  const std::uint32_t ignore_steps = (~(p >> last_ignore) | 1U) << last_ignore;
  std::uint64_t expected = 1;
  for (int i = 0; i < steps; ++i, distance >>= 1) {
    const std::uint64_t exclusion = (distance & ignore_steps) == distance ? 1 : 0;
    for (std::uint32_t r = 0; r < p; ++r)
      m.internal(r, ring_at(r, distance, p), m.bytes(m.spec().count), expected - exclusion);
    expected = 2 * expected - exclusion;
  }
}

void predict_allgather(Messages& m, int algorithm) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  switch (algorithm) {
    case 1: {  // gather to 0, then bcast of everything from 0, both through the fixed decisions
      const std::uint64_t all = s.count * p;
      m.merge(nested_call(s, CollectiveOp::gather, s.count, fixed_gather_algorithm(p, m.bytes(s.count))));
      m.merge(nested_call(s, CollectiveOp::bcast, all, fixed_bcast_algorithm(p, m.bytes(all))));
      return;
    }
    case 2:
      return allgather_bruck(m);
    case 3:
      if (!std::has_single_bit(p)) return allgather_bruck(m);
      for (std::uint32_t r = 0; r < p; ++r) {
        for (std::uint32_t distance = 1; distance < p; distance <<= 1)
          m.internal(r, r ^ distance, distance * m.bytes(s.count));
      }
      return;
    case 4:
      return allgather_ring(m);
    case 5:
      return allgather_neighbor(m);
    case 6:
      m.internal(0, 1, m.bytes(s.count));
      m.internal(1, 0, m.bytes(s.count));
      return;
    case 7:
      return allgather_sparbit(m);
    default:
      not_modelled("allgather algorithm " + std::to_string(algorithm));
  }
}

// ---- gather and scatter ----

/// The ranks below child c of v in the in-order binomial tree (virtual ranks): c - v of them,
/// fewer at the end of the communicator.
std::uint64_t subtree_size(std::uint32_t v, std::uint32_t c, std::uint32_t p) { return std::min(c - v, p - c); }

void binomial_blocks(Messages& m, bool towards_root) {
  const CollectiveSpec& s = m.spec();
  const std::uint32_t p = m.size();
  const ProcessTree tree = in_order_binomial_tree(p, s.root);
  for (std::uint32_t parent = 0; parent < p; ++parent) {
    for (std::uint32_t child : tree.children[parent]) {
      const std::uint64_t bytes =
          subtree_size((parent + p - s.root) % p, (child + p - s.root) % p, p) * m.bytes(s.count);
      if (towards_root) {
        m.internal(child, parent, bytes);
      } else {
        m.internal(parent, child, bytes);
      }
    }
  }
}

void predict_gather(Messages& m, int algorithm) {
  const CollectiveSpec& s = m.spec();
  switch (algorithm) {
    case 1:
      return reduce_linear(m, s.root);  // same messages: one whole buffer from each rank
    case 2:
      return binomial_blocks(m, true);
    case 3: {
      // The root releases each rank with an empty message; each rank answers with its first
      // segment, then the rest (possibly empty).
      const std::uint64_t first = spec_segment(s);
      for (std::uint32_t r = 0; r < m.size(); ++r) {
        if (r == s.root) continue;
        m.internal(s.root, r, 0);
        m.internal(r, s.root, m.bytes(first));
        m.internal(r, s.root, m.bytes(s.count - first));
      }
      return;
    }
    default:
      not_modelled("gather algorithm " + std::to_string(algorithm));
  }
}

void predict_scatter(Messages& m, int algorithm) {
  switch (algorithm) {
    case 1:
    case 3:
      return bcast_linear(m, m.spec().root);  // one block from the root to each rank
    case 2:
      return binomial_blocks(m, false);
    default:
      not_modelled("scatter algorithm " + std::to_string(algorithm));
  }
}

// ---- barrier: empty messages only ----

void predict_barrier(Messages& m, int algorithm) {
  const std::uint32_t p = m.size();
  for (std::uint32_t r = 0; r < p; ++r) {
    switch (algorithm) {
      case 1:
        if (r != 0) {
          m.internal(r, 0, 0);
          m.internal(0, r, 0);
        }
        break;
      case 2:
        m.internal(r, ring_next(r, p), 0, 2);
        break;
      case 3: {
        const std::uint32_t base = floor_power_of_two(p);
        if (r >= base) {
          m.internal(r, r - base, 0);
          break;
        }
        for (std::uint32_t mask = 1; mask < base; mask <<= 1) m.internal(r, r ^ mask, 0);
        if (r + base < p) m.internal(r, r + base, 0);
        break;
      }
      case 4:
        for (std::uint32_t distance = 1; distance < p; distance <<= 1) m.internal(r, ring_at(r, distance, p), 0);
        break;
      case 5:
        m.internal(r, 1 - r, 0);
        break;
      case 6:
        if (r != 0) {  // fan-in to r without its lowest set bit, fan-out back
          const std::uint32_t parent = r & (r - 1);
          m.internal(r, parent, 0);
          m.internal(parent, r, 0);
        }
        break;
      default:
        not_modelled("barrier algorithm " + std::to_string(algorithm));
    }
  }
}

}  // namespace

EdgeTraffic predict_collective(const CollectiveSpec& spec) {
  check_spec(spec);
  // coll/self serves a single process, and the API returns before any coll component when
  // there is nothing to move.
  if (spec.nprocs == 1 || (spec.op != CollectiveOp::barrier && spec.count == 0)) return {};
  Messages messages(spec);
  switch (spec.op) {
    case CollectiveOp::bcast:
      predict_bcast(messages, spec.algorithm);
      break;
    case CollectiveOp::reduce:
      predict_reduce(messages, spec.algorithm);
      break;
    case CollectiveOp::allreduce:
      predict_allreduce(messages, spec.algorithm);
      break;
    case CollectiveOp::alltoall:
      predict_alltoall(messages, spec.algorithm);
      break;
    case CollectiveOp::allgather:
      predict_allgather(messages, spec.algorithm);
      break;
    case CollectiveOp::gather:
      predict_gather(messages, spec.algorithm);
      break;
    case CollectiveOp::scatter:
      predict_scatter(messages, spec.algorithm);
      break;
    case CollectiveOp::barrier:
      predict_barrier(messages, spec.algorithm);
      break;
  }
  return messages.take();
}

EdgeTraffic api_level_traffic(const CollectiveSpec& spec) {
  check_spec(spec);
  EdgeTraffic traffic;
  if (spec.nprocs == 1 || (spec.op != CollectiveOp::barrier && spec.count == 0)) return traffic;
  const std::uint64_t bytes = spec.op == CollectiveOp::barrier ? 0 : spec.count * spec.type_size;
  for (std::uint32_t src = 0; src < spec.nprocs; ++src) {
    for (std::uint32_t dst = 0; dst < spec.nprocs; ++dst) {
      bool flows = src != dst;
      if (spec.op == CollectiveOp::bcast || spec.op == CollectiveOp::scatter) flows = flows && src == spec.root;
      if (spec.op == CollectiveOp::reduce || spec.op == CollectiveOp::gather) flows = flows && dst == spec.root;
      if (flows) traffic.add(TrafficClass::coll, src, dst, bytes);
    }
  }
  return traffic;
}

}  // namespace mpimon
