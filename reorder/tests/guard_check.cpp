// The patterns of codes that use (or misuse) a renumbered communicator, for reorder.guard
// (docs/reorder.md, "Codes that cannot take a renumbering"). An unmodified application: it does not
// link the library. One mode per run; each ends with "DONE MODE ok" when its own checks pass, or
// "DONE MODE wrong" when the messages came from other processes than the pattern meant.
//   lammps      MPI_Cart_create(reorder=1) on MPI_COMM_WORLD, MPI_Cart_get, MPI_Cart_shift and
//               MPI_Cart_rank of every point, MPI_Comm_free, then a halo exchange on MPI_COMM_WORLD
//               with those ranks (LAMMPS's ProcMap::cart_map and Comm::exchange): wrong when renumbered;
//   lammps-pmpi the same through the PMPI_ names, as Open MPI's Fortran bindings call them;
//   arithmetic  the same with the neighbours computed from the coordinates MPI_Cart_get gave
//               (row-major), not read: wrong when renumbered;
//   gathered    MPI_Cart_get, MPI_Comm_free, the coordinates gathered over MPI_COMM_WORLD and the
//               neighbours' world ranks found there (LAMMPS's numa_map): right;
//   unread      MPI_Cart_create(reorder=1), MPI_Comm_free without reading anything, a ring on
//               MPI_COMM_WORLD: right;
//   petsc       MPI_Dist_graph_create_adjacent(reorder=1) of a ring of world ranks, then
//               MPI_Neighbor_alltoall with the buffers of the declared lists, without reading the
//               new rank or neighbours (PETSc's PetscSF of type neighbor): wrong when renumbered;
//   adjacent    the same, reading the rank and MPI_Dist_graph_neighbors first and exchanging the
//               values of the vertex of its new rank: right;
//   cart        MPI_Cart_create(reorder=1), MPI_Comm_rank, MPI_Cart_shift on it and a halo
//               exchange on it (GROMACS's way): right;
//   steps       the cart pattern three times, one communicator per step: right, each process with
//               the same new rank every time.
// Usage: mpimon-reorder-guard MODE (ranks 4 x (size / 4); size a multiple of 4, at least 8)
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_rank = 0, g_size = 1;
bool g_pmpi = false;  // every call of the lammps pattern through its PMPI_ name
// CALL(MPI_Send) is MPI_Send, or PMPI_Send in the mode lammps-pmpi.
#define CALL(f) (g_pmpi ? P##f : f)

// A 2-D periodic grid of 4 x (size / 4), row-major as MPI numbers it.
int dims[2], periods[2] = {1, 1};

int grid_rank(int r, int c) { return ((r + dims[0]) % dims[0]) * dims[1] + (c + dims[1]) % dims[1]; }

// Each process sends its grid position to its 4 neighbours (world ranks `peer`) and checks that
// what arrives from each is the neighbour's position.
bool halo_on(MPI_Comm comm, const int coords[2], const int peer[4]) {
  const int expected[4][2] = {
      {coords[0] - 1, coords[1]}, {coords[0] + 1, coords[1]}, {coords[0], coords[1] - 1}, {coords[0], coords[1] + 1}};
  bool right = true;
  for (int k = 0; k < 4; ++k) {
    int got[2] = {-1, -1};
    const int opposite = k ^ 1;  // what I receive from my k-side neighbour was sent to its opposite side
    CALL(MPI_Sendrecv)
    (coords, 2, MPI_INT, peer[opposite], opposite, got, 2, MPI_INT, peer[k], opposite, comm, MPI_STATUS_IGNORE);
    right = right && (got[0] + dims[0]) % dims[0] == (expected[k][0] + dims[0]) % dims[0] &&
            (got[1] + dims[1]) % dims[1] == (expected[k][1] + dims[1]) % dims[1];
  }
  return right;
}

MPI_Comm cart() {
  MPI_Comm c;
  CALL(MPI_Cart_create)(MPI_COMM_WORLD, 2, dims, periods, 1, &c);
  return c;
}

bool lammps(bool read) {
  MPI_Comm c = cart();
  int coords[2], d[2], p[2], peer[4];
  CALL(MPI_Cart_get)(c, 2, d, p, coords);
  if (read) {
    CALL(MPI_Cart_shift)(c, 0, 1, &peer[0], &peer[1]);
    CALL(MPI_Cart_shift)(c, 1, 1, &peer[2], &peer[3]);
    std::vector<int> grid2proc(static_cast<std::size_t>(g_size));
    for (int r = 0; r < dims[0]; ++r) {
      for (int col = 0; col < dims[1]; ++col) {
        const int at[2] = {r, col};
        CALL(MPI_Cart_rank)(c, at, &grid2proc[static_cast<std::size_t>(r * dims[1] + col)]);
      }
    }
  } else {
    peer[0] = grid_rank(coords[0] - 1, coords[1]), peer[1] = grid_rank(coords[0] + 1, coords[1]);
    peer[2] = grid_rank(coords[0], coords[1] - 1), peer[3] = grid_rank(coords[0], coords[1] + 1);
  }
  CALL(MPI_Comm_free)(&c);
  return halo_on(MPI_COMM_WORLD, coords, peer);
}

bool gathered() {
  MPI_Comm c = cart();
  int coords[2], d[2], p[2];
  MPI_Cart_get(c, 2, d, p, coords);
  MPI_Comm_free(&c);
  std::vector<int> all(2 * static_cast<std::size_t>(g_size)), world_at(static_cast<std::size_t>(g_size));
  MPI_Allgather(coords, 2, MPI_INT, all.data(), 2, MPI_INT, MPI_COMM_WORLD);
  for (int w = 0; w < g_size; ++w) {
    world_at[static_cast<std::size_t>(all[2 * static_cast<std::size_t>(w)] * dims[1] +
                                      all[2 * static_cast<std::size_t>(w) + 1])] = w;
  }
  auto at = [&](int r, int col) { return world_at[static_cast<std::size_t>(grid_rank(r, col))]; };
  const int peer[4] = {at(coords[0] - 1, coords[1]), at(coords[0] + 1, coords[1]), at(coords[0], coords[1] - 1),
                       at(coords[0], coords[1] + 1)};
  return halo_on(MPI_COMM_WORLD, coords, peer);
}

bool unread() {
  MPI_Comm c = cart();
  MPI_Comm_free(&c);
  const int coords[2] = {g_rank / dims[1], g_rank % dims[1]};
  const int peer[4] = {grid_rank(coords[0] - 1, coords[1]), grid_rank(coords[0] + 1, coords[1]),
                       grid_rank(coords[0], coords[1] - 1), grid_rank(coords[0], coords[1] + 1)};
  return halo_on(MPI_COMM_WORLD, coords, peer);
}

// A ring of world ranks, every process's sources and destinations its two ring neighbours.
bool adjacent(bool read) {
  const int left = (g_rank + g_size - 1) % g_size, right = (g_rank + 1) % g_size;
  // Weights make a ring that crosses the cores more than it must (the library renumbers it).
  const int neighbours[2] = {left, right}, weights[2] = {g_rank % 2 ? 10 : 1, g_rank % 2 ? 1 : 10};
  MPI_Comm c;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, neighbours, weights, 2, neighbours, weights, MPI_INFO_NULL, 1, &c);
  int me = g_rank, from[2] = {left, right};
  if (read) {
    MPI_Comm_rank(c, &me);
    int in_weights[2], out[2], out_weights[2];
    MPI_Dist_graph_neighbors(c, 2, from, in_weights, 2, out, out_weights);
  }
  // Each process sends its (world or new) rank to both; it must hear from the ranks it expects.
  int send[2] = {me, me}, got[2] = {-1, -1};
  MPI_Neighbor_alltoall(send, 1, MPI_INT, got, 1, MPI_INT, c);
  MPI_Comm_free(&c);
  return got[0] == from[0] && got[1] == from[1];
}

bool cart_used() {
  MPI_Comm c = cart();
  int me = 0, coords[2], peer[4];
  MPI_Comm_rank(c, &me);
  MPI_Cart_coords(c, me, 2, coords);
  MPI_Cart_shift(c, 0, 1, &peer[0], &peer[1]);
  MPI_Cart_shift(c, 1, 1, &peer[2], &peer[3]);
  const bool right = halo_on(c, coords, peer);
  MPI_Comm_free(&c);
  return right;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const std::string mode = argc > 1 ? argv[1] : "";
  if (g_size % 4 != 0 || g_size < 8) {
    if (g_rank == 0) std::fprintf(stderr, "mpimon-reorder-guard: a multiple of 4 processes, at least 8\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  dims[0] = 4, dims[1] = g_size / 4;
  bool right = false;
  if (mode == "lammps") {
    right = lammps(true);
  } else if (mode == "lammps-pmpi") {
    g_pmpi = true;
    right = lammps(true);
  } else if (mode == "arithmetic") {
    right = lammps(false);
  } else if (mode == "gathered") {
    right = gathered();
  } else if (mode == "unread") {
    right = unread();
  } else if (mode == "petsc") {
    right = adjacent(false);
  } else if (mode == "adjacent") {
    right = adjacent(true);
  } else if (mode == "cart") {
    right = cart_used();
  } else if (mode == "steps") {
    int first = -1;
    right = true;
    for (int step = 0; step < 3; ++step) {
      MPI_Comm c = cart();
      int me = 0;
      MPI_Comm_rank(c, &me);
      right = right && (step == 0 || me == first);
      first = me;
      MPI_Comm_free(&c);
      right = right && cart_used();
    }
  } else {
    if (g_rank == 0) std::fprintf(stderr, "mpimon-reorder-guard: unknown mode '%s'\n", mode.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int all_right = right ? 1 : 0, every = 0;
  MPI_Allreduce(&all_right, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (g_rank == 0) std::printf("DONE %s %s\n", mode.c_str(), every ? "ok" : "wrong");
  MPI_Finalize();
  return 0;
}
