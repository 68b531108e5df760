// The CG workload (docs/workloads.md): unpreconditioned conjugate gradient on the 7-point
// Laplacian of a 3-D grid with zero Dirichlet boundary, decomposed over a 3-D process grid. Per
// iteration: one face exchange (sparse matrix-vector product) and two 8-byte allreduces (dot
// products), NAS CG's signature. Checks, from the theory rather than from a run:
//   - the error in the A-norm against the known solution x* (b = A x*) must be within the
//     Chebyshev bound 2 rho^N, rho = (sqrt(kappa) - 1) / (sqrt(kappa) + 1), with kappa from the
//     Laplacian's known extreme eigenvalues;
//   - the recursively updated residual must equal b - A x computed afresh (a corrupted exchange
//     makes them part).

#include <cmath>
#include <numbers>
#include <stdexcept>

#include "app_field.hpp"
#include "app_workloads_internal.hpp"
#include "mpimon/json.hpp"

namespace mpimon::workloads {

namespace {

using mpimon::Vec3;

constexpr double kTargetBound = 1e-6;     // default iterations: until the bound reaches this
constexpr double kGapTolerance = 1e-8;    // |r_recursive - (b - A x)| / |b|
constexpr double kRoundingFloor = 1e-10;  // relative A-norm error attainable in double precision

Vec3 class_grid(const std::string& c) {
  if (c == "small") return {16, 16, 16};
  if (c == "medium") return {80, 80, 80};
  return {256, 256, 256};
}

/// The exact solution: a deterministic pseudo-random value in [-1, 1] per global point
/// (splitmix64 of its linear index), so that no eigenvector shortcut makes CG converge early.
double exact_solution(const Vec3& g, const Vec3& grid) {
  std::uint64_t z =
      ((static_cast<std::uint64_t>(g[0]) * static_cast<std::uint64_t>(grid[1]) + static_cast<std::uint64_t>(g[1])) *
           static_cast<std::uint64_t>(grid[2]) +
       static_cast<std::uint64_t>(g[2])) +
      0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/// rho of the Chebyshev bound, from the extreme eigenvalues of the 7-point Dirichlet Laplacian:
/// sum over dimensions of 4 sin^2(pi k / (2 (n + 1))), k = 1 and k = n.
double convergence_factor(const Vec3& grid) {
  double lo = 0, hi = 0;
  for (int n : grid) {
    const double h = std::numbers::pi / (2.0 * (n + 1));
    lo += 4 * std::pow(std::sin(h), 2);
    hi += 4 * std::pow(std::sin(h * n), 2);
  }
  const double root = std::sqrt(hi / lo);
  return (root - 1) / (root + 1);
}

// The 7-point Laplacian on this rank's block, with the face exchange its product needs.
class Laplacian {
 public:
  Laplacian(Traffic& t, const Vec3& grid)
      : pgrid_(make_process_grid(t.size(), 3, grid, false)),
        field_(pgrid_, grid, t.rank(), 1),
        halo_(t, pgrid_, field_, mpimon::neighbour_offsets(7)) {}

  [[nodiscard]] std::vector<double> vector() const { return field_.zeros(); }
  template <typename F>
  void for_interior(F&& f) const {
    field_.for_interior(f);
  }
  /// Fills v's ghost layer from the neighbours; at the domain's edge the ghosts stay 0 (Dirichlet).
  void exchange(std::vector<double>& v) { halo_.exchange(v); }

  /// out = A v on the interior (v's ghosts filled).
  void apply(const std::vector<double>& v, std::vector<double>& out) const {
    const std::ptrdiff_t dx = field_.offset({1, 0, 0}), dy = field_.offset({0, 1, 0});
    field_.for_interior([&](std::size_t p, const Vec3&) {
      const auto q = static_cast<std::ptrdiff_t>(p);
      const double* c = v.data() + q;
      out[p] = 6 * c[0] - c[-dx] - c[dx] - c[-dy] - c[dy] - c[-1] - c[1];
    });
  }

  /// The local part of a . b over the interior.
  [[nodiscard]] double dot(const std::vector<double>& a, const std::vector<double>& b) const {
    double s = 0;
    field_.for_interior([&](std::size_t p, const Vec3&) { s += a[p] * b[p]; });
    return s;
  }

  [[nodiscard]] std::size_t interior_points() const { return field_.interior_points(); }
  [[nodiscard]] const mpimon::ProcessGrid& process_grid() const { return pgrid_; }

 private:
  mpimon::ProcessGrid pgrid_;
  BlockField field_;
  Halo halo_;
};

}  // namespace

WorkloadReport run_cg(Traffic& traffic, const WorkloadOptions& o) {
  const Vec3 grid = o.grid[0] > 0 ? o.grid : class_grid(o.problem_class);
  const double rho = convergence_factor(grid);
  const int iterations =
      o.iterations > 0 ? o.iterations : static_cast<int>(std::ceil(std::log(kTargetBound / 2) / std::log(rho)));
  Laplacian a(traffic, grid);

  // b = A x*, from x* at the neighbours (0 outside the domain): no message needed.
  std::vector<double> exact = a.vector(), b = a.vector();
  a.for_interior([&](std::size_t p, const Vec3& g) { exact[p] = exact_solution(g, grid); });
  a.for_interior([&](std::size_t p, const Vec3& g) {
    double s = 6 * exact[p];
    for (const Vec3& off : mpimon::neighbour_offsets(7)) {
      const Vec3 n{g[0] + off[0], g[1] + off[1], g[2] + off[2]};
      bool inside = true;
      for (std::size_t d = 0; d < 3; ++d) inside &= n[d] >= 0 && n[d] < grid[d];
      if (inside) s -= exact_solution(n, grid);
    }
    b[p] = s;
  });

  std::vector<double> x = a.vector(), r = b, p = b, q = a.vector();
  double rr = a.dot(r, r);
  traffic.allreduce_sum(&rr, 1);
  const double extra = o.compute * static_cast<double>(a.interior_points());

  WorkloadReport report = run_timed_loop(traffic, iterations, [&](int) {
    a.exchange(p);
    a.apply(p, q);
    burn_flops(extra);
    double pq = a.dot(p, q);
    traffic.allreduce_sum(&pq, 1);
    const double alpha = rr / pq;
    a.for_interior([&](std::size_t i, const Vec3&) {
      x[i] += alpha * p[i];
      r[i] -= alpha * q[i];
    });
    double rr_next = a.dot(r, r);
    traffic.allreduce_sum(&rr_next, 1);
    const double beta = rr_next / rr;
    rr = rr_next;
    a.for_interior([&](std::size_t i, const Vec3&) { p[i] = r[i] + beta * p[i]; });
  });

  // The true residual b - A x, the error e = x* - x, and ||e||_A^2 = e . (b - A x).
  a.exchange(x);
  a.apply(x, q);
  std::vector<double> error = a.vector(), residual = a.vector(), gap = a.vector();
  a.for_interior([&](std::size_t i, const Vec3&) {
    error[i] = exact[i] - x[i];
    residual[i] = b[i] - q[i];
    gap[i] = residual[i] - r[i];
  });
  double sums[4] = {a.dot(error, residual), a.dot(exact, b), a.dot(gap, gap), a.dot(b, b)};
  traffic.allreduce_sum(sums, 4);
  const double relative_error = std::sqrt(std::max(0.0, sums[0]) / sums[1]);
  const double relative_gap = std::sqrt(sums[2] / sums[3]);
  const double bound = 2 * std::pow(rho, iterations);

  report.check = "cg_error_bound";
  report.check_value = relative_error;
  report.tolerance = bound * (1 + 1e-3) + kRoundingFloor;
  report.passed = report.check_value <= report.tolerance && relative_gap <= kGapTolerance;
  if (report.check_value <= report.tolerance && !report.passed) {
    report.failure = "the recursive residual departs from b - A x by " + json_line(relative_gap) +
                     " of |b| (tolerance " + json_line(kGapTolerance) + ")";
  }
  report.details = {
      {"grid", grid},         {"process_grid", a.process_grid().dims}, {"compute", o.compute},
      {"chebyshev_rho", rho}, {"residual_gap", relative_gap},          {"residual_gap_tolerance", kGapTolerance}};
  return report;
}

}  // namespace mpimon::workloads
