/* libmpimon-reorder: placement inside the run (docs/reorder.md).
 *
 * Two ways in:
 *   - preloaded (LD_PRELOAD, or `mpimon run --reorder -- mpirun ...`), MPI_Cart_create,
 *     MPI_Graph_create, MPI_Dist_graph_create and MPI_Dist_graph_create_adjacent honour reorder=1:
 *     process p gets the rank of the graph vertex mpimon's placement puts on p's core (or node);
 *     reorder=0 is never touched;
 *   - called: mpimon_reorder() returns a communicator over the same processes, renumbered from the
 *     traffic Open MPI's monitoring recorded, from a recording file, or from a graph.
 *
 * Every call is collective over `comm`, and every process returns the same status: an error on one
 * process (a bad argument, an unreadable source) is an error everywhere, never a hang. When the
 * mapping found does not lower the modelled cost, the order is kept (a duplicate of `comm`) and the
 * statistics say why. A renumbering keeps rank 0 on process 0, and as many processes on their own
 * rank as the machine's symmetries allow at the same cost. Nothing here throws or aborts.
 *
 * Environment: MPIMON_REORDER_VERBOSE=1 (one line per call on rank 0's stderr),
 * MPIMON_REORDER_STATS=FILE (rank 0 appends one JSON line per call), MPIMON_REORDER=off (the
 * constructors pass reorder on unchanged and mpimon_reorder keeps the order),
 * MPIMON_REORDER_TOPOLOGY=node.xml (a node's hwloc XML instead of the local machine's),
 * MPIMON_REORDER_TIME_LIMIT=SECONDS (the mapping's time limit). */
#ifndef MPIMON_REORDER_H
#define MPIMON_REORDER_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes: the same on every process of the call. */
#define MPIMON_REORDER_SUCCESS 0
#define MPIMON_REORDER_ERR_ARG 1      /* a bad argument: a null pointer, an unknown source, a rank out of range */
#define MPIMON_REORDER_ERR_SOURCE 2   /* the source cannot be read: a missing or foreign file, no monitoring */
#define MPIMON_REORDER_ERR_INTERNAL 3 /* a failure of the library itself (out of memory, a broken invariant) */
/* The exit code of a job the preloaded library stops (MPI_Abort) because the application uses ranks
 * of a renumbered communicator in another communicator (docs/reorder.md). */
#define MPIMON_REORDER_ABORT_RANKS_MISUSED 4

/* What the last call on this process did (mpimon_reorder_get_stats). Costs are modelled: the sum
 * over graph edges of their weight times the distance of the two processes' places (links cost
 * 100 between nodes, 10 between packages, 1 between cores, 0 on one core; docs/placement.md). */
typedef struct mpimon_reorder_stats {
  int reordered;      /* 1: the ranks were changed; 0: the order was kept (see note) */
  int processes;      /* processes of the communicator */
  int nodes;          /* distinct hosts among them */
  int placed_by_core; /* 1: every process bound to one core, places are cores; 0: places are nodes */
  long long vertices; /* the graph's vertices (ranks of the result) */
  long long edges;    /* its undirected edges of non-zero weight */
  double cost_before; /* the modelled cost of the order kept */
  double cost_after;  /* the modelled cost of the order returned (= cost_before when kept) */
  double between_nodes_before, between_nodes_after; /* weight of the edges between nodes */
  double seconds;                                   /* the whole call, on this process */
  double seconds_source;                            /* gathering the machine and the graph (MPI_T read, file read) */
  double seconds_mapping;                           /* computing the mapping (on the process that computes it) */
  double seconds_communicator;                      /* broadcasting it and making the communicator */
  char method[32]; /* the placement method that gave the result ("identity" when kept) */
  char note[256];  /* why the order was kept, or "" */
  int kept_ranks;  /* processes whose rank in the result is their rank in comm (every vertex's when kept) */
  int rank0_kept;  /* 1: process 0 of comm is rank 0 of the result */
  int cached;      /* 1: the decision of an earlier call on the same graph and the same places, reused */
} mpimon_reorder_stats;

/* A communicator over comm's processes, ranks renumbered so that processes that exchange more
 * traffic sit closer. source:
 *   "monitoring"     the point-to-point traffic Open MPI's monitoring recorded between comm's
 *                    processes so far (the first call) or since the previous call, read through
 *                    MPI_T (Open MPI 5.0; on 4.1 the PML's variables vanish at MPI_Init: an error
 *                    naming that defect, pml-mpit-invalid-after-init);
 *   "file:PATH.h5"   a recording made by `mpimon record` or `mpimon collect` (its only dump, or
 *                    "file:PATH.h5#DUMP"), rank i of the recording being rank i of comm.
 * On success *newcomm is a new communicator to free with MPI_Comm_free; on error MPI_COMM_NULL. */
int mpimon_reorder(MPI_Comm comm, const char* source, MPI_Comm* newcomm);

/* The same from a graph: each process gives `count` directed edges sources[k] -> destinations[k]
 * (ranks of comm) with weights[k] >= 0 (NULL: 1 each); any process may give any edge, and edges
 * given twice add up. */
int mpimon_reorder_graph(MPI_Comm comm, int count, const int sources[], const int destinations[],
                         const long long weights[], MPI_Comm* newcomm);

/* The statistics of the last call on this process (zeros before any); MPIMON_REORDER_ERR_ARG for NULL. */
int mpimon_reorder_get_stats(mpimon_reorder_stats* stats);

/* Why the last call on this process failed ("" after a success); valid until the next call. */
const char* mpimon_reorder_error_message(void);

#ifdef __cplusplus
}
#endif

#endif /* MPIMON_REORDER_H */
