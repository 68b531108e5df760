// mpimon-reorder-demo: the dynamic path of docs/reorder.md. The processes exchange halos on a
// scrambled s x s torus (s x s processes; vertex v at row v % s, column (v / s + v % s) % s: with s
// consecutive ranks per node every grid edge joins two nodes), then call
// mpimon_reorder(MPI_COMM_WORLD, SOURCE, &c) and exchange the same halos on c, rank v of c playing
// vertex v. Phases end at MPI_Pcontrol (for mpimon collect): phase 1 the first exchange, the
// reorder call and the gathering of where every rank runs; phase 2 the second exchange alone;
// phase 3 the report. It prints, from its own ledger and the hosts it gathered:
//   RANK world=W new=V host=H             (one line per process)
//   PHASE 1 bytes=T between_nodes=X       (the first exchange: bytes in all, between hosts)
//   PHASE 2 bytes=T between_nodes=Y seconds=S
//   REORDER reordered=0|1 before=B after=A cost_before=... cost_after=... seconds=... note=...
//                                          (the library's statistics: its modelled weight between nodes)
// or "REORDER ERROR code: message" and exit code 3 when the call fails (on every process).
// Usage: mpimon-reorder-demo [--source none|monitoring|file:PATH.h5] [--bytes B] [--iterations N]
#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpimon/reorder.h"

namespace {

int g_rank = 0, g_size = 1;

int vertex_at(int row, int col, int s) { return ((col - row) % s + s) % s * s + row; }

// The four grid neighbours of vertex v (fewer when the torus is smaller than 3 x 3).
std::vector<int> neighbours(int v, int s) {
  const int row = v % s, col = (v / s + row) % s;
  std::vector<int> out;
  for (auto [dr, dc] : {std::pair{0, 1}, {0, -1}, {1, 0}, {-1, 0}}) {
    const int w = vertex_at((row + dr + s) % s, (col + dc + s) % s, s);
    if (w != v) out.push_back(w);
  }
  return out;
}

double exchange(MPI_Comm comm, int s, int bytes, int iterations) {
  int v = 0;
  MPI_Comm_rank(comm, &v);
  const auto nb = neighbours(v, s);
  std::vector<std::vector<char>> out(nb.size(), std::vector<char>(static_cast<std::size_t>(bytes), 'x')),
      in(nb.size(), std::vector<char>(static_cast<std::size_t>(bytes)));
  const double t0 = MPI_Wtime();
  for (int it = 0; it < iterations; ++it) {
    std::vector<MPI_Request> r(2 * nb.size());
    for (std::size_t k = 0; k < nb.size(); ++k) {
      MPI_Irecv(in[k].data(), bytes, MPI_BYTE, nb[k], it, comm, &r[2 * k]);
      MPI_Isend(out[k].data(), bytes, MPI_BYTE, nb[k], it, comm, &r[2 * k + 1]);
    }
    MPI_Waitall(static_cast<int>(r.size()), r.data(), MPI_STATUSES_IGNORE);
  }
  return MPI_Wtime() - t0;
}

struct Host {
  char name[64];
};

// Hosts of every rank of comm, in comm's rank order, at comm's rank 0.
std::vector<Host> hosts_of(MPI_Comm comm) {
  Host me{};
  gethostname(me.name, sizeof me.name - 1);
  std::vector<Host> all(static_cast<std::size_t>(g_size));
  MPI_Gather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, 0, comm);
  return all;
}

// Bytes of one exchange in all and between hosts, vertex v on the host of rank v.
std::pair<long long, long long> traffic(const std::vector<Host>& host, int s, long long per_message) {
  long long total = 0, between = 0;
  for (int v = 0; v < g_size; ++v) {
    for (int w : neighbours(v, s)) {
      total += per_message;
      if (std::strcmp(host[static_cast<std::size_t>(v)].name, host[static_cast<std::size_t>(w)].name) != 0)
        between += per_message;
    }
  }
  return {total, between};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string source = "monitoring";
  int bytes = 65536, iterations = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--source")
      source = argv[i + 1];
    else if (a == "--bytes")
      bytes = std::atoi(argv[i + 1]);
    else if (a == "--iterations")
      iterations = std::atoi(argv[i + 1]);
  }
  const int s = static_cast<int>(std::lround(std::sqrt(g_size)));
  if (s * s != g_size || s < 2 || bytes < 1 || iterations < 1 || argc % 2 == 0) {
    if (g_rank == 0) {
      std::fprintf(stderr,
                   "usage: mpimon-reorder-demo [--source none|monitoring|file:PATH.h5] [--bytes B] "
                   "[--iterations N], on a square number of processes (4 or more)\n");
    }
    MPI_Finalize();
    return 2;
  }
  exchange(MPI_COMM_WORLD, s, bytes, iterations);
  MPI_Comm c = MPI_COMM_NULL;
  mpimon_reorder_stats stats{};
  int rc = MPIMON_REORDER_SUCCESS;
  if (source == "none") {
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
  } else {
    rc = mpimon_reorder(MPI_COMM_WORLD, source.c_str(), &c);
    mpimon_reorder_get_stats(&stats);
  }
  if (rc != MPIMON_REORDER_SUCCESS) {
    if (g_rank == 0) std::printf("REORDER ERROR %d: %s\n", rc, mpimon_reorder_error_message());
    std::fflush(stdout);
    MPI_Finalize();
    return 3;
  }
  const auto world_hosts = hosts_of(MPI_COMM_WORLD);
  int v = 0;
  MPI_Comm_rank(c, &v);
  std::vector<int> new_of(static_cast<std::size_t>(g_size));
  MPI_Gather(&v, 1, MPI_INT, new_of.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<Host> new_hosts(world_hosts.size());  // the host of each rank of c
  for (std::size_t w = 0; g_rank == 0 && w < new_of.size(); ++w) {
    new_hosts[static_cast<std::size_t>(new_of[w])] = world_hosts[w];
  }
  MPI_Pcontrol(1);
  const double seconds = exchange(c, s, bytes, iterations);
  MPI_Pcontrol(2);
  double slowest = 0;
  MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (g_rank == 0) {
    for (int w = 0; w < g_size; ++w) {
      std::printf("RANK world=%d new=%d host=%s\n", w, new_of[static_cast<std::size_t>(w)],
                  world_hosts[static_cast<std::size_t>(w)].name);
    }
    const long long per_message = static_cast<long long>(bytes) * iterations;
    const auto [t1, x1] = traffic(world_hosts, s, per_message);
    const auto [t2, x2] = traffic(new_hosts, s, per_message);
    std::printf("PHASE 1 bytes=%lld between_nodes=%lld\n", t1, x1);
    std::printf("PHASE 2 bytes=%lld between_nodes=%lld seconds=%.6f\n", t2, x2, slowest);
    if (source != "none") {
      std::printf(
          "REORDER reordered=%d before=%.0f after=%.0f cost_before=%.0f cost_after=%.0f method=%s "
          "seconds=%.6f mapping=%.6f note=%s\n",
          stats.reordered, stats.between_nodes_before, stats.between_nodes_after, stats.cost_before, stats.cost_after,
          stats.method, stats.seconds, stats.seconds_mapping, stats.note);
    }
    std::printf("phase 2: %.6f s\n", slowest);
    std::fflush(stdout);
  }
  MPI_Comm_free(&c);
  MPI_Finalize();
  return 0;
}
