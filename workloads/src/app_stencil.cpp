// The MiniGhost-like stencil (docs/workloads.md): a periodic 3-D grid decomposed over a 3-D process
// grid, a 7- or 27-point averaging stencil on every variable, one halo message per neighbour per
// iteration carrying all variables. Check: each variable starts as a plane wave, an eigenvector of
// the stencil on the periodic grid, so after N iterations it must be the same wave times
// lambda^N, at every point. A lost, corrupted or misrouted halo breaks that.

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "app_field.hpp"
#include "app_workloads_internal.hpp"

namespace mpimon::workloads {

namespace {

using mpimon::Vec3;

ProblemSize stencil_class_size(const std::string& c) {
  if (c == "small") return {{32, 32, 32}, 4, 20};
  if (c == "medium") return {{96, 96, 96}, 8, 40};
  return {{256, 256, 256}, 40, 100};  // large: 10.7 GB over all ranks
}

/// The stencil weight of a neighbour at `off`, by how many of its components are non-zero: the
/// 7-point stencil keeps 0.4 at the centre and 0.1 per face; the 27-point one is the tensor
/// product of (1/4, 1/2, 1/4). Both sum to 1, so the mean is conserved.
double weight(const Vec3& off, int points) {
  const int nonzero = (off[0] != 0) + (off[1] != 0) + (off[2] != 0);
  if (points == 7) return nonzero == 0 ? 0.4 : (nonzero == 1 ? 0.1 : 0.0);
  return 0.125 / static_cast<double>(1 << nonzero);
}

/// Variable v's wave: cos(theta . g + phase), one period across the grid along each axis (the
/// slowest-decaying waves, so that the check stays sensitive over many iterations), the variables
/// told apart by the wave's direction and phase. The stencil's symmetry gives all of them the same
/// eigenvalue.
struct Wave {
  std::array<double, 3> theta;
  double phase;
};

Wave wave(int v, const Vec3& grid) {
  const Vec3 k{1, v % 2 == 0 ? 1 : -1, (v / 2) % 2 == 0 ? 1 : -1};
  Wave w{};
  for (std::size_t d = 0; d < 3; ++d) w.theta[d] = 2 * std::numbers::pi * k[d] / grid[d];
  w.phase = 0.5 * v;
  return w;
}

mpimon::ProcessGrid scrambled(mpimon::ProcessGrid pgrid, std::uint64_t seed) {
  if (seed != 0) pgrid.scramble(seed);
  return pgrid;
}

class Stencil {
 public:
  Stencil(Traffic& traffic, const WorkloadOptions& o, const Vec3& grid, int vars)
      : grid_(grid),
        vars_(vars),
        points_(o.points),
        compute_(o.compute),
        pgrid_(scrambled(make_process_grid(traffic.size(), 3, grid, true), o.scramble)),
        field_(pgrid_, grid, traffic.rank(), vars),
        halo_(traffic, pgrid_, field_, mpimon::neighbour_offsets(o.points)),
        u_(field_.zeros()),
        next_(u_) {
    for (const Vec3& off : mpimon::neighbour_offsets(27)) {
      const double w = weight(off, points_);
      if (w != 0) taps_.push_back({field_.offset(off), w});
    }
    taps_.push_back({0, weight({0, 0, 0}, points_)});
    for (int v = 0; v < vars_; ++v) {
      const Wave w = wave(v, grid_);
      field_.for_interior([&](std::size_t p, const Vec3& g) { u_[field_.var(v) + p] = value(w, g); });
    }
  }

  void iterate() {
    halo_.exchange(u_);
    const double extra = compute_ * static_cast<double>(field_.interior_points());
    for (int v = 0; v < vars_; ++v) {
      apply(v);
      burn_flops(extra);
    }
    std::swap(u_, next_);
  }

  /// The largest deviation from lambda^iterations times the initial wave, over this rank's points.
  [[nodiscard]] double max_error(int iterations) const {
    double worst = 0;
    for (int v = 0; v < vars_; ++v) {
      const Wave w = wave(v, grid_);
      const double scale = std::pow(eigenvalue(w), iterations);
      field_.for_interior([&](std::size_t p, const Vec3& g) {
        keep_worst(worst, std::abs(u_[field_.var(v) + p] - scale * value(w, g)));
      });
    }
    return worst;
  }

  [[nodiscard]] const mpimon::ProcessGrid& process_grid() const { return pgrid_; }
  /// What is left of the waves' amplitude after `iterations`: the check's sensitivity.
  [[nodiscard]] double amplitude(int iterations) const { return std::pow(eigenvalue(wave(0, grid_)), iterations); }

 private:
  struct Tap {
    std::ptrdiff_t delta;
    double weight;
  };

  static double value(const Wave& w, const Vec3& g) {
    return std::cos(w.theta[0] * g[0] + w.theta[1] * g[1] + w.theta[2] * g[2] + w.phase);
  }
  // sum over the taps of weight x cos(theta . offset): the stencil is symmetric, so the sines cancel.
  [[nodiscard]] double eigenvalue(const Wave& w) const {
    double lambda = weight({0, 0, 0}, points_);
    for (const Vec3& off : mpimon::neighbour_offsets(27)) {
      lambda += weight(off, points_) * std::cos(w.theta[0] * off[0] + w.theta[1] * off[1] + w.theta[2] * off[2]);
    }
    return lambda;
  }

  void apply(int v) {
    const double* in = u_.data() + field_.var(v);
    double* out = next_.data() + field_.var(v);
    const Vec3& n = field_.n();
    for (int i = 1; i <= n[0]; ++i) {
      for (int j = 1; j <= n[1]; ++j) {
        const auto base = static_cast<std::ptrdiff_t>(field_.at(i, j, 0));
        for (std::ptrdiff_t p = base + 1; p <= base + n[2]; ++p) {
          double sum = 0;
          for (const Tap& tap : taps_) sum += tap.weight * in[p + tap.delta];
          out[p] = sum;
        }
      }
    }
  }

  Vec3 grid_;
  int vars_, points_;
  double compute_;
  mpimon::ProcessGrid pgrid_;
  BlockField field_;
  Halo halo_;
  std::vector<double> u_, next_;
  std::vector<Tap> taps_;
};

}  // namespace

mpimon::Vec3 stencil_grid(const WorkloadOptions& options) {
  return resolve_size(stencil_class_size(options.problem_class), options).grid;
}

WorkloadReport run_stencil(Traffic& traffic, const WorkloadOptions& o) {
  if (o.points != 7 && o.points != 27) throw std::invalid_argument("--points must be 7 or 27");
  const auto [grid, vars, iterations] = resolve_size(stencil_class_size(o.problem_class), o);
  Stencil stencil(traffic, o, grid, vars);
  WorkloadReport r = run_timed_loop(traffic, iterations, [&](int) { stencil.iterate(); });
  check_max_error(traffic, r, "plane_wave", stencil.max_error(iterations), 1e-9);
  r.details = {{"grid", grid},
               {"process_grid", stencil.process_grid().dims},
               {"vars", std::int64_t{vars}},
               {"points", std::int64_t{o.points}},
               {"wave_amplitude", stencil.amplitude(iterations)},
               {"compute", o.compute}};
  if (o.scramble != 0) r.details.push_back({"scramble", o.scramble});
  return r;
}

}  // namespace mpimon::workloads
