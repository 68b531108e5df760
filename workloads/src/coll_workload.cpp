#include <functional>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/workloads/workloads.hpp"

namespace mpimon::workloads {

using mpi::check;
using mpi::world_ranks;

namespace {

constexpr int kBlock = 5;  // elements per block
constexpr std::uint64_t kIntBytes = sizeof(int);

/// One collective call's context: the communicator, the ledger, and helpers that record the
/// documented API-level traffic.
struct Call {
  MPI_Comm comm;
  std::string comm_name;
  int rank, size;
  std::vector<std::uint32_t> world;
  Ledger& ledger;
  bool control = false;  ///< the control run: create what the call creates, call nothing measured
  std::vector<int> send = std::vector<int>(4096, 1), recv = std::vector<int>(4096, 0);

  int root() const { return size > 1 ? 1 : 0; }  // not 0, to catch root/rank confusions
  std::uint32_t w(int r) const { return world[static_cast<std::size_t>(r)]; }

  // Records `elements(p)` ints sent to every other process p, and the call's total.
  void to_others(CollectiveKind kind, const std::function<int(int)>& elements) {
    std::uint64_t total = 0;
    for (int p = 0; p < size; ++p) {
      if (p == rank) continue;
      std::uint64_t bytes = static_cast<std::uint64_t>(elements(p)) * kIntBytes;
      ledger.record(TrafficClass::coll, w(p), bytes);
      total += bytes;
    }
    ledger.record_call(kind, comm_name, total);
  }
  // One-to-all: the root sends elements(p) to each other process.
  void one_to_all(const std::function<int(int)>& elements) {
    if (rank == root()) to_others(CollectiveKind::one_to_all, elements);
  }
  // The block a scatter's root keeps for itself: not sent, so not to be recorded.
  void root_keeps(int elements) {
    if (rank == root()) ledger.record_local(comm_name, static_cast<std::uint64_t>(elements) * kIntBytes);
  }
  // All-to-one: each other process sends elements(rank) to the root; the root records the total.
  void all_to_one(const std::function<int(int)>& elements) {
    if (rank != root()) {
      ledger.record(TrafficClass::coll, w(root()), static_cast<std::uint64_t>(elements(rank)) * kIntBytes);
      return;
    }
    std::uint64_t total = 0;
    for (int p = 0; p < size; ++p) {
      if (p != rank) total += static_cast<std::uint64_t>(elements(p)) * kIntBytes;
    }
    ledger.record_call(CollectiveKind::all_to_one, comm_name, total);
  }
  void all_to_all(const std::function<int(int)>& elements) { to_others(CollectiveKind::all_to_all, elements); }
  // A prefix reduction: this process's data goes to every higher rank, and nowhere else.
  void to_higher_ranks(int elements) {
    std::uint64_t total = 0;
    for (int p = rank + 1; p < size; ++p) {
      std::uint64_t bytes = static_cast<std::uint64_t>(elements) * kIntBytes;
      ledger.record(TrafficClass::coll, w(p), bytes);
      total += bytes;
    }
    ledger.record_call(CollectiveKind::all_to_all, comm_name, total);
  }

  std::vector<int> counts_by_rank() const {  // v-variants: rank i's block has kBlock + i elements
    std::vector<int> c(static_cast<std::size_t>(size));
    std::iota(c.begin(), c.end(), kBlock);
    return c;
  }
  std::vector<int> displacements(const std::vector<int>& counts) const {
    std::vector<int> d(counts.size(), 0);
    std::partial_sum(counts.begin(), counts.end() - 1, d.begin() + 1);
    return d;
  }
  int pair_count(int a, int b) const { return kBlock + (a + b) % 3; }  // alltoallv: symmetric in (a, b)

  void wait(MPI_Request& r) const { check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait"); }
};

// Neighbours of a periodic 1-D Cartesian communicator, in MPI's order: the -1 then the +1 side.
std::vector<int> neighbours(const Call& c) { return {(c.rank + c.size - 1) % c.size, (c.rank + 1) % c.size}; }

void record_neighbours(Call& c, const std::vector<int>& elements_per_neighbour) {
  std::uint64_t total = 0;
  auto nb = neighbours(c);
  for (std::size_t k = 0; k < nb.size(); ++k) {
    if (nb[k] == c.rank) continue;  // nothing to itself
    std::uint64_t bytes = static_cast<std::uint64_t>(elements_per_neighbour[k]) * kIntBytes;
    c.ledger.record(TrafficClass::coll, c.w(nb[k]), bytes);
    total += bytes;
  }
  c.ledger.record_call(CollectiveKind::all_to_all, c.comm_name, total);
}

using Operation = std::function<void(Call&)>;

using Operations = std::map<std::string, Operation>;

int block(int) { return kBlock; }

/// Runs the blocking form (start(nullptr)) or the non-blocking one (start(&request)) and waits.
void nb_or_b(Call& c, bool nonblocking, const std::function<int(MPI_Request*)>& start, const char* what) {
  if (nonblocking) {
    MPI_Request r;
    check(start(&r), what);
    c.wait(r);
  } else {
    check(start(nullptr), what);
  }
}

/// One-to-all: bcast, scatter, scatterv, blocking and not.
void add_one_to_all(Operations& m) {
  m["bcast"] = [=](Call& c) {
    check(MPI_Bcast(c.send.data(), kBlock, MPI_INT, c.root(), c.comm), "MPI_Bcast");
    c.one_to_all(block);
  };
  m["ibcast"] = [=](Call& c) {
    MPI_Request r;
    check(MPI_Ibcast(c.send.data(), kBlock, MPI_INT, c.root(), c.comm, &r), "MPI_Ibcast");
    c.wait(r);
    c.one_to_all(block);
  };
  m["scatter"] = [=](Call& c) {
    check(MPI_Scatter(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.root(), c.comm), "MPI_Scatter");
    c.one_to_all(block);
    c.root_keeps(kBlock);
  };
  m["iscatter"] = [=](Call& c) {
    MPI_Request r;
    check(MPI_Iscatter(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.root(), c.comm, &r),
          "MPI_Iscatter");
    c.wait(r);
    c.one_to_all(block);
    c.root_keeps(kBlock);
  };
  auto scatterv = [](Call& c, bool nonblocking) {
    auto counts = c.counts_by_rank();
    auto displs = c.displacements(counts);
    const int mine = counts[static_cast<std::size_t>(c.rank)];
    if (nonblocking) {
      MPI_Request r;
      check(MPI_Iscatterv(c.send.data(), counts.data(), displs.data(), MPI_INT, c.recv.data(), mine, MPI_INT, c.root(),
                          c.comm, &r),
            "MPI_Iscatterv");
      c.wait(r);
    } else {
      check(MPI_Scatterv(c.send.data(), counts.data(), displs.data(), MPI_INT, c.recv.data(), mine, MPI_INT, c.root(),
                         c.comm),
            "MPI_Scatterv");
    }
    c.one_to_all([&](int p) { return counts[static_cast<std::size_t>(p)]; });
    c.root_keeps(counts[static_cast<std::size_t>(c.root())]);
  };
  m["scatterv"] = [=](Call& c) { scatterv(c, false); };
  m["iscatterv"] = [=](Call& c) { scatterv(c, true); };
}

/// All-to-one: gather, gatherv, reduce, blocking and not.
void add_all_to_one(Operations& m) {
  m["gather"] = [=](Call& c) {
    check(MPI_Gather(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.root(), c.comm), "MPI_Gather");
    c.all_to_one(block);
  };
  m["igather"] = [=](Call& c) {
    MPI_Request r;
    check(MPI_Igather(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.root(), c.comm, &r),
          "MPI_Igather");
    c.wait(r);
    c.all_to_one(block);
  };
  auto gatherv = [](Call& c, bool nonblocking) {
    auto counts = c.counts_by_rank();
    auto displs = c.displacements(counts);
    const int mine = counts[static_cast<std::size_t>(c.rank)];
    if (nonblocking) {
      MPI_Request r;
      check(MPI_Igatherv(c.send.data(), mine, MPI_INT, c.recv.data(), counts.data(), displs.data(), MPI_INT, c.root(),
                         c.comm, &r),
            "MPI_Igatherv");
      c.wait(r);
    } else {
      check(MPI_Gatherv(c.send.data(), mine, MPI_INT, c.recv.data(), counts.data(), displs.data(), MPI_INT, c.root(),
                        c.comm),
            "MPI_Gatherv");
    }
    c.all_to_one([&](int p) { return counts[static_cast<std::size_t>(p)]; });
  };
  m["gatherv"] = [=](Call& c) { gatherv(c, false); };
  m["igatherv"] = [=](Call& c) { gatherv(c, true); };
  m["reduce"] = [=](Call& c) {
    check(MPI_Reduce(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.root(), c.comm), "MPI_Reduce");
    c.all_to_one(block);
  };
  m["ireduce"] = [=](Call& c) {
    MPI_Request r;
    check(MPI_Ireduce(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.root(), c.comm, &r), "MPI_Ireduce");
    c.wait(r);
    c.all_to_one(block);
  };
}

/// All-to-all: allgather(v), allreduce, alltoall(v, w), barrier; the non-blocking forms when nb.
void add_all_to_all(Operations& m, bool nb) {
  const std::string i = nb ? "i" : "";
  m[i + "allgather"] = [=](Call& c) {
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Iallgather(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.comm, r)
                   : MPI_Allgather(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.comm);
        },
        "allgather");
    c.all_to_all(block);
  };
  m[i + "allgatherv"] = [=](Call& c) {
    auto counts = c.counts_by_rank();
    auto displs = c.displacements(counts);
    const int mine = counts[static_cast<std::size_t>(c.rank)];
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Iallgatherv(c.send.data(), mine, MPI_INT, c.recv.data(), counts.data(), displs.data(), MPI_INT,
                                     c.comm, r)
                   : MPI_Allgatherv(c.send.data(), mine, MPI_INT, c.recv.data(), counts.data(), displs.data(), MPI_INT,
                                    c.comm);
        },
        "allgatherv");
    c.all_to_all([&](int) { return mine; });
  };
  m[i + "allreduce"] = [=](Call& c) {
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Iallreduce(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.comm, r)
                   : MPI_Allreduce(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.comm);
        },
        "allreduce");
    c.all_to_all(block);
  };
  m[i + "alltoall"] = [=](Call& c) {
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ialltoall(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.comm, r)
                   : MPI_Alltoall(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.comm);
        },
        "alltoall");
    c.all_to_all(block);
  };
  auto alltoallv_counts = [](Call& c) {
    std::vector<int> send(static_cast<std::size_t>(c.size)), recv(send.size());
    for (int p = 0; p < c.size; ++p)
      send[static_cast<std::size_t>(p)] = recv[static_cast<std::size_t>(p)] = c.pair_count(c.rank, p);
    return std::pair{send, recv};
  };
  m[i + "alltoallv"] = [=](Call& c) {
    auto [sc, rc] = alltoallv_counts(c);
    auto sd = c.displacements(sc), rd = c.displacements(rc);
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ialltoallv(c.send.data(), sc.data(), sd.data(), MPI_INT, c.recv.data(), rc.data(), rd.data(),
                                    MPI_INT, c.comm, r)
                   : MPI_Alltoallv(c.send.data(), sc.data(), sd.data(), MPI_INT, c.recv.data(), rc.data(), rd.data(),
                                   MPI_INT, c.comm);
        },
        "alltoallv");
    c.all_to_all([&](int p) { return c.pair_count(c.rank, p); });
  };
  m[i + "alltoallw"] = [=](Call& c) {
    auto [sc, rc] = alltoallv_counts(c);
    std::vector<int> sd(sc.size()), rd(rc.size());
    auto se = c.displacements(sc), re = c.displacements(rc);
    for (std::size_t k = 0; k < sc.size(); ++k) {  // alltoallw displacements are in bytes
      sd[k] = se[k] * static_cast<int>(kIntBytes);
      rd[k] = re[k] * static_cast<int>(kIntBytes);
    }
    std::vector<MPI_Datatype> types(sc.size(), MPI_INT);
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ialltoallw(c.send.data(), sc.data(), sd.data(), types.data(), c.recv.data(), rc.data(),
                                    rd.data(), types.data(), c.comm, r)
                   : MPI_Alltoallw(c.send.data(), sc.data(), sd.data(), types.data(), c.recv.data(), rc.data(),
                                   rd.data(), types.data(), c.comm);
        },
        "alltoallw");
    c.all_to_all([&](int p) { return c.pair_count(c.rank, p); });
  };
  m[i + "barrier"] = [=](Call& c) {
    nb_or_b(
        c, nb, [&](MPI_Request* r) { return r ? MPI_Ibarrier(c.comm, r) : MPI_Barrier(c.comm); }, "barrier");
    c.all_to_all([](int) { return 0; });
  };
}

/// Reduce-scatter and prefix reductions; the non-blocking forms when nb.
void add_reductions(Operations& m, bool nb) {
  const std::string i = nb ? "i" : "";
  m[i + "reduce_scatter"] = [=](Call& c) {
    auto counts = c.counts_by_rank();
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ireduce_scatter(c.send.data(), c.recv.data(), counts.data(), MPI_INT, MPI_SUM, c.comm, r)
                   : MPI_Reduce_scatter(c.send.data(), c.recv.data(), counts.data(), MPI_INT, MPI_SUM, c.comm);
        },
        "reduce_scatter");
    c.all_to_all([&](int p) { return counts[static_cast<std::size_t>(p)]; });
  };
  m[i + "reduce_scatter_block"] = [=](Call& c) {
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ireduce_scatter_block(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.comm, r)
                   : MPI_Reduce_scatter_block(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.comm);
        },
        "reduce_scatter_block");
    c.all_to_all(block);
  };
  // A prefix reduction sends a process's data to every higher rank.
  for (bool exclusive : {false, true}) {
    m[i + (exclusive ? "exscan" : "scan")] = [=](Call& c) {
      nb_or_b(
          c, nb,
          [&](MPI_Request* r) {
            if (exclusive) {
              return r ? MPI_Iexscan(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.comm, r)
                       : MPI_Exscan(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.comm);
            }
            return r ? MPI_Iscan(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.comm, r)
                     : MPI_Scan(c.send.data(), c.recv.data(), kBlock, MPI_INT, MPI_SUM, c.comm);
          },
          "scan");
      c.to_higher_ranks(kBlock);
    };
  }
}

/// Neighbourhood collectives (run on the Cartesian communicator); the non-blocking forms when nb.
void add_neighbourhood(Operations& m, bool nb) {
  const std::string i = nb ? "i" : "";
  m[i + "neighbor_allgather"] = [=](Call& c) {
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ineighbor_allgather(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.comm, r)
                   : MPI_Neighbor_allgather(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.comm);
        },
        "neighbor_allgather");
    record_neighbours(c, {kBlock, kBlock});
  };
  m[i + "neighbor_allgatherv"] = [=](Call& c) {
    int rc[2] = {kBlock, kBlock}, rd[2] = {0, kBlock};
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ineighbor_allgatherv(c.send.data(), kBlock, MPI_INT, c.recv.data(), rc, rd, MPI_INT, c.comm, r)
                   : MPI_Neighbor_allgatherv(c.send.data(), kBlock, MPI_INT, c.recv.data(), rc, rd, MPI_INT, c.comm);
        },
        "neighbor_allgatherv");
    record_neighbours(c, {kBlock, kBlock});
  };
  m[i + "neighbor_alltoall"] = [=](Call& c) {
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ineighbor_alltoall(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.comm, r)
                   : MPI_Neighbor_alltoall(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, c.comm);
        },
        "neighbor_alltoall");
    record_neighbours(c, {kBlock, kBlock});
  };
  // The -1 side gets kBlock elements, the +1 side kBlock + 1; the receiver mirrors it.
  m[i + "neighbor_alltoallv"] = [=](Call& c) {
    int sc[2] = {kBlock, kBlock + 1}, sd[2] = {0, kBlock}, rc[2] = {kBlock + 1, kBlock}, rd[2] = {0, kBlock + 1};
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ineighbor_alltoallv(c.send.data(), sc, sd, MPI_INT, c.recv.data(), rc, rd, MPI_INT, c.comm, r)
                   : MPI_Neighbor_alltoallv(c.send.data(), sc, sd, MPI_INT, c.recv.data(), rc, rd, MPI_INT, c.comm);
        },
        "neighbor_alltoallv");
    record_neighbours(c, {kBlock, kBlock + 1});
  };
  m[i + "neighbor_alltoallw"] = [=](Call& c) {
    int sc[2] = {kBlock, kBlock + 1}, rc[2] = {kBlock + 1, kBlock};
    MPI_Aint sd[2] = {0, kBlock * static_cast<MPI_Aint>(kIntBytes)};
    MPI_Aint rd[2] = {0, (kBlock + 1) * static_cast<MPI_Aint>(kIntBytes)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    nb_or_b(
        c, nb,
        [&](MPI_Request* r) {
          return r ? MPI_Ineighbor_alltoallw(c.send.data(), sc, sd, types, c.recv.data(), rc, rd, types, c.comm, r)
                   : MPI_Neighbor_alltoallw(c.send.data(), sc, sd, types, c.recv.data(), rc, rd, types, c.comm);
        },
        "neighbor_alltoallw");
    record_neighbours(c, {kBlock, kBlock + 1});
  };
}

/// Scenarios around two suspected defects (docs/defects.md).
void add_defect_scenarios(Operations& m) {
  m["distgraph_neighbor_alltoall"] = [=](Call& c) {
    // The same ring as the Cartesian case, declared as a distributed graph.
    auto nb = neighbours(c);
    MPI_Comm graph;
    check(MPI_Dist_graph_create_adjacent(c.comm, 2, nb.data(), MPI_UNWEIGHTED, 2, nb.data(), MPI_UNWEIGHTED,
                                         MPI_INFO_NULL, 0, &graph),
          "MPI_Dist_graph_create_adjacent");
    check(MPI_Comm_set_name(graph, "mpimon_graph"), "MPI_Comm_set_name");
    check(MPI_Neighbor_alltoall(c.send.data(), kBlock, MPI_INT, c.recv.data(), kBlock, MPI_INT, graph),
          "MPI_Neighbor_alltoall");
    Call on_graph = c;
    on_graph.comm = graph;
    on_graph.comm_name = "mpimon_graph";
    record_neighbours(on_graph, {kBlock, kBlock});
  };
  m["bcast_on_freed_comm"] = [=](Call& c) {
    // A communicator used once and freed, then another created: the first one's record must
    // still be in the dump, since Open MPI keeps freed communicators' records until then. The
    // control run makes and frees the same communicators without the Bcast, so that their
    // context-id agreement (collectives on c.comm that Open MPI calls itself, the same in both
    // runs) is subtracted and C holds the Bcast alone.
    MPI_Comm used;
    check(MPI_Comm_dup(c.comm, &used), "MPI_Comm_dup");
    check(MPI_Comm_set_name(used, "mpimon_freed"), "MPI_Comm_set_name");
    if (!c.control) {
      check(MPI_Bcast(c.send.data(), kBlock, MPI_INT, c.root(), used), "MPI_Bcast");
      Call on_used = c;
      on_used.comm_name = "mpimon_freed";
      on_used.one_to_all(block);
    }
    check(MPI_Comm_free(&used), "MPI_Comm_free");
    MPI_Comm next;  // not freed
    check(MPI_Comm_dup(c.comm, &next), "MPI_Comm_dup");
    check(MPI_Comm_set_name(next, "mpimon_next"), "MPI_Comm_set_name");
  };
}

// Each entry calls the operation and records what RR-9038 says the monitoring records.
const Operations& operations() {
  static const Operations ops = [] {
    Operations m;
    add_one_to_all(m);
    add_all_to_one(m);
    for (bool nb : {false, true}) {
      add_all_to_all(m, nb);
      add_reductions(m, nb);
      add_neighbourhood(m, nb);
    }
    add_defect_scenarios(m);
    return m;
  }();
  return ops;
}

bool is_neighbourhood(const std::string& name) { return name.find("neighbor_") != std::string::npos; }

MPI_Comm make_communicator(MPI_Comm parent, bool cartesian, const char* name) {
  MPI_Comm comm;
  if (cartesian) {
    int size = 0;
    MPI_Comm_size(parent, &size);
    int dims[1] = {size}, periods[1] = {1};
    check(MPI_Cart_create(parent, 1, dims, periods, 0, &comm), "MPI_Cart_create");
  } else {
    check(MPI_Comm_dup(parent, &comm), "MPI_Comm_dup");
  }
  check(MPI_Comm_set_name(comm, name), "MPI_Comm_set_name");
  return comm;
}

}  // namespace

std::vector<std::string> collective_names() {
  std::vector<std::string> names;
  for (const auto& [name, op] : operations()) names.push_back(name);
  return names;
}

void run_collective(MPI_Comm comm, const std::string& name, bool control, Ledger& ledger) {
  auto it = operations().find(name);
  if (it == operations().end()) throw std::invalid_argument("unknown collective '" + name + "'");
  const bool cartesian = is_neighbourhood(name);
  const char* comm_name = cartesian ? "mpimon_cart" : "mpimon_coll";
  // The communicator is deliberately not freed: Open MPI keeps its record until the dump, and a
  // freed communicator's record can be lost (docs/defects.md).
  MPI_Comm c = make_communicator(comm, cartesian, comm_name);
  // Operations that create communicators of their own create them in the control run too.
  if (control && name != "bcast_on_freed_comm") return;
  Call call{c, comm_name, 0, 0, world_ranks(c), ledger, control};
  MPI_Comm_rank(c, &call.rank);
  MPI_Comm_size(c, &call.size);
  it->second(call);
}

}  // namespace mpimon::workloads
