// The guard against applications that cannot take a renumbering (docs/reorder.md, "Codes that
// cannot take a renumbering"). Codes written against MPI libraries that never reorder may go on as
// if the ranks had not changed, in two ways:
//   1. they read their neighbours' ranks from the new communicator, free it without a message sent
//      on it, and use those ranks in the communicator it came from, where they name other processes
//      (LAMMPS's `processors ... map cart/reorder`): messages go astray and the run hangs;
//   2. they exchange on the new communicator without ever reading their rank or their neighbours
//      from it, with the buffers and peers they had before (PETSc's PetscSF of type neighbor on
//      MPI_Dist_graph_create_adjacent): they exchange with the wrong processes.
// Every renumbered communicator a constructor returns is watched on each of its processes until its
// first communication (a point-to-point or neighbourhood call stops the job when the process has
// read nothing of its new place while its rank or a neighbour's process changed: case 2), a
// collective, a communicator, window or file made from it, or its group taken (the application
// carries the new order on). The ranks read from it are noted (MPI_Comm_rank, MPI_Cart_rank,
// MPI_Cart_shift, the neighbour queries), and whether it read its own coordinates (then it can
// compute its neighbours' ranks). Freed while watched after such a read, the process keeps those
// ranks and which process each is in the parent communicator; from then on a point-to-point call
// on a communicator of the parent's group (the same processes in the same order) naming a rank it
// read, or a neighbour's rank it could compute that is not also one of its neighbours there (an
// application that gathers the coordinates over the parent finds those), where that rank is
// another process, stops the job (case 1). A job is stopped with MPI_Abort
// (MPIMON_REORDER_ABORT_RANKS_MISUSED) and a message that says what the application did and what
// to do.
//
// A point-to-point call whose peer names the same process in both communicators goes on as without
// the library; a strictly cheaper renumbering is not an automorphism of the declared graph, so in
// case 1 some process names a neighbour that moved before it can wait on it. The calls are seen
// under their MPI_ and PMPI_ names; the library's own calls (LibraryScope) are not counted.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "reorder_internal.hpp"

namespace mpimon::reorder {

namespace {

struct Watched {
  MPI_Comm comm;
  MPI_Group parent;
  const char* call;
  int moved, processes;
  int old_rank, new_rank;
  bool moved_here;        ///< this process's rank, or the process behind one of its neighbours' ranks, changed
  std::vector<int> read;  ///< rank values the application read from it
  bool position_read = false;
};

/// A renumbered communicator freed without a message on it, after ranks were read from it.
struct Freed {
  MPI_Group parent;
  const char* call;
  int moved, processes;
  std::vector<bool> read;             ///< by rank of the renumbered communicator: read from it
  std::vector<bool> derived;          ///< by rank: a neighbour's, derivable from the coordinates read
  std::vector<int> parent_rank;       ///< rank r of the renumbered communicator: that process's rank in the parent
  std::vector<bool> neighbour_there;  ///< by parent rank: one of this process's topology neighbours
};

std::mutex g_mutex;
std::atomic<bool> g_watching{false}, g_freed_any{false};
std::vector<Watched> g_watched;
std::vector<Freed> g_freed;
std::unordered_map<MPI_Comm, int> g_parent_like;  ///< communicator -> index in g_freed, or -1

Watched* find_watched(MPI_Comm comm) {
  for (auto& w : g_watched) {
    if (w.comm == comm) return &w;
  }
  return nullptr;
}

void stop_watching(MPI_Comm comm) {
  for (std::size_t i = 0; i < g_watched.size(); ++i) {
    if (g_watched[i].comm != comm) continue;
    if (g_watched[i].parent != MPI_GROUP_NULL) PMPI_Group_free(&g_watched[i].parent);
    g_watched.erase(g_watched.begin() + static_cast<std::ptrdiff_t>(i));
    break;
  }
  g_watching = !g_watched.empty();
}

// The ranks of this process's topology neighbours in `comm` (what it can compute from its coordinates).
std::vector<int> topology_neighbours(MPI_Comm comm) {
  int kind = MPI_UNDEFINED, me = 0;
  PMPI_Topo_test(comm, &kind);
  PMPI_Comm_rank(comm, &me);
  std::vector<int> out;
  if (kind == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    for (int d = 0; d < dims; ++d) {
      int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
      PMPI_Cart_shift(comm, d, 1, &below, &above);
      out.insert(out.end(), {below, above});
    }
  } else if (kind == MPI_GRAPH) {
    int count = 0;
    PMPI_Graph_neighbors_count(comm, me, &count);
    out.resize(static_cast<std::size_t>(count));
    PMPI_Graph_neighbors(comm, me, count, out.data());
  } else if (kind == MPI_DIST_GRAPH) {
    int in = 0, outdegree = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &outdegree, &weighted);
    std::vector<int> sources(static_cast<std::size_t>(in)), destinations(static_cast<std::size_t>(outdegree));
    std::vector<int> in_weights(sources.size()), out_weights(destinations.size());
    PMPI_Dist_graph_neighbors(comm, in, sources.data(), in_weights.data(), outdegree, destinations.data(),
                              out_weights.data());
    out = sources;
    out.insert(out.end(), destinations.begin(), destinations.end());
  }
  std::erase_if(out, [](int r) { return r < 0; });
  return out;
}

/// The parent rank of each rank in `ranks` of `comm`.
std::vector<int> parent_ranks(MPI_Comm comm, MPI_Group parent, const std::vector<int>& ranks) {
  std::vector<int> out(ranks.size(), MPI_UNDEFINED);
  if (ranks.empty()) return out;
  MPI_Group group;
  PMPI_Comm_group(comm, &group);
  PMPI_Group_translate_ranks(group, static_cast<int>(ranks.size()), ranks.data(), parent, out.data());
  PMPI_Group_free(&group);
  return out;
}

int world_rank() {
  int r = -1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

[[noreturn]] void stop_job(const std::string& what) {
  std::fprintf(stderr,
               "mpimon-reorder: process %d (rank in MPI_COMM_WORLD): %s. Stopped (exit code %d). To run it: "
               "without the reordering (MPIMON_REORDER=off, or without mpimon run --reorder), or with the placement "
               "of its declared graph applied at the next launch instead (mpimon run --reorder --plan FILE; "
               "docs/reorder.md)\n",
               world_rank(), what.c_str(), MPIMON_REORDER_ABORT_RANKS_MISUSED);
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, MPIMON_REORDER_ABORT_RANKS_MISUSED);
  std::_Exit(MPIMON_REORDER_ABORT_RANKS_MISUSED);
}

std::string renumbered_text(const char* call, int moved, int processes) {
  return std::string(call) + "(reorder=1), which libmpimon-reorder answered by renumbering " + std::to_string(moved) +
         " of " + std::to_string(processes) + " processes";
}

thread_local int t_library_depth = 0;

}  // namespace

LibraryScope::LibraryScope() { ++t_library_depth; }
LibraryScope::~LibraryScope() { --t_library_depth; }
bool in_library() { return t_library_depth > 0; }

void watch_renumbered(MPI_Comm renumbered, MPI_Comm parent, const char* call, int moved, int processes) {
  LibraryScope scope;  // its own MPI calls go straight through
  std::lock_guard lock(g_mutex);
  Watched w{renumbered, MPI_GROUP_NULL, call, moved, processes, 0, 0, false, {}, false};
  PMPI_Comm_group(parent, &w.parent);
  PMPI_Comm_rank(parent, &w.old_rank);
  PMPI_Comm_rank(renumbered, &w.new_rank);
  const std::vector<int> neighbours = topology_neighbours(renumbered);
  const std::vector<int> in_parent = parent_ranks(renumbered, w.parent, neighbours);
  w.moved_here = w.new_rank != w.old_rank;
  for (std::size_t i = 0; i < neighbours.size(); ++i) w.moved_here = w.moved_here || in_parent[i] != neighbours[i];
  g_watched.push_back(std::move(w));
  g_watching = true;
}

void note_use(MPI_Comm comm) {
  if (!g_watching) return;
  LibraryScope scope;  // its own MPI calls go straight through
  std::lock_guard lock(g_mutex);
  if (find_watched(comm)) stop_watching(comm);
}

namespace {

// A point-to-point or neighbourhood call on `comm`: case 2 when it is watched.
void note_exchange(MPI_Comm comm, const char* call) {
  if (!g_watching) return;
  LibraryScope scope;  // its own MPI calls go straight through
  std::unique_lock lock(g_mutex);
  Watched* w = find_watched(comm);
  if (w == nullptr) return;
  if (w->moved_here && w->read.empty() && !w->position_read) {
    const std::string what =
        std::string(call) + " on the communicator of " + renumbered_text(w->call, w->moved, w->processes) +
        ", before reading anything of its place in it (its rank, coordinates or neighbours): it had rank " +
        std::to_string(w->old_rank) + ", has rank " + std::to_string(w->new_rank) +
        " and the neighbours of that rank's vertex. The application goes on with the rank, the neighbours and the "
        "buffers it had (as PETSc's PetscSF of type neighbor does; PETSc's default, -sf_type basic, does not ask for "
        "a reordering), so it would exchange with the wrong processes";
    lock.unlock();
    stop_job(what);
  }
  stop_watching(comm);
}

void note_ranks_read(MPI_Comm comm, const int* ranks, int count) {
  if (!g_watching || ranks == nullptr) return;
  LibraryScope scope;  // its own MPI calls go straight through
  std::lock_guard lock(g_mutex);
  if (Watched* w = find_watched(comm)) {
    for (int i = 0; i < count; ++i) {
      if (ranks[i] >= 0) w->read.push_back(ranks[i]);
    }
  }
}

void note_position_read(MPI_Comm comm) {
  if (!g_watching) return;
  LibraryScope scope;  // its own MPI calls go straight through
  std::lock_guard lock(g_mutex);
  if (Watched* w = find_watched(comm)) w->position_read = true;
}

void note_free(MPI_Comm comm) {
  if (g_freed_any) {
    LibraryScope scope;  // its own MPI calls go straight through
    std::lock_guard lock(g_mutex);
    g_parent_like.erase(comm);  // the handle may come back as another communicator
  }
  if (!g_watching) return;
  LibraryScope scope;  // its own MPI calls go straight through
  std::lock_guard lock(g_mutex);
  Watched* w = find_watched(comm);
  if (w == nullptr) return;
  if (!w->read.empty() || w->position_read) {
    Freed f{w->parent, w->call, w->moved, w->processes, {}, {}, {}, {}};
    w->parent = MPI_GROUP_NULL;  // now f's
    int size = 0, parent_size = 0;
    PMPI_Comm_size(comm, &size);
    PMPI_Group_size(f.parent, &parent_size);
    f.read.assign(static_cast<std::size_t>(size), false);
    f.derived.assign(static_cast<std::size_t>(size), false);
    f.neighbour_there.assign(static_cast<std::size_t>(parent_size), false);
    for (const int r : w->read) {
      if (r < size) f.read[static_cast<std::size_t>(r)] = true;
    }
    std::vector<int> all(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) all[static_cast<std::size_t>(r)] = r;
    f.parent_rank = parent_ranks(comm, f.parent, all);
    for (const int r : topology_neighbours(comm)) {
      if (w->position_read) f.derived[static_cast<std::size_t>(r)] = true;
      const int there = f.parent_rank[static_cast<std::size_t>(r)];
      if (there >= 0) f.neighbour_there[static_cast<std::size_t>(there)] = true;
    }
    g_freed.push_back(std::move(f));
    g_freed_any = true;
  }
  stop_watching(comm);
}

// A point-to-point call naming `peer` in `comm`: case 1 when comm has the processes of a freed one.
void check_peer(MPI_Comm comm, int peer, const char* call) {
  if (!g_freed_any || peer < 0) return;  // MPI_ANY_SOURCE, MPI_PROC_NULL
  LibraryScope scope;                    // its own MPI calls go straight through
  std::unique_lock lock(g_mutex);
  auto [it, added] = g_parent_like.try_emplace(comm, -1);
  if (added) {
    MPI_Group group;
    PMPI_Comm_group(comm, &group);
    for (std::size_t i = 0; i < g_freed.size(); ++i) {
      int same = MPI_UNEQUAL;
      PMPI_Group_compare(group, g_freed[i].parent, &same);
      if (same == MPI_IDENT) it->second = static_cast<int>(i);
    }
    PMPI_Group_free(&group);
  }
  if (it->second < 0) return;
  const Freed& f = g_freed[static_cast<std::size_t>(it->second)];
  const auto p = static_cast<std::size_t>(peer);
  if (p >= f.read.size() || f.parent_rank[p] == peer) return;  // the same process in both
  // A rank read from the communicator is trusted to be meant there; a rank the application could
  // have computed from its coordinates only when it is not one of its neighbours here too (an
  // application that gathers the coordinates over the parent finds its neighbours' ranks there).
  if (f.read[p] || (f.derived[p] && !(p < f.neighbour_there.size() && f.neighbour_there[p]))) {
    const std::string what =
        std::string(call) + " names rank " + std::to_string(peer) + " of a communicator of the processes given to " +
        renumbered_text(f.call, f.moved, f.processes) + ". The application read rank " + std::to_string(peer) +
        (f.read[p] ? "" : " (a neighbour of the coordinates it read)") +
        " from the communicator that call returned and freed it without a message sent on it; there, rank " +
        std::to_string(peer) + " is the process of rank " + std::to_string(f.parent_rank[p]) +
        " here. The application uses the new ranks in the communicator it came from (as LAMMPS's 'processors ... "
        "map cart/reorder' does; LAMMPS's 'map cart' asks for no reordering), so its messages would go astray and "
        "the run hang";
    lock.unlock();
    stop_job(what);
  }
}

}  // namespace

}  // namespace mpimon::reorder

// ---- The application's calls the guard sees -----------------------------------------------------
// Each under its MPI_ and its PMPI_ name (Open MPI's Fortran bindings and an application's own PMPI
// tool call the PMPI_ one), passed to the MPI library's PMPI_ function (dlsym RTLD_NEXT); the
// library's own calls (LibraryScope) go straight through.

using mpimon::reorder::check_peer;
using mpimon::reorder::in_library;
using mpimon::reorder::note_exchange;
using mpimon::reorder::note_free;
using mpimon::reorder::note_position_read;
using mpimon::reorder::note_ranks_read;
using mpimon::reorder::note_use;

namespace {

template <typename F>
F mpi_function(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

}  // namespace

// `hook` (one expression, in parentheses when it holds commas) runs before the call.
#define MPIMON_WRAP(name, params, args, hook)                                     \
  namespace {                                                                     \
  int wrap_##name params {                                                        \
    static const auto real = mpi_function<decltype(&PMPI_##name)>("PMPI_" #name); \
    if (!in_library()) hook;                                                      \
    return real args;                                                             \
  }                                                                               \
  }                                                                               \
  extern "C" int MPI_##name params { return wrap_##name args; }                   \
  extern "C" int PMPI_##name params { return wrap_##name args; }
// A call on `comm` that uses it (a collective, what is made from it).
#define MPIMON_USES(name, params, args, comm) MPIMON_WRAP(name, params, args, note_use(comm))
// A call whose peers are ranks of `comm` (a neighbourhood collective).
#define MPIMON_EXCHANGE(name, params, args, comm) MPIMON_WRAP(name, params, args, note_exchange(comm, "MPI_" #name))
// A point-to-point call naming `peer` in `comm`.
#define MPIMON_PEER(name, params, args, comm, peer) \
  MPIMON_WRAP(name, params, args, (note_exchange(comm, "MPI_" #name), check_peer(comm, peer, "MPI_" #name)))
#define MPIMON_SEND(name)                                                                              \
  MPIMON_PEER(name, (const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm), \
              (buf, count, type, dest, tag, comm), comm, dest)
#define MPIMON_ISEND(name)                                                                                             \
  MPIMON_PEER(name, (const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* r), \
              (buf, count, type, dest, tag, comm, r), comm, dest)
#define MPIMON_RECV(name, Last)                                                                            \
  MPIMON_PEER(name, (void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, Last x), \
              (buf, count, type, source, tag, comm, x), comm, source)
// The blocking and the nonblocking form of a collective (`kind`: MPIMON_USES or MPIMON_EXCHANGE).
#define MPIMON_BOTH(kind, name, iname, params, args, c)         \
  kind(name, (MPIMON_UNPAREN params), (MPIMON_UNPAREN args), c) \
      kind(iname, (MPIMON_UNPAREN params, MPI_Request * r), (MPIMON_UNPAREN args, r), c)
#define MPIMON_UNPAREN(...) __VA_ARGS__

MPIMON_SEND(Send)
MPIMON_SEND(Bsend)
MPIMON_SEND(Ssend)
MPIMON_SEND(Rsend)
MPIMON_ISEND(Isend)
MPIMON_ISEND(Ibsend)
MPIMON_ISEND(Issend)
MPIMON_ISEND(Irsend)
MPIMON_ISEND(Send_init)
MPIMON_ISEND(Bsend_init)
MPIMON_ISEND(Ssend_init)
MPIMON_ISEND(Rsend_init)
MPIMON_RECV(Recv, MPI_Status*)
MPIMON_RECV(Irecv, MPI_Request*)
MPIMON_RECV(Recv_init, MPI_Request*)
MPIMON_PEER(Probe, (int source, int tag, MPI_Comm comm, MPI_Status* s), (source, tag, comm, s), comm, source)
MPIMON_PEER(Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* s), (source, tag, comm, flag, s), comm,
            source)
MPIMON_PEER(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* m, MPI_Status* s), (source, tag, comm, m, s),
            comm, source)
MPIMON_PEER(Improbe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* m, MPI_Status* s),
            (source, tag, comm, flag, m, s), comm, source)
MPIMON_WRAP(Sendrecv,
            (const void* sb, int sc, MPI_Datatype st, int dest, int stag, void* rb, int rc, MPI_Datatype rt, int source,
             int rtag, MPI_Comm comm, MPI_Status* s),
            (sb, sc, st, dest, stag, rb, rc, rt, source, rtag, comm, s),
            (note_exchange(comm, "MPI_Sendrecv"), check_peer(comm, dest, "MPI_Sendrecv"),
             check_peer(comm, source, "MPI_Sendrecv")))
MPIMON_WRAP(Sendrecv_replace,
            (void* b, int n, MPI_Datatype t, int dest, int stag, int source, int rtag, MPI_Comm comm, MPI_Status* s),
            (b, n, t, dest, stag, source, rtag, comm, s),
            (note_exchange(comm, "MPI_Sendrecv_replace"), check_peer(comm, dest, "MPI_Sendrecv_replace"),
             check_peer(comm, source, "MPI_Sendrecv_replace")))

MPIMON_USES(Barrier, (MPI_Comm c), (c), c)
MPIMON_USES(Ibarrier, (MPI_Comm c, MPI_Request* r), (c, r), c)
MPIMON_BOTH(MPIMON_USES, Bcast, Ibcast, (void* b, int n, MPI_Datatype t, int root, MPI_Comm c), (b, n, t, root, c), c)
MPIMON_BOTH(MPIMON_USES, Gather, Igather,
            (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root, MPI_Comm c),
            (sb, sc, st, rb, rc, rt, root, c), c)
MPIMON_BOTH(MPIMON_USES, Scatter, Iscatter,
            (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root, MPI_Comm c),
            (sb, sc, st, rb, rc, rt, root, c), c)
MPIMON_BOTH(MPIMON_USES, Gatherv, Igatherv,
            (const void* sb, int sc, MPI_Datatype st, void* rb, const int rcs[], const int d[], MPI_Datatype rt,
             int root, MPI_Comm c),
            (sb, sc, st, rb, rcs, d, rt, root, c), c)
MPIMON_BOTH(MPIMON_USES, Scatterv, Iscatterv,
            (const void* sb, const int scs[], const int d[], MPI_Datatype st, void* rb, int rc, MPI_Datatype rt,
             int root, MPI_Comm c),
            (sb, scs, d, st, rb, rc, rt, root, c), c)
#define MPIMON_ALL_PARAMS (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm c)
#define MPIMON_ALL_ARGS (sb, sc, st, rb, rc, rt, c)
MPIMON_BOTH(MPIMON_USES, Allgather, Iallgather, MPIMON_ALL_PARAMS, MPIMON_ALL_ARGS, c)
MPIMON_BOTH(MPIMON_USES, Alltoall, Ialltoall, MPIMON_ALL_PARAMS, MPIMON_ALL_ARGS, c)
MPIMON_BOTH(MPIMON_EXCHANGE, Neighbor_allgather, Ineighbor_allgather, MPIMON_ALL_PARAMS, MPIMON_ALL_ARGS, c)
MPIMON_BOTH(MPIMON_EXCHANGE, Neighbor_alltoall, Ineighbor_alltoall, MPIMON_ALL_PARAMS, MPIMON_ALL_ARGS, c)
#define MPIMON_ALLV_PARAMS \
  (const void* sb, int sc, MPI_Datatype st, void* rb, const int rcs[], const int d[], MPI_Datatype rt, MPI_Comm c)
#define MPIMON_ALLV_ARGS (sb, sc, st, rb, rcs, d, rt, c)
MPIMON_BOTH(MPIMON_USES, Allgatherv, Iallgatherv, MPIMON_ALLV_PARAMS, MPIMON_ALLV_ARGS, c)
MPIMON_BOTH(MPIMON_EXCHANGE, Neighbor_allgatherv, Ineighbor_allgatherv, MPIMON_ALLV_PARAMS, MPIMON_ALLV_ARGS, c)
#define MPIMON_ALLTOALLV_PARAMS                                                                                 \
  (const void* sb, const int scs[], const int sd[], MPI_Datatype st, void* rb, const int rcs[], const int rd[], \
   MPI_Datatype rt, MPI_Comm c)
#define MPIMON_ALLTOALLV_ARGS (sb, scs, sd, st, rb, rcs, rd, rt, c)
MPIMON_BOTH(MPIMON_USES, Alltoallv, Ialltoallv, MPIMON_ALLTOALLV_PARAMS, MPIMON_ALLTOALLV_ARGS, c)
MPIMON_BOTH(MPIMON_EXCHANGE, Neighbor_alltoallv, Ineighbor_alltoallv, MPIMON_ALLTOALLV_PARAMS, MPIMON_ALLTOALLV_ARGS, c)
MPIMON_BOTH(MPIMON_USES, Alltoallw, Ialltoallw,
            (const void* sb, const int scs[], const int sd[], const MPI_Datatype sts[], void* rb, const int rcs[],
             const int rd[], const MPI_Datatype rts[], MPI_Comm c),
            (sb, scs, sd, sts, rb, rcs, rd, rts, c), c)
MPIMON_BOTH(MPIMON_EXCHANGE, Neighbor_alltoallw, Ineighbor_alltoallw,
            (const void* sb, const int scs[], const MPI_Aint sd[], const MPI_Datatype sts[], void* rb, const int rcs[],
             const MPI_Aint rd[], const MPI_Datatype rts[], MPI_Comm c),
            (sb, scs, sd, sts, rb, rcs, rd, rts, c), c)
MPIMON_BOTH(MPIMON_USES, Reduce, Ireduce,
            (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),
            (sb, rb, n, t, op, root, c), c)
#define MPIMON_REDUCING_PARAMS (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
#define MPIMON_REDUCING_ARGS (sb, rb, n, t, op, c)
MPIMON_BOTH(MPIMON_USES, Allreduce, Iallreduce, MPIMON_REDUCING_PARAMS, MPIMON_REDUCING_ARGS, c)
MPIMON_BOTH(MPIMON_USES, Scan, Iscan, MPIMON_REDUCING_PARAMS, MPIMON_REDUCING_ARGS, c)
MPIMON_BOTH(MPIMON_USES, Exscan, Iexscan, MPIMON_REDUCING_PARAMS, MPIMON_REDUCING_ARGS, c)
MPIMON_BOTH(MPIMON_USES, Reduce_scatter_block, Ireduce_scatter_block, MPIMON_REDUCING_PARAMS, MPIMON_REDUCING_ARGS, c)
MPIMON_BOTH(MPIMON_USES, Reduce_scatter, Ireduce_scatter,
            (const void* sb, void* rb, const int n[], MPI_Datatype t, MPI_Op op, MPI_Comm c), (sb, rb, n, t, op, c), c)

// Communicators, windows and files made from it, and its group: the application carries the new
// order on (or translates ranks itself, correctly).
MPIMON_USES(Comm_dup, (MPI_Comm c, MPI_Comm* n), (c, n), c)
MPIMON_USES(Comm_dup_with_info, (MPI_Comm c, MPI_Info i, MPI_Comm* n), (c, i, n), c)
MPIMON_USES(Comm_idup, (MPI_Comm c, MPI_Comm* n, MPI_Request* r), (c, n, r), c)
MPIMON_USES(Comm_split, (MPI_Comm c, int color, int key, MPI_Comm* n), (c, color, key, n), c)
MPIMON_USES(Comm_split_type, (MPI_Comm c, int type, int key, MPI_Info i, MPI_Comm* n), (c, type, key, i, n), c)
MPIMON_USES(Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm* n), (c, g, n), c)
MPIMON_USES(Comm_create_group, (MPI_Comm c, MPI_Group g, int tag, MPI_Comm* n), (c, g, tag, n), c)
MPIMON_USES(Comm_group, (MPI_Comm c, MPI_Group* g), (c, g), c)
MPIMON_USES(Cart_sub, (MPI_Comm c, const int remain[], MPI_Comm* n), (c, remain, n), c)
MPIMON_USES(Win_create, (void* b, MPI_Aint s, int u, MPI_Info i, MPI_Comm c, MPI_Win* w), (b, s, u, i, c, w), c)
MPIMON_USES(Win_allocate, (MPI_Aint s, int u, MPI_Info i, MPI_Comm c, void* b, MPI_Win* w), (s, u, i, c, b, w), c)
MPIMON_USES(Win_allocate_shared, (MPI_Aint s, int u, MPI_Info i, MPI_Comm c, void* b, MPI_Win* w), (s, u, i, c, b, w),
            c)
MPIMON_USES(Win_create_dynamic, (MPI_Info i, MPI_Comm c, MPI_Win* w), (i, c, w), c)
MPIMON_USES(File_open, (MPI_Comm c, const char* name, int mode, MPI_Info i, MPI_File* f), (c, name, mode, i, f), c)
MPIMON_WRAP(Intercomm_create,
            (MPI_Comm local, int local_leader, MPI_Comm bridge, int remote_leader, int tag, MPI_Comm* n),
            (local, local_leader, bridge, remote_leader, tag, n), (note_use(local), note_use(bridge)))
MPIMON_WRAP(Comm_free, (MPI_Comm * c), (c), (c != nullptr ? note_free(*c) : void()))

// What the application reads of the new order: noted after the call returns it.
#define MPIMON_READS(name, params, args, after)                                   \
  namespace {                                                                     \
  int wrap_##name params {                                                        \
    static const auto real = mpi_function<decltype(&PMPI_##name)>("PMPI_" #name); \
    const int rc = real args;                                                     \
    if (rc == MPI_SUCCESS && !in_library()) after;                                \
    return rc;                                                                    \
  }                                                                               \
  }                                                                               \
  extern "C" int MPI_##name params { return wrap_##name args; }                   \
  extern "C" int PMPI_##name params { return wrap_##name args; }

namespace {

// The neighbours the calls below wrote, as many as there are (count <= max).
int graph_neighbours(MPI_Comm c, int rank) {
  mpimon::reorder::LibraryScope scope;
  int count = 0;
  PMPI_Graph_neighbors_count(c, rank, &count);
  return count;
}
std::pair<int, int> dist_graph_degrees(MPI_Comm c) {
  mpimon::reorder::LibraryScope scope;
  int in = 0, out = 0, weighted = 0;
  PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted);
  return {in, out};
}
bool my_rank(MPI_Comm c, int rank) {
  mpimon::reorder::LibraryScope scope;
  int me = -1;
  return PMPI_Comm_rank(c, &me) == MPI_SUCCESS && me == rank;
}

}  // namespace

MPIMON_READS(Comm_rank, (MPI_Comm c, int* rank), (c, rank), note_ranks_read(c, rank, 1))
MPIMON_READS(Cart_rank, (MPI_Comm c, const int coords[], int* rank), (c, coords, rank), note_ranks_read(c, rank, 1))
MPIMON_READS(Cart_shift, (MPI_Comm c, int direction, int disp, int* source, int* dest),
             (c, direction, disp, source, dest), (note_ranks_read(c, source, 1), note_ranks_read(c, dest, 1)))
MPIMON_READS(Graph_neighbors, (MPI_Comm c, int rank, int max, int neighbors[]), (c, rank, max, neighbors),
             note_ranks_read(c, neighbors, std::min(max, graph_neighbours(c, rank))))
MPIMON_READS(Dist_graph_neighbors,
             (MPI_Comm c, int max_in, int sources[], int source_weights[], int max_out, int destinations[],
              int destination_weights[]),
             (c, max_in, sources, source_weights, max_out, destinations, destination_weights),
             (note_ranks_read(c, sources, std::min(max_in, dist_graph_degrees(c).first)),
              note_ranks_read(c, destinations, std::min(max_out, dist_graph_degrees(c).second))))
MPIMON_READS(Cart_get, (MPI_Comm c, int max, int dims[], int periods[], int coords[]), (c, max, dims, periods, coords),
             note_position_read(c))
MPIMON_READS(Cart_coords, (MPI_Comm c, int rank, int max, int coords[]), (c, rank, max, coords),
             (my_rank(c, rank) ? note_position_read(c) : void()))
