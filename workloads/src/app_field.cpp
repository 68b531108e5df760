#include "app_field.hpp"

#include <stdexcept>

#include "mpimon/mpi/mpi_support.hpp"

namespace mpimon::workloads {

using mpi::check;

using mpimon::Box;
using mpimon::Vec3;

mpimon::ProcessGrid make_process_grid(int np, int dimensions, const Vec3& grid, bool periodic) {
  int dims[3] = {0, 0, 0};
  check(MPI_Dims_create(np, dimensions, dims), "MPI_Dims_create");
  if (dimensions == 2) dims[2] = 1;
  mpimon::ProcessGrid pgrid;
  pgrid.dims = {dims[0], dims[1], dims[2]};
  pgrid.periodic = {periodic, periodic, periodic};
  for (std::size_t d = 0; d < 3; ++d) {
    if (grid[d] < pgrid.dims[d]) {
      throw std::invalid_argument("--grid: " + std::to_string(grid[d]) + " points along dimension " +
                                  std::to_string(d + 1) + " for a process grid of " + std::to_string(pgrid.dims[d]));
    }
  }
  return pgrid;
}

BlockField::BlockField(const mpimon::ProcessGrid& pgrid, const Vec3& grid, int rank, int vars) : vars_(vars) {
  const auto block = pgrid.block(grid, rank);
  for (std::size_t d = 0; d < 3; ++d) {
    n_[d] = block[d].size;
    origin_[d] = block[d].begin;
  }
  plane_ = static_cast<std::size_t>(n_[2] + 2);
  row_ = plane_ * static_cast<std::size_t>(n_[1] + 2);
  var_ = row_ * static_cast<std::size_t>(n_[0] + 2);
}

void BlockField::pack(const std::vector<double>& values, const Box& b, std::vector<double>& out) const {
  std::size_t m = 0;
  out.resize(b.volume() * static_cast<std::size_t>(vars_));
  for (int v = 0; v < vars_; ++v) {
    for (int i = b.lo[0]; i < b.hi[0]; ++i) {
      for (int j = b.lo[1]; j < b.hi[1]; ++j) {
        for (int k = b.lo[2]; k < b.hi[2]; ++k) out[m++] = values[var(v) + at(i, j, k)];
      }
    }
  }
}

void BlockField::unpack(std::vector<double>& values, const Box& b, const std::vector<double>& in) const {
  std::size_t m = 0;
  for (int v = 0; v < vars_; ++v) {
    for (int i = b.lo[0]; i < b.hi[0]; ++i) {
      for (int j = b.lo[1]; j < b.hi[1]; ++j) {
        for (int k = b.lo[2]; k < b.hi[2]; ++k) values[var(v) + at(i, j, k)] = in[m++];
      }
    }
  }
}

Halo::Halo(Traffic& traffic, const mpimon::ProcessGrid& pgrid, const BlockField& field,
           const std::vector<Vec3>& offsets)
    : traffic_(traffic), field_(field) {
  for (const Vec3& off : offsets) {
    const int rank = pgrid.neighbour(traffic.rank(), off);
    if (rank < 0) continue;
    Neighbour nb{off, rank, mpimon::send_box(field.n(), off), mpimon::recv_box(field.n(), off), {}, {}};
    nb.in.resize(nb.recv.volume() * static_cast<std::size_t>(field.vars()));
    neighbours_.push_back(std::move(nb));
  }
}

void Halo::exchange(std::vector<double>& values) {
  for (auto& nb : neighbours_) {
    traffic_.irecv(nb.in.data(), nb.in.size(), nb.rank, mpimon::opposite_index(mpimon::offset_index(nb.off)));
  }
  for (auto& nb : neighbours_) {
    field_.pack(values, nb.send, nb.out);
    traffic_.isend(nb.out.data(), nb.out.size(), nb.rank, mpimon::offset_index(nb.off));
  }
  traffic_.wait_all();
  for (auto& nb : neighbours_) field_.unpack(values, nb.recv, nb.in);
}

}  // namespace mpimon::workloads
