// The messages of coll/tuned's gather, scatter and barrier algorithms (Open MPI 4.1 and 5.0,
// ompi/mca/coll/base/); docs/collectives.md states every rule used here.

#include <algorithm>
#include <cmath>

#include "collective_algorithms.hpp"

namespace mpimon::collective_detail {

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

}  // namespace mpimon::collective_detail
