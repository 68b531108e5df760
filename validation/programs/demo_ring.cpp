// A small application for the README's demonstration: a ring halo exchange, a broadcast and an
// allreduce per step. Run it under monitoring to see both the user's messages (external) and
// the point-to-point messages the collectives decompose into (internal):
//   mpiexec -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
//       --mca pml_monitoring_filename prof/ring ./mpimon-demo-ring

#include <cstdio>
#include <vector>

#include "mpimon/mpi/mpi_support.hpp"

int main(int argc, char** argv) {
  mpimon::mpi::Session session(argc, argv);
  const int rank = session.rank(), size = session.size();
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  constexpr int kSteps = 10;
  constexpr int kHalo = 4096;  // doubles per halo message
  std::vector<double> send(kHalo, rank), recv(kHalo), params(16, 1.0);
  double residual = 0;
  for (int step = 0; step < kSteps; ++step) {
    mpimon::mpi::check(MPI_Sendrecv(send.data(), kHalo, MPI_DOUBLE, right, step, recv.data(), kHalo, MPI_DOUBLE, left,
                                    step, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                       "MPI_Sendrecv");
    mpimon::mpi::check(MPI_Bcast(params.data(), 16, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    double local = recv[0] + step;
    mpimon::mpi::check(MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  }
  if (rank == 0) std::printf("demo ring: %d steps on %d ranks, residual %.0f\n", kSteps, size, residual);
  return 0;
}
