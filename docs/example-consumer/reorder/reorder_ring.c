/* A ring of processes, each sending 1000 bytes to the next: renumbered by mpimon_reorder_graph so
 * that neighbours in the ring share a node where they can (docs/reorder.md). */
#include <mpi.h>
#include <stdio.h>

#include <mpimon/reorder.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int source = rank, destination = (rank + 1) % size;
  long long weight = 1000;
  MPI_Comm ring;
  if (mpimon_reorder_graph(MPI_COMM_WORLD, 1, &source, &destination, &weight, &ring) != MPIMON_REORDER_SUCCESS) {
    if (rank == 0) fprintf(stderr, "mpimon_reorder_graph: %s\n", mpimon_reorder_error_message());
    MPI_Finalize();
    return 1;
  }
  mpimon_reorder_stats stats;
  mpimon_reorder_get_stats(&stats);
  int new_rank = 0;
  MPI_Comm_rank(ring, &new_rank);
  if (rank == 0) {
    printf("%d processes on %d node(s): %s, modelled cost %.0f -> %.0f, %lld edge(s)%s%s\n", stats.processes,
           stats.nodes, stats.reordered ? "reordered" : "order kept", stats.cost_before, stats.cost_after, stats.edges,
           stats.note[0] ? ": " : "", stats.note);
  }
  MPI_Comm_free(&ring);
  MPI_Finalize();
  return 0;
}
