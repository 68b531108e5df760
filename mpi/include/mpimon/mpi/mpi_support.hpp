#pragma once
// Small MPI helpers shared by the validation programs and the benchmarks.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mpimon::mpi {

/// MPI_Init in the constructor, MPI_Finalize in the destructor (where Open MPI writes its
/// monitoring dumps).
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

 private:
  int rank_ = 0;
  int size_ = 1;
};

/// Aborts the whole job with a message if an MPI call failed, so mpiexec never hangs a test.
void check(int rc, const char* what);
/// Aborts the job with "rank R: message".
[[noreturn]] void abort_job(const std::string& message);

/// The MPI_COMM_WORLD rank of each rank of `comm`, in comm rank order.
std::vector<std::uint32_t> world_ranks(MPI_Comm comm);

/// Creates a directory (and its parents) if missing: Open MPI silently writes no dump when the
/// directory of pml_monitoring_filename does not exist.
void make_directories(const std::string& path);

}  // namespace mpimon::mpi
