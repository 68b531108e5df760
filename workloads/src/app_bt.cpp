// The BT workload (docs/workloads.md): NAS BT's multi-partition on q^2 processes. The grid is cut
// into q x q x q cells, each process owns q of them on a diagonal (decomposition.hpp). Every
// iteration exchanges the cells' faces (copy_faces: one message per direction), takes an explicit
// diffusion step with them, then solves implicit diffusion along x, then y, then z: tridiagonal
// systems (I - alpha Delta) u' = u on every grid line, by Thomas elimination carried from cell to
// cell. At each stage of a sweep every process works on one of its cells and then sends the face
// of eliminated values to the process owning the next cell, a partner that differs per direction;
// back substitution then runs the other way.
//
// Check, exact at any size: each variable starts as a product of sine modes, an eigenvector of
// the explicit step and of every line operator with zero Dirichlet boundary, so after N
// iterations it must be the same mode times iteration_factor()^N at every point.

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <numbers>
#include <stdexcept>

#include "app_workloads_internal.hpp"

namespace mpimon::workloads {

namespace {

using mpimon::Vec3;

constexpr double kAlpha = 0.5;                        // implicit diffusion of the line solves
constexpr double kBeta = 0.1;                         // explicit diffusion of the right-hand side
constexpr int kForwardTag = 200, kBackwardTag = 210;  // + axis
constexpr int kFaceTag = 220;                         // + direction()

/// The number of a direction along an axis, 0 to 5: 2 axis + (1 for +1).
constexpr std::size_t direction(int axis, int step) { return static_cast<std::size_t>(2 * axis + (step > 0 ? 1 : 0)); }

ProblemSize bt_class_size(const std::string& c) {
  if (c == "small") return {{24, 24, 24}, 5, 5};
  if (c == "medium") return {{64, 64, 64}, 5, 20};
  return {{162, 162, 162}, 5, 200};  // NAS BT class C's grid and iterations
}

/// Variable v's wave numbers.
Vec3 modes(int v) { return {1 + v % 2, 1 + (v / 2) % 2, 1 + (v / 4) % 2}; }

double mode_value(const Vec3& g, const Vec3& k, const Vec3& grid) {
  double x = 1;
  for (std::size_t d = 0; d < 3; ++d) x *= std::sin(std::numbers::pi * k[d] * (g[d] + 1) / (grid[d] + 1));
  return x;
}

/// One iteration's factor on variable v's mode: the explicit step's, 1 - beta sum of mu_d, times
/// the three line solves', 1 / (1 + alpha mu_d), mu_d = 4 sin^2(pi k_d / (2 (n_d + 1))) being the
/// mode's eigenvalue of the 1-D second difference with zero Dirichlet boundary.
double iteration_factor(const Vec3& k, const Vec3& grid) {
  double solves = 1, mu_sum = 0;
  for (std::size_t d = 0; d < 3; ++d) {
    const double s = std::sin(std::numbers::pi * k[d] / (2.0 * (grid[d] + 1)));
    solves /= 1 + kAlpha * 4 * s * s;
    mu_sum += 4 * s * s;
  }
  return (1 - kBeta * mu_sum) * solves;
}

struct Cell {
  Vec3 index;             ///< in the q x q x q cell grid
  Vec3 begin{}, size{};   ///< global points
  std::vector<double> u;  ///< [var][i][j][k]
  /// The neighbouring cells' adjacent faces, by direction(); empty at the domain's edge (zero).
  std::array<std::vector<double>, 6> ghost;
};

class Bt {
 public:
  Bt(Traffic& traffic, const WorkloadOptions& o, const Vec3& grid, int vars)
      : t_(traffic), grid_(grid), vars_(vars), compute_(o.compute) {
    mp_.q = mpimon::exact_square_root(t_.size());
    if (mp_.q == 0) {
      throw std::invalid_argument("--workload bt needs a square number of processes (1, 4, 9, 16, ...), not " +
                                  std::to_string(t_.size()));
    }
    for (std::size_t d = 0; d < 3; ++d) {
      if (grid_[d] < mp_.q) {
        throw std::invalid_argument("--grid: " + std::to_string(grid_[d]) + " points along dimension " +
                                    std::to_string(d + 1) + " for " + std::to_string(mp_.q) + " cells");
      }
    }
    for (const Vec3& c : mp_.cells(t_.rank())) {
      Cell cell{c, {}, {}, {}, {}};
      for (std::size_t d = 0; d < 3; ++d) {
        const auto r = mpimon::block_range(grid_[d], mp_.q, c[d]);
        cell.begin[d] = r.begin;
        cell.size[d] = r.size;
      }
      cell.u.resize(points(cell) * static_cast<std::size_t>(vars_));
      for (int v = 0; v < vars_; ++v) {
        for_points(cell,
                   [&](std::size_t p, const Vec3& g) { cell.u[offset(cell, v) + p] = mode_value(g, modes(v), grid_); });
      }
      cells_.push_back(std::move(cell));
    }
    // Thomas's modified upper diagonal depends only on the position along the line: every rank
    // computes it for the whole line, so only the right-hand side travels.
    for (std::size_t d = 0; d < 3; ++d) {
      auto& c = upper_[d];
      c.resize(static_cast<std::size_t>(grid_[d]));
      for (std::size_t i = 0; i < c.size(); ++i) {
        const double pivot = 1 + 2 * kAlpha + (i > 0 ? kAlpha * c[i - 1] : 0.0);
        c[i] = i + 1 < c.size() ? -kAlpha / pivot : 0.0;
        pivots_[d].push_back(pivot);
      }
    }
  }

  void iterate() {
    copy_faces();
    explicit_step();
    for (int axis = 0; axis < 3; ++axis) {
      eliminate(axis);
      substitute(axis);
    }
    std::size_t total = 0;
    for (const Cell& c : cells_) total += points(c);
    burn_flops(compute_ * static_cast<double>(total) * vars_);
  }

  [[nodiscard]] double max_error(int iterations) const {
    double worst = 0;
    for (const Cell& cell : cells_) {
      for (int v = 0; v < vars_; ++v) {
        const double scale = std::pow(iteration_factor(modes(v), grid_), iterations);
        for_points(cell, [&](std::size_t p, const Vec3& g) {
          keep_worst(worst, std::abs(cell.u[offset(cell, v) + p] - scale * mode_value(g, modes(v), grid_)));
        });
      }
    }
    return worst;
  }

  [[nodiscard]] int q() const { return mp_.q; }
  /// The smallest amplitude left after `iterations` over the variables: the check's sensitivity.
  [[nodiscard]] double amplitude(int iterations) const {
    double a = 1;
    for (int v = 0; v < vars_; ++v) a = std::min(a, std::pow(iteration_factor(modes(v), grid_), iterations));
    return a;
  }

 private:
  static std::size_t points(const Cell& c) {
    return static_cast<std::size_t>(c.size[0]) * static_cast<std::size_t>(c.size[1]) *
           static_cast<std::size_t>(c.size[2]);
  }
  static std::size_t offset(const Cell& c, int v) { return points(c) * static_cast<std::size_t>(v); }
  static Vec3 strides(const Cell& c) { return {c.size[1] * c.size[2], c.size[2], 1}; }
  template <typename F>
  static void for_points(const Cell& c, F&& f) {
    std::size_t p = 0;
    for (int i = 0; i < c.size[0]; ++i) {
      for (int j = 0; j < c.size[1]; ++j) {
        for (int k = 0; k < c.size[2]; ++k) f(p++, Vec3{c.begin[0] + i, c.begin[1] + j, c.begin[2] + k});
      }
    }
  }
  // Calls f(index of the line's first point, stride along the axis, line number) for every line
  // of the cell along `axis`, variable after variable; line numbers index the face messages.
  template <typename F>
  void for_lines(const Cell& c, int axis, F&& f) const {
    const auto a = static_cast<std::size_t>(axis), b = (a + 1) % 3, e = (a + 2) % 3;
    const Vec3 s = strides(c);
    std::size_t line = 0;
    for (int v = 0; v < vars_; ++v) {
      for (int x = 0; x < c.size[b]; ++x) {
        for (int y = 0; y < c.size[e]; ++y) {
          f(offset(c, v) + static_cast<std::size_t>(x * s[b] + y * s[e]), static_cast<std::size_t>(s[a]), line++);
        }
      }
    }
  }
  [[nodiscard]] std::size_t face_values(const Cell& c, int axis) const {
    const auto a = static_cast<std::size_t>(axis);
    return points(c) / static_cast<std::size_t>(c.size[a]) * static_cast<std::size_t>(vars_);
  }

  // NAS BT's copy_faces: for each of the 6 directions, one message to the process owning the
  // neighbouring cells (the same for all of a process's cells), carrying the faces of every cell
  // that has a neighbour that way, cells in t order on both sides.
  void copy_faces() {
    std::array<std::vector<double>, 6> in, out;
    for (int axis = 0; axis < 3; ++axis) {
      for (int step : {-1, 1}) {
        const std::size_t dir = direction(axis, step);
        std::size_t incoming = 0;
        for (const Cell& c : cells_) {
          if (has_neighbour(c, axis, -step)) incoming += face_values(c, axis);
          if (has_neighbour(c, axis, step)) append_face(c, axis, step, out[dir]);
        }
        if (incoming == 0 && out[dir].empty()) continue;  // one cell per dimension: nothing to send
        in[dir].resize(incoming);
        t_.irecv(in[dir].data(), incoming, mp_.partner(t_.rank(), axis, -step), kFaceTag + static_cast<int>(dir));
        t_.isend(out[dir].data(), out[dir].size(), mp_.partner(t_.rank(), axis, step),
                 kFaceTag + static_cast<int>(dir));
      }
    }
    t_.wait_all();
    for (int axis = 0; axis < 3; ++axis) {
      for (int step : {-1, 1}) {
        // What travelled in direction `step` lands on the -step side of the receiving cells.
        const std::vector<double>& received = in[direction(axis, step)];
        std::size_t at = 0;
        for (Cell& c : cells_) {
          if (!has_neighbour(c, axis, -step)) continue;
          const std::size_t n = face_values(c, axis);
          c.ghost[direction(axis, -step)].assign(received.begin() + static_cast<std::ptrdiff_t>(at),
                                                 received.begin() + static_cast<std::ptrdiff_t>(at + n));
          at += n;
        }
      }
    }
  }

  [[nodiscard]] bool has_neighbour(const Cell& c, int axis, int step) const {
    const int next = c.index[static_cast<std::size_t>(axis)] + step;
    return next >= 0 && next < mp_.q;
  }
  // The layer of cell c on the `step` side along `axis`, line after line.
  void append_face(const Cell& c, int axis, int step, std::vector<double>& out) const {
    const int layer = step > 0 ? c.size[static_cast<std::size_t>(axis)] - 1 : 0;
    for_lines(c, axis, [&](std::size_t first, std::size_t stride, std::size_t) {
      out.push_back(c.u[first + static_cast<std::size_t>(layer) * stride]);
    });
  }

  // u += beta (second differences along x, y and z), neighbours across cell faces from the ghosts.
  void explicit_step() {
    for (Cell& c : cells_) {
      std::vector<double> delta(c.u.size(), 0.0);
      for (int axis = 0; axis < 3; ++axis) {
        const auto& low = c.ghost[direction(axis, -1)];
        const auto& high = c.ghost[direction(axis, 1)];
        const int n = c.size[static_cast<std::size_t>(axis)];
        const bool has_low = has_neighbour(c, axis, -1), has_high = has_neighbour(c, axis, 1);
        for_lines(c, axis, [&](std::size_t first, std::size_t stride, std::size_t line) {
          for (int i = 0; i < n; ++i) {
            const std::size_t p = first + static_cast<std::size_t>(i) * stride;
            const double left = i > 0 ? c.u[p - stride] : (has_low ? low[line] : 0.0);
            const double right = i + 1 < n ? c.u[p + stride] : (has_high ? high[line] : 0.0);
            delta[p] += left + right - 2 * c.u[p];
          }
        });
      }
      for (std::size_t p = 0; p < c.u.size(); ++p) c.u[p] += kBeta * delta[p];
    }
  }

  // Forward elimination, stage after stage: d'_i = (d_i + alpha d'_{i-1}) / pivot_i, in place.
  void eliminate(int axis) {
    const auto a = static_cast<std::size_t>(axis);
    for (int stage = 0; stage < mp_.q; ++stage) {
      Cell& c = cell_at(axis, stage);
      std::vector<double> previous(face_values(c, axis), 0.0);
      if (stage > 0) t_.recv(previous.data(), previous.size(), mp_.partner(t_.rank(), axis, -1), kForwardTag + axis);
      const auto begin = static_cast<std::size_t>(c.begin[a]);
      for_lines(c, axis, [&](std::size_t first, std::size_t stride, std::size_t line) {
        double carried = previous[line];
        for (int i = 0; i < c.size[a]; ++i) {
          double& d = c.u[first + static_cast<std::size_t>(i) * stride];
          d = (d + kAlpha * carried) / pivots_[a][begin + static_cast<std::size_t>(i)];
          carried = d;
        }
        previous[line] = carried;
      });
      if (stage + 1 < mp_.q) {
        outgoing_.push_back(std::move(previous));
        t_.isend(outgoing_.back().data(), outgoing_.back().size(), mp_.partner(t_.rank(), axis, 1), kForwardTag + axis);
      }
    }
    t_.wait_all();
    outgoing_.clear();
  }

  // Back substitution, last stage first: x_i = d'_i - c'_i x_{i+1}.
  void substitute(int axis) {
    const auto a = static_cast<std::size_t>(axis);
    for (int stage = mp_.q - 1; stage >= 0; --stage) {
      Cell& c = cell_at(axis, stage);
      std::vector<double> next(face_values(c, axis), 0.0);
      if (stage + 1 < mp_.q) t_.recv(next.data(), next.size(), mp_.partner(t_.rank(), axis, 1), kBackwardTag + axis);
      const auto begin = static_cast<std::size_t>(c.begin[a]);
      for_lines(c, axis, [&](std::size_t first, std::size_t stride, std::size_t line) {
        double carried = next[line];
        for (int i = c.size[a] - 1; i >= 0; --i) {
          double& x = c.u[first + static_cast<std::size_t>(i) * stride];
          x -= upper_[a][begin + static_cast<std::size_t>(i)] * carried;
          carried = x;
        }
        next[line] = carried;
      });
      if (stage > 0) {
        outgoing_.push_back(std::move(next));
        t_.isend(outgoing_.back().data(), outgoing_.back().size(), mp_.partner(t_.rank(), axis, -1),
                 kBackwardTag + axis);
      }
    }
    t_.wait_all();
    outgoing_.clear();
  }

  Cell& cell_at(int axis, int stage) {
    const Vec3 index = mp_.cell_at_stage(t_.rank(), axis, stage);
    for (Cell& c : cells_) {
      if (c.index == index) return c;
    }
    throw std::logic_error("multi-partition: no cell at this stage");
  }

  Traffic& t_;
  Vec3 grid_;
  int vars_;
  double compute_;
  mpimon::MultiPartition mp_;
  std::vector<Cell> cells_;
  std::array<std::vector<double>, 3> upper_, pivots_;
  std::deque<std::vector<double>> outgoing_;
};

}  // namespace

WorkloadReport run_bt(Traffic& traffic, const WorkloadOptions& o) {
  const auto [grid, vars, iterations] = resolve_size(bt_class_size(o.problem_class), o);
  Bt bt(traffic, o, grid, vars);
  WorkloadReport r = run_timed_loop(traffic, iterations, [&](int) { bt.iterate(); });
  check_max_error(traffic, r, "sine_mode", bt.max_error(iterations), 1e-9);
  r.details = {{"grid", grid},
               {"cells_per_dimension", std::int64_t{bt.q()}},
               {"mode_amplitude", bt.amplitude(iterations)},
               {"vars", std::int64_t{vars}},
               {"compute", o.compute}};
  return r;
}

}  // namespace mpimon::workloads
