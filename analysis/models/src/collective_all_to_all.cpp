// The messages of coll/tuned's allreduce, alltoall and allgather algorithms (Open MPI 4.1 and
// 5.0, ompi/mca/coll/base/); docs/collectives.md states every rule used here.

#include <algorithm>
#include <cmath>

#include "collective_algorithms.hpp"

namespace mpimon::collective_detail {

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

}  // namespace mpimon::collective_detail
