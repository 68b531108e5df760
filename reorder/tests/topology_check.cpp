// An unmodified MPI application for the reordering's tests (it does not link libmpimon-reorder):
// it declares graphs through the four topology constructors, then checks on each new
// communicator, with its own reference computed from the declared graph,
//   - the topology's semantics: MPI_Cart_coords / MPI_Cart_shift / MPI_Cart_rank, the neighbour
//     lists of MPI_Graph_neighbors and MPI_Dist_graph_neighbors (in the declared order for the
//     adjacent constructor, with weights), and an MPI_Neighbor_alltoall whose every block says who
//     sent it to whom: each block must come from the expected neighbour, and the ledger of what
//     every process sent equals what arrived;
//   - the placement the new communicator realises: every new rank's host and core, gathered here,
//     and from them the weight of the declared edges between places and its cost under the model
//     given (--model node: 100 per unit of weight between hosts; --model core: one host, 1 per unit
//     between cores), beside the fewest any order could reach (brute force over the places).
// Prints per case: "CASE name call=... reorder=R identity=0|1 between=W cost=C before=W0 cost_before=C0
// optimum=B" (before: had every vertex stayed on the process of its world rank), then
// "OK name" or "FAIL name: why"; exits 1 if any case failed.
// Usage: mpimon-reorder-topology --model node|core --reorder 0|1 CASE...
//   cases: cart_mesh (s x s, not periodic), cart_torus (s x s, periodic), graph_torus,
//   dist_torus, adjacent_torus (a scrambled s x s torus; s x s = the number of processes)
#include <mpi.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

namespace {

int g_rank = 0, g_size = 1;

struct Edge {
  int from, to, weight;
};

// The scrambled s x s torus: vertex v at row v % s, column (v / s + v % s) % s, so that with s
// consecutive processes per node every grid edge joins two nodes. Directed edges to the right and
// below neighbours, and back, weight 1 + (v + w) % 3 (weights differ so that they matter).
int side() {
  const int s = static_cast<int>(std::lround(std::sqrt(g_size)));
  return s * s == g_size ? s : 0;
}

int vertex_at(int row, int col, int s) {
  // row = v % s, col = (v / s + row) % s  =>  v / s = (col - row) mod s
  return ((col - row) % s + s) % s * s + row;
}

std::vector<Edge> scrambled_torus() {
  const int s = side();
  std::vector<Edge> e;
  for (int r = 0; r < s; ++r) {
    for (int c = 0; c < s; ++c) {
      const int v = vertex_at(r, c, s);
      for (int w : {vertex_at(r, (c + 1) % s, s), vertex_at((r + 1) % s, c, s)}) {
        if (w == v) continue;
        const int weight = 1 + (v + w) % 3;
        e.push_back({v, w, weight});
        e.push_back({w, v, weight});
      }
    }
  }
  return e;
}

// A Cartesian grid's neighbours, as MPI_Neighbor_alltoall orders them: per dimension, -1 then +1
// (MPI_PROC_NULL where the grid ends).
std::vector<int> cart_neighbours(int rank, const std::vector<int>& dims, const std::vector<int>& periods) {
  std::vector<int> coords(dims.size()), out;
  for (std::size_t d = dims.size(), r = static_cast<std::size_t>(rank); d-- > 0;) {
    coords[d] = static_cast<int>(r % static_cast<std::size_t>(dims[d]));
    r /= static_cast<std::size_t>(dims[d]);
  }
  for (std::size_t d = 0; d < dims.size(); ++d) {
    for (int step : {-1, +1}) {
      auto c = coords;
      c[d] += step;
      if (c[d] < 0 || c[d] >= dims[d]) {
        if (!periods[d]) {
          out.push_back(MPI_PROC_NULL);
          continue;
        }
        c[d] = (c[d] + dims[d]) % dims[d];
      }
      int r = 0;
      for (std::size_t k = 0; k < dims.size(); ++k) r = r * dims[k] + c[k];
      out.push_back(r);
    }
  }
  return out;
}

struct Case {
  std::string name, call;
  std::vector<Edge> edges;  // the declared graph (directed, weighted), on vertices = new ranks
  std::vector<int> dims, periods;
  std::vector<std::vector<int>> in, out, in_w, out_w;  // per vertex, in declared order
  bool ordered = false;                                // the neighbour lists keep the declared order (adjacent, cart)
  bool weighted = false;
};

void lists_from_edges(Case& c) {
  c.in.assign(static_cast<std::size_t>(g_size), {});
  c.out = c.in_w = c.out_w = c.in;
  for (const auto& e : c.edges) {
    c.out[static_cast<std::size_t>(e.from)].push_back(e.to);
    c.out_w[static_cast<std::size_t>(e.from)].push_back(e.weight);
    c.in[static_cast<std::size_t>(e.to)].push_back(e.from);
    c.in_w[static_cast<std::size_t>(e.to)].push_back(e.weight);
  }
}

// ---- Places -----------------------------------------------------------------------------------

struct Place {
  char host[64];
  int cpu;  // the one CPU this process may run on, or -1
  int world;
};

Place my_place() {
  Place p{};
  gethostname(p.host, sizeof p.host - 1);
  cpu_set_t set;
  CPU_ZERO(&set);
  p.cpu = -1;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) == 1) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) p.cpu = c;
    }
  }
  p.world = g_rank;
  return p;
}

std::string g_model;

// The place label of a process under the model: its host (node) or its CPU (core).
std::string label(const Place& p) { return g_model == "node" ? std::string(p.host) : std::to_string(p.cpu); }

double unit() { return g_model == "node" ? 100.0 : 1.0; }

// The fewest weight any order of the vertices on these places could put between places: every
// assignment of vertices to places (each place holding as many as it has processes), places of
// equal capacity opened in order so that each partition is seen once.
long long fewest_between(const std::vector<Edge>& edges, const std::vector<int>& capacity, int vertices) {
  std::vector<std::vector<std::pair<int, int>>> adj(static_cast<std::size_t>(vertices));
  for (const auto& e : edges) adj[static_cast<std::size_t>(e.from)].push_back({e.to, e.weight});
  std::vector<int> place_of(static_cast<std::size_t>(vertices), -1), left = capacity;
  long long best = -1;
  std::function<void(int, long long)> assign = [&](int v, long long cut) {
    if (best >= 0 && cut >= best) return;
    if (v == vertices) {
      best = cut;
      return;
    }
    for (std::size_t q = 0; q < left.size(); ++q) {
      if (left[q] == 0) continue;
      // an empty place like an earlier empty one of the same capacity: the same partition
      bool duplicate = false;
      for (std::size_t e = 0; e < q && left[q] == capacity[q]; ++e) {
        if (left[e] == capacity[e] && capacity[e] == capacity[q]) duplicate = true;
      }
      if (duplicate) continue;
      long long added = 0;
      for (auto [w, weight] : adj[static_cast<std::size_t>(v)]) {
        if (w < v && place_of[static_cast<std::size_t>(w)] != static_cast<int>(q)) added += weight;
      }
      for (int w = 0; w < v; ++w) {
        for (auto [x, weight] : adj[static_cast<std::size_t>(w)]) {
          if (x == v && place_of[static_cast<std::size_t>(w)] != static_cast<int>(q)) added += weight;
        }
      }
      place_of[static_cast<std::size_t>(v)] = static_cast<int>(q);
      --left[q];
      assign(v + 1, cut + added);
      ++left[q];
      place_of[static_cast<std::size_t>(v)] = -1;
    }
  };
  assign(0, 0);
  return best;
}

// ---- Checks -----------------------------------------------------------------------------------

std::string g_failure;
void expect(bool ok, const std::string& why) {
  if (!ok && g_failure.empty()) g_failure = why;
}

std::string list(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return "[" + s + "]";
}

void check_semantics(const Case& c, MPI_Comm comm) {
  int rank = 0, status = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Topo_test(comm, &status);
  const auto v = static_cast<std::size_t>(rank);
  std::vector<int> sources, destinations;
  if (!c.dims.empty()) {
    expect(status == MPI_CART, "the new communicator has no Cartesian topology");
    const int nd = static_cast<int>(c.dims.size());
    std::vector<int> coords(c.dims.size()), expected(c.dims.size());
    MPI_Cart_coords(comm, rank, nd, coords.data());
    for (std::size_t d = c.dims.size(), r = v; d-- > 0;) {
      expected[d] = static_cast<int>(r % static_cast<std::size_t>(c.dims[d]));
      r /= static_cast<std::size_t>(c.dims[d]);
    }
    expect(coords == expected,
           "MPI_Cart_coords of rank " + std::to_string(rank) + ": " + list(coords) + ", expected " + list(expected));
    int back = -1;
    MPI_Cart_rank(comm, coords.data(), &back);
    expect(back == rank, "MPI_Cart_rank(MPI_Cart_coords(r)) != r at rank " + std::to_string(rank));
    const auto nb = cart_neighbours(rank, c.dims, c.periods);
    for (int d = 0; d < nd; ++d) {
      int below = 0, above = 0;
      MPI_Cart_shift(comm, d, 1, &below, &above);
      expect(below == nb[static_cast<std::size_t>(2 * d)] && above == nb[static_cast<std::size_t>(2 * d + 1)],
             "MPI_Cart_shift(" + std::to_string(d) + ") at rank " + std::to_string(rank));
    }
    sources = destinations = nb;
  } else if (c.call == "MPI_Graph_create") {
    expect(status == MPI_GRAPH, "the new communicator has no graph topology");
    int count = 0;
    MPI_Graph_neighbors_count(comm, rank, &count);
    std::vector<int> nb(static_cast<std::size_t>(count));
    MPI_Graph_neighbors(comm, rank, count, nb.data());
    expect(nb == c.out[v],
           "MPI_Graph_neighbors of rank " + std::to_string(rank) + ": " + list(nb) + ", declared " + list(c.out[v]));
    sources = destinations = nb;
  } else {
    expect(status == MPI_DIST_GRAPH, "the new communicator has no distributed graph topology");
    int in = 0, out = 0, weighted = 0;
    MPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    sources.resize(static_cast<std::size_t>(in));
    destinations.resize(static_cast<std::size_t>(out));
    std::vector<int> in_w(sources.size()), out_w(destinations.size());
    MPI_Dist_graph_neighbors(comm, in, sources.data(), in_w.data(), out, destinations.data(), out_w.data());
    auto as_declared = [&](std::vector<int> got, std::vector<int> got_w, std::vector<int> want,
                           std::vector<int> want_w) {
      if (c.ordered) return got == want && (!c.weighted || got_w == want_w);
      std::vector<std::pair<int, int>> g, w;
      for (std::size_t k = 0; k < got.size(); ++k) g.push_back({got[k], c.weighted ? got_w[k] : 0});
      for (std::size_t k = 0; k < want.size(); ++k) w.push_back({want[k], c.weighted ? want_w[k] : 0});
      std::sort(g.begin(), g.end());
      std::sort(w.begin(), w.end());
      return g == w;
    };
    expect(as_declared(sources, in_w, c.in[v], c.in_w[v]), "MPI_Dist_graph_neighbors sources of rank " +
                                                               std::to_string(rank) + ": " + list(sources) +
                                                               ", declared " + list(c.in[v]));
    expect(as_declared(destinations, out_w, c.out[v], c.out_w[v]),
           "MPI_Dist_graph_neighbors destinations of rank " + std::to_string(rank) + ": " + list(destinations) +
               ", declared " + list(c.out[v]));
  }
  // The neighbourhood exchange: block k to destination k says (sender, receiver, k).
  std::vector<int> send, recv(3 * sources.size(), -7);
  for (std::size_t k = 0; k < destinations.size(); ++k) send.insert(send.end(), {rank, destinations[k], int(k)});
  MPI_Neighbor_alltoall(send.data(), 3, MPI_INT, recv.data(), 3, MPI_INT, comm);
  std::map<std::pair<int, int>, int> sent, arrived;  // (from, to) -> blocks
  for (int d : destinations) {
    if (d != MPI_PROC_NULL) ++sent[{rank, d}];
  }
  for (std::size_t k = 0; k < sources.size(); ++k) {
    if (sources[k] == MPI_PROC_NULL) continue;
    const int* b = &recv[3 * k];
    expect(b[0] == sources[k] && b[1] == rank, "rank " + std::to_string(rank) + " got block (" + std::to_string(b[0]) +
                                                   ", " + std::to_string(b[1]) + ") from neighbour " +
                                                   std::to_string(sources[k]));
    ++arrived[{b[0], b[1]}];
  }
  // The ledgers at rank 0: every (from, to, blocks) sent equals what arrived.
  auto flat = [](const std::map<std::pair<int, int>, int>& m) {
    std::vector<int> f;
    for (auto& [k, n] : m) f.insert(f.end(), {k.first, k.second, n});
    return f;
  };
  auto gather = [&](const std::vector<int>& mine) {
    int n = static_cast<int>(mine.size()), size = 0;
    MPI_Comm_size(comm, &size);
    std::vector<int> counts(static_cast<std::size_t>(size)), offsets(counts.size());
    MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    std::partial_sum(counts.begin(), counts.end() - 1, offsets.begin() + 1);
    std::vector<int> all(static_cast<std::size_t>(offsets.back() + counts.back()));
    MPI_Gatherv(mine.data(), n, MPI_INT, all.data(), counts.data(), offsets.data(), MPI_INT, 0, comm);
    std::map<std::pair<int, int>, int> total;
    for (std::size_t k = 0; k + 2 < all.size(); k += 3) total[{all[k], all[k + 1]}] += all[k + 2];
    return total;
  };
  const auto all_sent = gather(flat(sent)), all_arrived = gather(flat(arrived));
  if (rank == 0)
    expect(all_sent == all_arrived && !all_sent.empty(), "the ledger of blocks sent differs from what arrived");
}

// Rank 0 of `comm`: the realised placement and its cost; every failure gathered to world rank 0.
void report(const Case& c, MPI_Comm comm, int reorder) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const Place me = my_place();
  std::vector<Place> all(static_cast<std::size_t>(size));
  MPI_Gather(&me, sizeof me, MPI_BYTE, all.data(), sizeof me, MPI_BYTE, 0, comm);
  if (rank != 0) return;
  bool identity = true;
  for (int v = 0; v < size; ++v) identity = identity && all[static_cast<std::size_t>(v)].world == v;
  // The weight between places with vertex v on the process of new rank v, and had it stayed on
  // the process of world rank v (the order before the call).
  std::vector<Place> by_world(all.size());
  for (const auto& p : all) by_world[static_cast<std::size_t>(p.world)] = p;
  auto between_on = [&c](const std::vector<Place>& place_of) {
    long long w = 0;
    for (const auto& e : c.edges) {
      if (label(place_of[static_cast<std::size_t>(e.from)]) != label(place_of[static_cast<std::size_t>(e.to)]))
        w += e.weight;
    }
    return w;
  };
  const long long between = between_on(all), before = between_on(by_world);
  if (g_model == "core") {  // the model's distance (1 between cores) holds on one package only
    std::map<int, std::string> package;
    for (const auto& p : all) {
      std::ifstream in("/sys/devices/system/cpu/cpu" + std::to_string(p.cpu) + "/topology/physical_package_id");
      std::string id;
      in >> id;
      package[p.cpu] = id;
      expect(p.cpu >= 0, "--model core: world rank " + std::to_string(p.world) + " is not bound to one CPU");
    }
    for (auto& [cpu, id] : package) expect(id == package.begin()->second, "--model core: the CPUs span packages");
  }
  std::map<std::string, int> capacity;
  for (const auto& p : all) ++capacity[label(p)];
  std::vector<int> caps;
  for (auto& [l, n] : capacity) caps.push_back(n);
  const long long optimum = fewest_between(c.edges, caps, size);
  std::printf(
      "CASE %s call=%s reorder=%d identity=%d between=%lld cost=%.0f before=%lld cost_before=%.0f optimum=%lld\n",
      c.name.c_str(), c.call.c_str(), reorder, identity ? 1 : 0, between, static_cast<double>(between) * unit(), before,
      static_cast<double>(before) * unit(), optimum);
  std::fflush(stdout);
}

Case make_case(const std::string& name) {
  Case c;
  c.name = name;
  const int s = side();
  if (name == "cart_mesh" || name == "cart_torus") {
    c.call = "MPI_Cart_create";
    c.dims = {s, s};
    c.periods = name == "cart_torus" ? std::vector<int>{1, 1} : std::vector<int>{0, 0};
    for (int v = 0; v < g_size; ++v) {
      for (int w : cart_neighbours(v, c.dims, c.periods)) {
        if (w != MPI_PROC_NULL) c.edges.push_back({v, w, 1});
      }
    }
    c.ordered = true;
  } else {
    c.edges = scrambled_torus();
    c.call = name == "graph_torus"  ? "MPI_Graph_create"
             : name == "dist_torus" ? "MPI_Dist_graph_create"
                                    : "MPI_Dist_graph_create_adjacent";
    c.weighted = name != "graph_torus";
    if (!c.weighted) {
      for (auto& e : c.edges) e.weight = 1;
    }
    c.ordered = name == "adjacent_torus";
    // The adjacent lists in an order of their own (reversed), which must arrive as declared.
    if (c.ordered) std::reverse(c.edges.begin(), c.edges.end());
  }
  lists_from_edges(c);
  return c;
}

MPI_Comm create(const Case& c, int reorder) {
  MPI_Comm comm = MPI_COMM_NULL;
  const auto v = static_cast<std::size_t>(g_rank);
  if (c.call == "MPI_Cart_create") {
    MPI_Cart_create(MPI_COMM_WORLD, static_cast<int>(c.dims.size()), c.dims.data(), c.periods.data(), reorder, &comm);
  } else if (c.call == "MPI_Graph_create") {
    std::vector<int> index, edges;
    for (const auto& out : c.out) {
      edges.insert(edges.end(), out.begin(), out.end());
      index.push_back(static_cast<int>(edges.size()));
    }
    MPI_Graph_create(MPI_COMM_WORLD, g_size, index.data(), edges.data(), reorder, &comm);
  } else if (c.call == "MPI_Dist_graph_create") {
    // Each process declares the out-edges of the next vertex, not its own.
    const auto w = static_cast<std::size_t>((g_rank + 1) % g_size);
    int source = static_cast<int>(w), degree = static_cast<int>(c.out[w].size());
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &source, &degree, c.out[w].data(), c.out_w[w].data(), MPI_INFO_NULL,
                          reorder, &comm);
  } else {
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(c.in[v].size()), c.in[v].data(), c.in_w[v].data(),
                                   static_cast<int>(c.out[v].size()), c.out[v].data(), c.out_w[v].data(), MPI_INFO_NULL,
                                   reorder, &comm);
  }
  return comm;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  int reorder = 1;
  std::vector<std::string> cases;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--model" && i + 1 < argc) {
      g_model = argv[++i];
    } else if (a == "--reorder" && i + 1 < argc) {
      reorder = std::atoi(argv[++i]);
    } else {
      cases.push_back(a);
    }
  }
  if ((g_model != "node" && g_model != "core") || side() == 0 || cases.empty()) {
    if (g_rank == 0) {
      std::fprintf(
          stderr,
          "usage: mpimon-reorder-topology --model node|core --reorder 0|1 CASE... (a square number of processes)\n");
    }
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int failed = 0;
  for (const auto& name : cases) {
    const Case c = make_case(name);
    g_failure.clear();
    MPI_Comm comm = create(c, reorder);
    if (comm == MPI_COMM_NULL) {
      g_failure = "no communicator returned";
    } else {
      report(c, comm, reorder);
      check_semantics(c, comm);
    }
    int bad = g_failure.empty() ? 0 : 1, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (bad) std::printf("FAIL %s: rank %d: %s\n", name.c_str(), g_rank, g_failure.c_str());
    if (!any && g_rank == 0) std::printf("OK %s\n", name.c_str());
    std::fflush(stdout);
    failed |= any;
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  }
  MPI_Finalize();
  return failed;
}
