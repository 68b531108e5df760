// The four MPI topology constructors, honouring reorder=1 (docs/reorder.md). Each is defined under
// its MPI_ and its PMPI_ name, as libmpimon-collect.so does: an application calls our MPI_ one, a
// PMPI tool inside the application calls our PMPI_ one, and either way the MPI library's PMPI_
// function (dlsym RTLD_NEXT) does the work. reorder=0, MPIMON_REORDER=off, an inter-communicator
// and arguments MPI itself must reject are passed on untouched.
//
// With reorder=1 the graph the call declares is mapped onto the processes' places; process p gets
// the rank of the vertex placed on it (MPI_Comm_split with that key), and the same constructor is
// then called with reorder=0 on that order: the topology is the declared one, on the new ranks.
#include <dlfcn.h>

#include <cstring>
#include <exception>
#include <numeric>

#include "reorder_internal.hpp"

using namespace mpimon::reorder;

namespace {

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

bool g_inside = false;  // our own calls (and a tool's MPI_ wrapper calling our PMPI_) never reorder twice

struct Inside {
  Inside() { g_inside = true; }
  ~Inside() { g_inside = false; }
};

bool intra(MPI_Comm comm, int& size) {
  if (comm == MPI_COMM_NULL) return false;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  PMPI_Comm_size(comm, &size);
  return inter == 0;
}

/// Runs the flow and calls the constructor once: `construct(c, reorder)` on comm with the
/// arguments as given when the flow failed (the MPI library judges them), with reorder=0 on comm when
/// the order is kept, and with reorder=0 on the new order otherwise (MPI_Comm_split keyed by each
/// process's new rank; a process without a vertex gets MPI_COMM_NULL).
template <typename Construct>
int reorder_and_construct(MPI_Comm comm, Request& request, int reorder, MPI_Comm* result, Construct construct) {
  Outcome o;
  try {
    o = run_reorder(comm, request);
  } catch (const std::exception& e) {
    o.status = MPIMON_REORDER_ERR_INTERNAL;
    o.message = e.what();
  }
  int rc = MPI_SUCCESS;
  MPI_Comm reordered = MPI_COMM_NULL;
  if (o.status != MPIMON_REORDER_SUCCESS || o.pass_through) {
    rc = construct(comm, reorder);
  } else if (!o.stats.reordered) {
    rc = construct(comm, 0);
  } else {
    PMPI_Comm_split(comm, o.new_rank >= 0 ? 0 : MPI_UNDEFINED, o.new_rank, &reordered);
    if (reordered == MPI_COMM_NULL) {
      *result = MPI_COMM_NULL;
    } else {
      rc = construct(reordered, 0);
      if (rc == MPI_SUCCESS && o.stats.kept_ranks < o.stats.vertices) {
        watch_renumbered(*result, comm, request.call, static_cast<int>(o.stats.vertices) - o.stats.kept_ranks,
                         o.stats.processes);
      }
    }
  }
  if (reordered != MPI_COMM_NULL) PMPI_Comm_free(&reordered);
  finish_reorder(comm, request, o);
  return rc;
}

bool positive(const int* values, int n) {
  for (int i = 0; i < n; ++i) {
    if (values[i] <= 0) return false;
  }
  return true;
}

int cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* cart) {
  static auto real = next<int (*)(MPI_Comm, int, const int*, const int*, int, MPI_Comm*)>("PMPI_Cart_create");
  note_use(comm);  // a topology made from a watched communicator carries its order on
  int size = 0;
  if (!reorder || g_inside || reorder_disabled() || !intra(comm, size)) {
    return real(comm, ndims, dims, periods, reorder, cart);
  }
  Inside inside;
  LibraryScope scope;
  Request request;
  request.call = "MPI_Cart_create";
  request.source = "declared graph";
  request.may_plan = true;
  long long vertices = 1;
  const bool valid = ndims > 0 && dims != nullptr && periods != nullptr && cart != nullptr && positive(dims, ndims);
  for (int d = 0; valid && d < ndims && vertices <= size; ++d) vertices *= dims[d];
  if (!valid || vertices > size) {
    request.mine.problem = Problem::pass_through;
  } else {
    request.vertices = static_cast<std::uint32_t>(vertices);
    const std::vector<int> d(dims, dims + ndims), p(periods, periods + ndims);
    request.root_part = [d, p] {
      Contribution c;
      c.edges = cart_edges(d, p);
      return c;
    };
  }
  return reorder_and_construct(comm, request, reorder, cart,
                               [&](MPI_Comm on, int r) { return real(on, ndims, dims, periods, r, cart); });
}

int graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm* graph) {
  static auto real = next<int (*)(MPI_Comm, int, const int*, const int*, int, MPI_Comm*)>("PMPI_Graph_create");
  note_use(comm);  // a topology made from a watched communicator carries its order on
  int size = 0;
  if (!reorder || g_inside || reorder_disabled() || !intra(comm, size)) {
    return real(comm, nnodes, index, edges, reorder, graph);
  }
  Inside inside;
  LibraryScope scope;
  Request request;
  request.call = "MPI_Graph_create";
  request.source = "declared graph";
  request.may_plan = true;
  bool valid = nnodes > 0 && nnodes <= size && index != nullptr && graph != nullptr;
  for (int i = 0; valid && i < nnodes; ++i) valid = index[i] >= (i ? index[i - 1] : 0);
  valid = valid && (index[nnodes - 1] == 0 || edges != nullptr);
  for (int k = 0; valid && k < index[nnodes - 1]; ++k) valid = edges[k] >= 0 && edges[k] < nnodes;
  if (!valid) {
    request.mine.problem = Problem::pass_through;
  } else {
    request.vertices = static_cast<std::uint32_t>(nnodes);
    const std::vector<int> idx(index, index + nnodes), e(edges, edges + index[nnodes - 1]);
    request.root_part = [idx, e] {
      Contribution c;
      c.edges = graph_edges(idx, e);
      return c;
    };
  }
  return reorder_and_construct(comm, request, reorder, graph,
                               [&](MPI_Comm on, int r) { return real(on, nnodes, index, edges, r, graph); });
}

bool weighted(const int* weights) { return weights != MPI_UNWEIGHTED && weights != MPI_WEIGHTS_EMPTY; }

/// This process's declared edges (sources -> destinations), checked: out of range or negative
/// weights are MPI's to reject (pass through).
void add_edges(Contribution& c, int size, int from, int count, const int* to, const int* weights) {
  for (int k = 0; k < count && c.problem == Problem::none; ++k) {
    const int w = weighted(weights) ? weights[k] : 1;
    if (from < 0 || from >= size || to[k] < 0 || to[k] >= size || w < 0) {
      c.problem = Problem::pass_through;
    } else {
      c.edges.push_back(
          {static_cast<std::uint32_t>(from), static_cast<std::uint32_t>(to[k]), static_cast<std::uint64_t>(w)});
    }
  }
}

int dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[],
                      const int weights[], MPI_Info info, int reorder, MPI_Comm* out) {
  static auto real =
      next<int (*)(MPI_Comm, int, const int*, const int*, const int*, const int*, MPI_Info, int, MPI_Comm*)>(
          "PMPI_Dist_graph_create");
  note_use(comm);  // a topology made from a watched communicator carries its order on
  int size = 0;
  if (!reorder || g_inside || reorder_disabled() || !intra(comm, size)) {
    return real(comm, n, sources, degrees, destinations, weights, info, reorder, out);
  }
  Inside inside;
  LibraryScope scope;
  Request request;
  request.call = "MPI_Dist_graph_create";
  request.source = "declared graph";
  request.may_plan = true;
  request.vertices = static_cast<std::uint32_t>(size);
  Contribution& c = request.mine;
  if (n < 0 || out == nullptr || (n > 0 && (sources == nullptr || degrees == nullptr))) {
    c.problem = Problem::pass_through;
  }
  for (int i = 0, at = 0; i < n && c.problem == Problem::none; at += degrees[i], ++i) {
    if (degrees[i] < 0 || (degrees[i] > 0 && destinations == nullptr)) {
      c.problem = Problem::pass_through;
    } else {
      add_edges(c, size, sources[i], degrees[i], destinations + at, weighted(weights) ? weights + at : weights);
    }
  }
  if (c.problem != Problem::none) c.edges.clear();
  // Vertex numbers are the new ranks: the same edges, given on the new order.
  return reorder_and_construct(comm, request, reorder, out, [&](MPI_Comm on, int r) {
    return real(on, n, sources, degrees, destinations, weights, info, r, out);
  });
}

// Vertex v's adjacency, as the process of old rank v declared it, goes to the process with new rank
// v: [indegree, outdegree, source weights kind, destination weights kind, sources, their weights,
// destinations, their weights]; kind 0: an array, 1: MPI_UNWEIGHTED, 2: MPI_WEIGHTS_EMPTY.
int weights_kind(const int* w) { return w == MPI_UNWEIGHTED ? 1 : (w == MPI_WEIGHTS_EMPTY ? 2 : 0); }

std::vector<int> pack_adjacency(int indegree, const int* sources, const int* sourceweights, int outdegree,
                                const int* destinations, const int* destweights) {
  std::vector<int> b{indegree, outdegree, weights_kind(sourceweights), weights_kind(destweights)};
  b.insert(b.end(), sources, sources + indegree);
  if (b[2] == 0) b.insert(b.end(), sourceweights, sourceweights + indegree);
  b.insert(b.end(), destinations, destinations + outdegree);
  if (b[3] == 0) b.insert(b.end(), destweights, destweights + outdegree);
  return b;
}

struct Adjacency {
  std::vector<int> buffer;
  int indegree = 0, outdegree = 0;
  const int *sources = nullptr, *sourceweights = nullptr, *destinations = nullptr, *destweights = nullptr;
};

const int* weights_at(int kind, int degree, const int* at) {
  if (kind == 1) return MPI_UNWEIGHTED;
  if (kind == 2 || degree == 0) return MPI_WEIGHTS_EMPTY;
  return at;
}

Adjacency unpack_adjacency(std::vector<int> b) {
  Adjacency a;
  a.buffer = std::move(b);
  const int* at = a.buffer.data();
  a.indegree = at[0], a.outdegree = at[1];
  const int in_kind = at[2], out_kind = at[3];
  at += 4;
  a.sources = at;
  at += a.indegree;
  a.sourceweights = weights_at(in_kind, a.indegree, at);
  if (in_kind == 0) at += a.indegree;
  a.destinations = at;
  at += a.outdegree;
  a.destweights = weights_at(out_kind, a.outdegree, at);
  return a;
}

/// On the new order: sends this process's adjacency to the process with new rank = its old rank,
/// receives the one of its own vertex.
Adjacency exchange_adjacency(MPI_Comm reordered, int old_rank, const std::vector<int>& mine) {
  constexpr int kTag = 7;
  MPI_Request sent;
  PMPI_Isend(mine.data(), static_cast<int>(mine.size()), MPI_INT, old_rank, kTag, reordered, &sent);
  MPI_Status status;
  PMPI_Probe(MPI_ANY_SOURCE, kTag, reordered, &status);
  int count = 0;
  PMPI_Get_count(&status, MPI_INT, &count);
  std::vector<int> b(static_cast<std::size_t>(count));
  PMPI_Recv(b.data(), count, MPI_INT, status.MPI_SOURCE, kTag, reordered, MPI_STATUS_IGNORE);
  PMPI_Wait(&sent, MPI_STATUS_IGNORE);
  return unpack_adjacency(std::move(b));
}

int dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                               int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                               int reorder, MPI_Comm* out) {
  static auto real =
      next<int (*)(MPI_Comm, int, const int*, const int*, int, const int*, const int*, MPI_Info, int, MPI_Comm*)>(
          "PMPI_Dist_graph_create_adjacent");
  note_use(comm);  // a topology made from a watched communicator carries its order on
  int size = 0;
  if (!reorder || g_inside || reorder_disabled() || !intra(comm, size)) {
    return real(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder, out);
  }
  Inside inside;
  LibraryScope scope;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  Request request;
  request.call = "MPI_Dist_graph_create_adjacent";
  request.source = "declared graph";
  request.may_plan = true;
  request.vertices = static_cast<std::uint32_t>(size);
  Contribution& c = request.mine;
  const bool valid = indegree >= 0 && outdegree >= 0 && out != nullptr && (indegree == 0 || sources != nullptr) &&
                     (outdegree == 0 || destinations != nullptr) && (indegree == 0 || sourceweights != nullptr) &&
                     (outdegree == 0 || destweights != nullptr);
  if (!valid) {
    c.problem = Problem::pass_through;
  } else {
    for (int k = 0; k < indegree && c.problem == Problem::none; ++k) {
      if (sources[k] < 0 || sources[k] >= size || (weighted(sourceweights) && sourceweights[k] < 0))
        c.problem = Problem::pass_through;
    }
    add_edges(c, size, rank, outdegree, destinations, destweights);
  }
  if (c.problem != Problem::none) c.edges.clear();
  return reorder_and_construct(comm, request, reorder, out, [&](MPI_Comm on, int r) {
    if (on == comm)
      return real(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info, r, out);
    const Adjacency a = exchange_adjacency(
        on, rank, pack_adjacency(indegree, sources, sourceweights, outdegree, destinations, destweights));
    return real(on, a.indegree, a.sources, a.sourceweights, a.outdegree, a.destinations, a.destweights, info, 0, out);
  });
}

}  // namespace

extern "C" {
int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* cart) {
  return cart_create(comm, ndims, dims, periods, reorder, cart);
}
int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* cart) {
  return cart_create(comm, ndims, dims, periods, reorder, cart);
}
int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm* graph) {
  return graph_create(comm, nnodes, index, edges, reorder, graph);
}
int PMPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm* graph) {
  return graph_create(comm, nnodes, index, edges, reorder, graph);
}
int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* out) {
  return dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, out);
}
int PMPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[],
                           const int weights[], MPI_Info info, int reorder, MPI_Comm* out) {
  return dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, out);
}
int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* out) {
  return dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
                                    reorder, out);
}
int PMPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                    int reorder, MPI_Comm* out) {
  return dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
                                    reorder, out);
}
}
