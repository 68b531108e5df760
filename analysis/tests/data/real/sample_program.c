#include <mpi.h>
#include <stdio.h>
int main(int c, char** v) {
  MPI_Init(&c, &v);
  int r, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  char buf[5000] = {0};
  if (r == 0) {
    MPI_Send(buf, 1000, MPI_CHAR, 1, 5, MPI_COMM_WORLD);
    MPI_Send(buf, 0, MPI_CHAR, 1, 5, MPI_COMM_WORLD);
  }
  if (r == 1) {
    MPI_Recv(buf, 1000, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(buf, 1000, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Bcast(buf, 100, MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &sub);
  MPI_Comm_set_name(sub, "my sub comm");
  MPI_Allreduce(MPI_IN_PLACE, buf, 10, MPI_INT, MPI_SUM, sub);
  MPI_Win w;
  MPI_Win_create(buf, 5000, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
  MPI_Win_fence(0, w);
  MPI_Put(buf, 10, MPI_CHAR, (r + 1) % n, 0, 10, MPI_CHAR, w);
  MPI_Get(buf + 100, 20, MPI_CHAR, (r + 1) % n, 0, 20, MPI_CHAR, w);
  MPI_Win_fence(0, w);
  MPI_Win_free(&w);
  MPI_Comm_free(&sub);
  MPI_Finalize();
}
