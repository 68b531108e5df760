#pragma once
// A rank's block of a distributed 3-D grid with a ghost layer, and its halo exchange: shared by
// the stencil, CG and LU workloads.

#include <cstddef>
#include <string>
#include <vector>

#include "app_traffic.hpp"
#include "mpimon/models/decomposition.hpp"

namespace mpimon::workloads {

/// The process grid of `dims_wanted` dimensions (2 or 3) MPI_Dims_create makes for `np`
/// processes; throws std::invalid_argument when `grid` has fewer points than processes along a
/// dimension.
mpimon::ProcessGrid make_process_grid(int np, int dimensions, const mpimon::Vec3& grid, bool periodic);

/// `vars` variables on the block of `grid` a rank owns, stored variable by variable, each as
/// (nx + 2) x (ny + 2) x (nz + 2) values, interior indices 1 to n. Ghosts start at 0.
class BlockField {
 public:
  BlockField(const mpimon::ProcessGrid& pgrid, const mpimon::Vec3& grid, int rank, int vars);

  [[nodiscard]] const mpimon::Vec3& n() const { return n_; }
  [[nodiscard]] int vars() const { return vars_; }
  [[nodiscard]] std::size_t interior_points() const {
    return static_cast<std::size_t>(n_[0]) * static_cast<std::size_t>(n_[1]) * static_cast<std::size_t>(n_[2]);
  }
  /// Values of all variables (a fresh zero vector of the field's size).
  [[nodiscard]] std::vector<double> zeros() const {
    return std::vector<double>(var_ * static_cast<std::size_t>(vars_), 0.0);
  }
  [[nodiscard]] std::size_t var(int v) const { return var_ * static_cast<std::size_t>(v); }
  [[nodiscard]] std::size_t at(int i, int j, int k) const {
    return static_cast<std::size_t>(i) * row_ + static_cast<std::size_t>(j) * plane_ + static_cast<std::size_t>(k);
  }
  /// The distance, in the array, of the neighbour at `off`.
  [[nodiscard]] std::ptrdiff_t offset(const mpimon::Vec3& off) const {
    return static_cast<std::ptrdiff_t>(off[0]) * static_cast<std::ptrdiff_t>(row_) +
           static_cast<std::ptrdiff_t>(off[1]) * static_cast<std::ptrdiff_t>(plane_) + off[2];
  }
  /// The global coordinates of local point (i, j, k).
  [[nodiscard]] mpimon::Vec3 global(int i, int j, int k) const {
    return {origin_[0] + i - 1, origin_[1] + j - 1, origin_[2] + k - 1};
  }

  /// Calls f(index within a variable, global coordinates) for every interior point.
  template <typename F>
  void for_interior(F&& f) const {
    for (int i = 1; i <= n_[0]; ++i) {
      for (int j = 1; j <= n_[1]; ++j) {
        for (int k = 1; k <= n_[2]; ++k) f(at(i, j, k), global(i, j, k));
      }
    }
  }
  /// A box of every variable into `out` (variable after variable), or back from `in`.
  void pack(const std::vector<double>& values, const mpimon::Box& box, std::vector<double>& out) const;
  void unpack(std::vector<double>& values, const mpimon::Box& box, const std::vector<double>& in) const;

 private:
  mpimon::Vec3 n_{}, origin_{};
  int vars_;
  std::size_t plane_ = 0, row_ = 0, var_ = 0;
};

/// One message per neighbour and iteration, all variables together (MiniGhost's aggregated
/// exchange). Neighbours beyond a non-periodic edge are skipped, their ghosts left as they are.
class Halo {
 public:
  Halo(Traffic& traffic, const mpimon::ProcessGrid& pgrid, const BlockField& field,
       const std::vector<mpimon::Vec3>& offsets);
  /// Fills the ghosts of `values` (a vector of `field`'s layout). The receiver knows each tag: the
  /// sender's offset number, 26 minus the number of the offset the message comes from.
  void exchange(std::vector<double>& values);

 private:
  struct Neighbour {
    mpimon::Vec3 off;
    int rank;
    mpimon::Box send, recv;
    std::vector<double> out, in;
  };
  Traffic& traffic_;
  const BlockField& field_;
  std::vector<Neighbour> neighbours_;
};

}  // namespace mpimon::workloads
