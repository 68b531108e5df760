#pragma once
// Index logic of the application workloads (docs/workloads.md): block decompositions,
// process grids, halo regions and the multi-partition layout. Header-only and without MPI, so
// that it is unit-tested alone (analysis/tests/decomposition_test.cpp).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpimon {

using Vec3 = std::array<int, 3>;

/// A contiguous run of indices [begin, begin + size).
struct Range {
  int begin = 0;
  int size = 0;
  friend bool operator==(const Range&, const Range&) = default;
};

/// The block of `n` indices that part `p` of `parts` owns: blocks in order, the first n % parts
/// of them one index longer.
constexpr Range block_range(int n, int parts, int p) {
  const int base = n / parts, extra = n % parts;
  return {p * base + std::min(p, extra), base + (p < extra ? 1 : 0)};
}

/// A grid of processes numbered as MPI_Cart_create numbers them (row-major: the last dimension
/// varies fastest), unless scrambled. A dimension of 1 is allowed (a 2-D grid is {px, py, 1}).
struct ProcessGrid {
  Vec3 dims{1, 1, 1};
  std::array<bool, 3> periodic{false, false, false};
  /// Scrambled grids only: the row-major position of each rank, and the rank at each position.
  std::vector<int> position_of{}, rank_at{};

  [[nodiscard]] int size() const { return dims[0] * dims[1] * dims[2]; }
  [[nodiscard]] Vec3 coords(int rank) const {
    const int p = position_of.empty() ? rank : position_of.at(static_cast<std::size_t>(rank));
    return {p / (dims[1] * dims[2]), (p / dims[2]) % dims[1], p % dims[2]};
  }
  [[nodiscard]] int rank(const Vec3& c) const {
    const int p = (c[0] * dims[1] + c[1]) * dims[2] + c[2];
    return rank_at.empty() ? p : rank_at.at(static_cast<std::size_t>(p));
  }
  /// Gives the ranks the positions of a seeded Fisher-Yates shuffle (the same on every machine):
  /// a rank order that does not follow the grid, as an application's own numbering may not.
  void scramble(std::uint64_t seed) {
    rank_at.resize(static_cast<std::size_t>(size()));
    for (std::size_t p = 0; p < rank_at.size(); ++p) rank_at[p] = static_cast<int>(p);
    std::uint64_t state = seed;
    for (std::size_t i = rank_at.size(); i > 1; --i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;  // Knuth's MMIX LCG
      std::swap(rank_at[i - 1], rank_at[static_cast<std::size_t>((state >> 33) % i)]);
    }
    position_of.assign(rank_at.size(), 0);
    for (std::size_t p = 0; p < rank_at.size(); ++p)
      position_of[static_cast<std::size_t>(rank_at[p])] = static_cast<int>(p);
  }
  /// The rank at offset `off` (each component -1, 0 or 1) from `rank`, wrapping around periodic
  /// dimensions; -1 beyond the edge of a non-periodic one.
  [[nodiscard]] int neighbour(int rank, const Vec3& off) const {
    Vec3 c = coords(rank);
    for (std::size_t d = 0; d < 3; ++d) {
      c[d] += off[d];
      if (c[d] < 0 || c[d] >= dims[d]) {
        if (!periodic[d]) return -1;
        c[d] = (c[d] + dims[d]) % dims[d];
      }
    }
    return this->rank(c);
  }
  /// The part of a global grid of `global` points that `rank` owns.
  [[nodiscard]] std::array<Range, 3> block(const Vec3& global, int rank) const {
    const Vec3 c = coords(rank);
    return {block_range(global[0], dims[0], c[0]), block_range(global[1], dims[1], c[1]),
            block_range(global[2], dims[2], c[2])};
  }
};

/// The number of an offset in {-1, 0, 1}^3: 0 to 26, 13 being the centre. The opposite offset's
/// number is 26 minus it, which makes it a message tag the receiver can predict.
constexpr int offset_index(const Vec3& off) { return (off[0] + 1) * 9 + (off[1] + 1) * 3 + (off[2] + 1); }
constexpr int opposite_index(int index) { return 26 - index; }

/// The halo neighbours of a 3-D stencil: the 6 faces for 7 points, the 26 faces, edges and
/// corners for 27 points, in offset_index order.
inline std::vector<Vec3> neighbour_offsets(int points) {
  std::vector<Vec3> offsets;
  for (int dx = -1; dx <= 1; ++dx) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dz = -1; dz <= 1; ++dz) {
        const int nonzero = (dx != 0) + (dy != 0) + (dz != 0);
        if (nonzero == 0 || (points == 7 && nonzero != 1)) continue;
        offsets.push_back({dx, dy, dz});
      }
    }
  }
  return offsets;
}

/// A box of a local array with a ghost layer of width 1: interior indices run from 1 to n.
struct Box {
  Vec3 lo{0, 0, 0}, hi{0, 0, 0};  ///< half-open, per dimension
  [[nodiscard]] std::size_t volume() const {
    std::size_t v = 1;
    for (std::size_t d = 0; d < 3; ++d) v *= static_cast<std::size_t>(std::max(0, hi[d] - lo[d]));
    return v;
  }
  friend bool operator==(const Box&, const Box&) = default;
};

/// The interior layer a block of `n` interior points sends to its neighbour at `off`.
inline Box send_box(const Vec3& n, const Vec3& off) {
  Box b;
  for (std::size_t d = 0; d < 3; ++d) {
    b.lo[d] = off[d] > 0 ? n[d] : 1;
    b.hi[d] = off[d] < 0 ? 2 : n[d] + 1;
  }
  return b;
}

/// The ghost layer the neighbour at `off` fills.
inline Box recv_box(const Vec3& n, const Vec3& off) {
  Box b;
  for (std::size_t d = 0; d < 3; ++d) {
    b.lo[d] = off[d] < 0 ? 0 : (off[d] > 0 ? n[d] + 1 : 1);
    b.hi[d] = off[d] < 0 ? 1 : (off[d] > 0 ? n[d] + 2 : n[d] + 1);
  }
  return b;
}

/// The square root of `n` when `n` is a perfect square, else 0.
constexpr int exact_square_root(int n) {
  int q = 0;
  while ((q + 1) * (q + 1) <= n) ++q;
  return q * q == n ? q : 0;
}

/// NAS BT's diagonal multi-partition of a grid of q x q x q cells over q^2 processes: each process
/// owns q cells, one in every slab of cells orthogonal to each axis, so that a line solve along
/// any axis keeps every process busy at every stage. Process a + q b owns the cells
/// (t, (a + t) mod q, (b + t) mod q), t = 0 .. q-1.
struct MultiPartition {
  int q = 1;

  [[nodiscard]] int owner(const Vec3& cell) const {
    const int a = ((cell[1] - cell[0]) % q + q) % q, b = ((cell[2] - cell[0]) % q + q) % q;
    return a + q * b;
  }
  /// The cells of `rank`, by t.
  [[nodiscard]] std::vector<Vec3> cells(int rank) const {
    const int a = rank % q, b = rank / q;
    std::vector<Vec3> out;
    for (int t = 0; t < q; ++t) out.push_back({t, (a + t) % q, (b + t) % q});
    return out;
  }
  /// The cell of `rank` whose coordinate along `axis` is `stage`.
  [[nodiscard]] Vec3 cell_at_stage(int rank, int axis, int stage) const {
    for (const Vec3& c : cells(rank)) {
      if (c[static_cast<std::size_t>(axis)] == stage) return c;
    }
    return {-1, -1, -1};  // unreachable for a valid rank and stage
  }
  /// The process owning the cell before (`step` -1) or after (+1) `rank`'s cells along `axis`:
  /// the same process at every stage, which is why the sweeps have fixed partners.
  [[nodiscard]] int partner(int rank, int axis, int step) const {
    Vec3 c = cells(rank).front();
    c[static_cast<std::size_t>(axis)] += step;
    for (int& x : c) x = (x % q + q) % q;
    return owner(c);
  }
};

}  // namespace mpimon
