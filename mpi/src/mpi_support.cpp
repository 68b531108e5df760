#include "mpimon/mpi/mpi_support.hpp"

#include <cstdio>
#include <filesystem>
#include <numeric>

namespace mpimon::mpi {

Session::Session(int& argc, char**& argv) {
  check(MPI_Init(&argc, &argv), "MPI_Init");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Session::~Session() { MPI_Finalize(); }

void abort_job(const std::string& message) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "rank %d: %s\n", rank, message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
  std::abort();
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  abort_job(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

std::vector<std::uint32_t> world_ranks(MPI_Comm comm) {
  MPI_Group group, world;
  MPI_Comm_group(comm, &group);
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0;
  MPI_Group_size(group, &n);
  std::vector<int> local(static_cast<std::size_t>(n)), global(static_cast<std::size_t>(n));
  std::iota(local.begin(), local.end(), 0);
  check(MPI_Group_translate_ranks(group, n, local.data(), world, global.data()), "MPI_Group_translate_ranks");
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return {global.begin(), global.end()};
}

void make_directories(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec && !std::filesystem::is_directory(path)) abort_job("cannot create " + path + ": " + ec.message());
}

}  // namespace mpimon::mpi
