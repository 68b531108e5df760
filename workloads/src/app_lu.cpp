// The LU workload (docs/workloads.md): NAS LU's SSOR signature on a 3-D grid decomposed over a 2-D
// process grid (x, y; z stays whole). Per iteration: a face exchange (the right-hand side), then a
// lower-triangular sweep pipelined as a wavefront (each rank waits for its west and north
// neighbours, solves a block of z planes, sends to east and south: many small messages in
// sequence), then the upper-triangular sweep the other way.
//
// Check, exact at any size: the sweeps solve (D + L) v = f and (D + U) w = g with right-hand sides
// made from the field u and a known increment s_t, so that the exact solutions are v = w = u + s_t;
// after N iterations the field must be u_0 + sum of s_t at every point. Any lost, corrupted or
// misrouted message of the wavefront or of the exchange shows there.

#include <cmath>
#include <stdexcept>

#include "app_field.hpp"
#include "app_workloads_internal.hpp"

namespace mpimon::workloads {

namespace {

using mpimon::Box;
using mpimon::Vec3;

constexpr double kDiagonal = 4.0, kCoupling = 1.0;  // D = 4 I, L and U couple with -1: stable sweeps
constexpr int kForwardEast = 100, kForwardSouth = 101, kBackwardWest = 102, kBackwardNorth = 103;

ProblemSize lu_class_size(const std::string& c) {
  if (c == "small") return {{24, 24, 24}, 5, 10};
  if (c == "medium") return {{64, 64, 64}, 5, 40};
  return {{162, 162, 162}, 5, 250};  // NAS LU class C's grid and iterations
}

bool inside(const Vec3& g, const Vec3& grid) {
  for (std::size_t d = 0; d < 3; ++d) {
    if (g[d] < 0 || g[d] >= grid[d]) return false;
  }
  return true;
}

double initial_value(const Vec3& g, int v) { return std::cos(0.1 * g[0] + 0.2 * g[1] + 0.3 * g[2] + v); }
/// The increment's shape, 0 outside the domain (as every field's ghosts there).
double increment_shape(const Vec3& g, int v, const Vec3& grid) {
  return inside(g, grid) ? std::sin(0.05 * (v + 1) * (g[0] + 1) + 0.07 * (g[1] + 2) * (g[2] + 1)) : 0.0;
}
double increment_scale(int t) { return 1.0 / (1 + t % 3); }

class Lu {
 public:
  Lu(Traffic& traffic, const WorkloadOptions& o, const Vec3& grid, int vars)
      : t_(traffic),
        grid_(grid),
        block_(o.block),
        compute_(o.compute),
        pgrid_(make_process_grid(traffic.size(), 2, grid, false)),
        field_(pgrid_, grid, traffic.rank(), vars),
        halo_(traffic, pgrid_, field_, {{-1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {1, 0, 0}}),
        u_(field_.zeros()),
        f_(u_),
        g_(u_),
        v_(u_),
        w_(u_),
        shape_(u_),
        lower_shape_(u_),
        upper_shape_(u_),
        west_(pgrid_.neighbour(t_.rank(), {-1, 0, 0})),
        north_(pgrid_.neighbour(t_.rank(), {0, -1, 0})),
        east_(pgrid_.neighbour(t_.rank(), {1, 0, 0})),
        south_(pgrid_.neighbour(t_.rank(), {0, 1, 0})) {
    if (block_ < 1) throw std::invalid_argument("--block must be at least 1");
    // (D + L) s and (D + U) s for the increment's shape s, from its formula (no message).
    for (int v = 0; v < vars; ++v) {
      field_.for_interior([&](std::size_t p, const Vec3& g) {
        u_[field_.var(v) + p] = initial_value(g, v);
        shape_[field_.var(v) + p] = increment_shape(g, v, grid_);
        const double centre = kDiagonal * increment_shape(g, v, grid_);
        double lower = centre, upper = centre;
        for (std::size_t d = 0; d < 3; ++d) {
          Vec3 m = g, q = g;
          --m[d];
          ++q[d];
          lower -= kCoupling * increment_shape(m, v, grid_);
          upper -= kCoupling * increment_shape(q, v, grid_);
        }
        lower_shape_[field_.var(v) + p] = lower;
        upper_shape_[field_.var(v) + p] = upper;
      });
    }
  }

  void iterate(int t) {
    const double c = increment_scale(t);
    halo_.exchange(u_);
    right_hand_sides(c);
    forward_sweep();
    backward_sweep(c);
    std::swap(u_, w_);
  }

  /// The largest deviation from u_0 + sum of the increments, over this rank's points.
  [[nodiscard]] double max_error(int iterations) const {
    double total = 0;
    for (int t = 0; t < iterations; ++t) total += increment_scale(t);
    double worst = 0;
    for (int v = 0; v < field_.vars(); ++v) {
      field_.for_interior([&](std::size_t p, const Vec3& g) {
        const double expected = initial_value(g, v) + total * increment_shape(g, v, grid_);
        keep_worst(worst, std::abs(u_[field_.var(v) + p] - expected));
      });
    }
    return worst;
  }

  [[nodiscard]] const mpimon::ProcessGrid& process_grid() const { return pgrid_; }

 private:
  // f = (D + L)(u + c s), g = (D + U)(u + c s): u's ghosts come from the exchange.
  void right_hand_sides(double c) {
    const std::ptrdiff_t dx = field_.offset({1, 0, 0}), dy = field_.offset({0, 1, 0});
    for (int v = 0; v < field_.vars(); ++v) {
      const std::size_t base = field_.var(v);
      field_.for_interior([&](std::size_t p, const Vec3&) {
        const double* x = u_.data() + base + p;
        f_[base + p] = kDiagonal * x[0] - kCoupling * (x[-dx] + x[-dy] + x[-1]) + c * lower_shape_[base + p];
        g_[base + p] = kDiagonal * x[0] - kCoupling * (x[dx] + x[dy] + x[1]) + c * upper_shape_[base + p];
      });
    }
    burn_flops(compute_ * static_cast<double>(field_.interior_points()) * field_.vars());
  }

  // The z planes [k0, k1) of column i (a y-z face) or row j (an x-z face) of every variable.
  [[nodiscard]] Box column(int i, int k0, int k1) const { return {{i, 1, k0}, {i + 1, field_.n()[1] + 1, k1}}; }
  [[nodiscard]] Box row(int j, int k0, int k1) const { return {{1, j, k0}, {field_.n()[0] + 1, j + 1, k1}}; }

  void receive(std::vector<double>& x, int from, int tag, const Box& ghost) {
    if (from < 0) return;
    incoming_.resize(ghost.volume() * static_cast<std::size_t>(field_.vars()));
    t_.recv(incoming_.data(), incoming_.size(), from, tag);
    field_.unpack(x, ghost, incoming_);
  }
  void send(const std::vector<double>& x, int to, int tag, const Box& face) {
    if (to < 0) return;
    outgoing_.emplace_back();
    field_.pack(x, face, outgoing_.back());
    t_.isend(outgoing_.back().data(), outgoing_.back().size(), to, tag);
  }

  // Solves (D + L) v = f, block of planes after block: v(p) = (f(p) + v(p - x) + v(p - y) + v(p - z)) / 4.
  void forward_sweep() {
    const Vec3& n = field_.n();
    const std::ptrdiff_t dx = field_.offset({1, 0, 0}), dy = field_.offset({0, 1, 0});
    for (int k0 = 1; k0 <= n[2]; k0 += block_) {
      const int k1 = std::min(n[2] + 1, k0 + block_);
      receive(v_, west_, kForwardEast, column(0, k0, k1));
      receive(v_, north_, kForwardSouth, row(0, k0, k1));
      for (int var = 0; var < field_.vars(); ++var) {
        double* x = v_.data() + field_.var(var);
        const double* rhs = f_.data() + field_.var(var);
        for (int i = 1; i <= n[0]; ++i) {
          for (int j = 1; j <= n[1]; ++j) {
            for (int k = k0; k < k1; ++k) {
              const auto p = static_cast<std::ptrdiff_t>(field_.at(i, j, k));
              x[p] = (rhs[p] + kCoupling * (x[p - dx] + x[p - dy] + x[p - 1])) / kDiagonal;
            }
          }
        }
      }
      send(v_, east_, kForwardEast, column(n[0], k0, k1));
      send(v_, south_, kForwardSouth, row(n[1], k0, k1));
    }
    t_.wait_all();
    outgoing_.clear();
  }

  // Solves (D + U) w = g + D (v - u - c s), from the last block back: w = u + c s when v was right,
  // and otherwise carries the forward sweep's error into the field.
  void backward_sweep(double c) {
    const Vec3& n = field_.n();
    const std::ptrdiff_t dx = field_.offset({1, 0, 0}), dy = field_.offset({0, 1, 0});
    const int blocks = (n[2] + block_ - 1) / block_;
    for (int b = blocks - 1; b >= 0; --b) {
      const int k0 = 1 + b * block_, k1 = std::min(n[2] + 1, k0 + block_);
      receive(w_, east_, kBackwardWest, column(n[0] + 1, k0, k1));
      receive(w_, south_, kBackwardNorth, row(n[1] + 1, k0, k1));
      for (int var = 0; var < field_.vars(); ++var) {
        const std::size_t base = field_.var(var);
        double* x = w_.data() + base;
        for (int i = n[0]; i >= 1; --i) {
          for (int j = n[1]; j >= 1; --j) {
            for (int k = k1 - 1; k >= k0; --k) {
              const auto p = static_cast<std::ptrdiff_t>(field_.at(i, j, k));
              const auto q = base + static_cast<std::size_t>(p);
              const double rhs = g_[q] + kDiagonal * (v_[q] - u_[q] - c * shape_[q]);
              x[p] = (rhs + kCoupling * (x[p + dx] + x[p + dy] + x[p + 1])) / kDiagonal;
            }
          }
        }
      }
      send(w_, west_, kBackwardWest, column(1, k0, k1));
      send(w_, north_, kBackwardNorth, row(1, k0, k1));
    }
    t_.wait_all();
    outgoing_.clear();
  }

  Traffic& t_;
  Vec3 grid_;
  int block_;
  double compute_;
  mpimon::ProcessGrid pgrid_;
  BlockField field_;
  Halo halo_;
  std::vector<double> u_, f_, g_, v_, w_, shape_, lower_shape_, upper_shape_;
  int west_, north_, east_, south_;
  std::vector<double> incoming_;
  std::vector<std::vector<double>> outgoing_;
};

}  // namespace

WorkloadReport run_lu(Traffic& traffic, const WorkloadOptions& o) {
  const auto [grid, vars, iterations] = resolve_size(lu_class_size(o.problem_class), o);
  Lu lu(traffic, o, grid, vars);
  WorkloadReport r = run_timed_loop(traffic, iterations, [&](int t) { lu.iterate(t); });
  check_max_error(traffic, r, "known_solution", lu.max_error(iterations), 1e-9);
  r.details = {{"grid", grid},
               {"process_grid", lu.process_grid().dims},
               {"vars", std::int64_t{vars}},
               {"block", std::int64_t{o.block}},
               {"compute", o.compute}};
  return r;
}

}  // namespace mpimon::workloads
