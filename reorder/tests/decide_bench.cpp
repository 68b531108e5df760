// mpimon-reorder-decide-bench: what rank 0 of a reordering computes, timed at process counts this
// machine cannot launch (docs/reorder.md#measuring-it). The gathered places and the declared graph are
// synthetic, as rank 0 would receive them: P processes per node, launched round-robin over the
// nodes (process p on node p mod nodes, as --map-by node or a cyclic srun), unbound (placed by
// node) or bound one per core (--bound: nodes of 2 packages); the graph is the 7-point stencil of
// a periodic 3-D grid of N vertices (MPI_Dims_create's most balanced factors), as MPI_Cart_create
// declares it. Each size is timed R times; one CSV line per run on stdout:
//   processes,nodes,placed_by,edges,time_limit_s,machine_s,decide_s,cost_before,cost_after,
//   between_before,between_after,reordered,method,peak_rss_mb
// Usage: mpimon-reorder-decide-bench [--processes N,N,...] [--per-node P] [--repeat R] [--bound]
//                                    [--time-limit S] (default: the library's, MPIMON_REORDER_TIME_LIMIT's)
#include <sys/resource.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "reorder_model.hpp"

namespace {

using mpimon::reorder::DirectedEdge;
using mpimon::reorder::ProcessPlace;

std::vector<int> numbers(const std::string& text) {
  std::vector<int> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(std::atoi(item.c_str()));
  return out;
}

// The most balanced a x b x c = n (a <= b <= c), as MPI_Dims_create chooses.
std::array<int, 3> dims_of(int n) {
  std::array<int, 3> best{1, 1, n};
  for (int a = 1; a * a * a <= n; ++a) {
    if (n % a) continue;
    for (int b = a; a * b * b <= n; ++b) {
      if ((n / a) % b) continue;
      const int c = n / a / b;
      if (c - a < best[2] - best[0]) best = {a, b, c};
    }
  }
  return best;
}

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes{64, 256, 1024, 4096, 10000};
  int per_node = 16, repeat = 3;
  bool bound = false;
  double time_limit = 0;  // 0: the library's default
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--processes" && i + 1 < argc)
      sizes = numbers(argv[++i]);
    else if (a == "--per-node" && i + 1 < argc)
      per_node = std::atoi(argv[++i]);
    else if (a == "--repeat" && i + 1 < argc)
      repeat = std::atoi(argv[++i]);
    else if (a == "--bound")
      bound = true;
    else if (a == "--time-limit" && i + 1 < argc)
      time_limit = std::atof(argv[++i]);
    else {
      std::fprintf(stderr,
                   "usage: mpimon-reorder-decide-bench [--processes N,N,...] [--per-node P] [--repeat R] [--bound] "
                   "[--time-limit S]\n");
      return 2;
    }
  }
  std::printf(
      "processes,nodes,placed_by,edges,time_limit_s,machine_s,decide_s,cost_before,cost_after,"
      "between_before,between_after,reordered,method,peak_rss_mb\n");
  for (int n : sizes) {
    if (n % per_node) {
      std::fprintf(stderr, "%d processes are not whole nodes of %d\n", n, per_node);
      return 2;
    }
    const int nodes = n / per_node;
    std::vector<ProcessPlace> places(static_cast<std::size_t>(n));
    for (int p = 0; p < n; ++p) {
      const int node = p % nodes, slot = p / nodes;
      places[static_cast<std::size_t>(p)] = {"node" + std::to_string(node),
                                             bound,
                                             static_cast<std::uint32_t>(slot / (per_node / 2)),
                                             static_cast<std::uint32_t>(slot % (per_node / 2)),
                                             2,
                                             static_cast<std::uint32_t>(per_node / 2)};
    }
    const auto d = dims_of(n);
    const std::vector<DirectedEdge> edges = mpimon::reorder::cart_edges({d[0], d[1], d[2]}, {1, 1, 1});
    const double limit =
        time_limit > 0 ? time_limit : mpimon::reorder::default_time_limit(static_cast<std::uint32_t>(n));
    for (int r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const auto machine = mpimon::reorder::machine_model(places);
      const auto t1 = std::chrono::steady_clock::now();
      const auto decision = mpimon::reorder::decide(static_cast<std::uint32_t>(n), edges, machine, limit);
      const auto t2 = std::chrono::steady_clock::now();
      std::printf("%d,%d,%s,%llu,%.3f,%.6f,%.6f,%.0f,%.0f,%.0f,%.0f,%d,%s,%.1f\n", n, nodes, bound ? "core" : "node",
                  static_cast<unsigned long long>(decision.edges), limit,
                  std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count(),
                  decision.cost_before, decision.cost_after, decision.between_before, decision.between_after,
                  decision.reordered ? 1 : 0, decision.method.c_str(), peak_rss_mb());
      std::fflush(stdout);
    }
  }
  return 0;
}
