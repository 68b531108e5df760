#include "exchange.hpp"

#include <mpi.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>

namespace mpimon::parallel_detail {

namespace {
constexpr int kTagSize = 1;
constexpr int kTagData = 2;
constexpr std::size_t kMaxMessage = std::size_t{1} << 30;  // MPI counts are int
}  // namespace

void send_bytes(const std::vector<char>& bytes, int to) {
  const std::uint64_t size = bytes.size();
  MPI_Send(&size, 1, MPI_UINT64_T, to, kTagSize, MPI_COMM_WORLD);
  for (std::size_t at = 0; at < bytes.size(); at += kMaxMessage) {
    const int n = static_cast<int>(std::min(kMaxMessage, bytes.size() - at));
    MPI_Send(bytes.data() + at, n, MPI_CHAR, to, kTagData, MPI_COMM_WORLD);
  }
}

std::vector<char> receive_bytes(int from) {
  std::uint64_t size = 0;
  MPI_Recv(&size, 1, MPI_UINT64_T, from, kTagSize, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  std::vector<char> bytes(size);
  for (std::size_t at = 0; at < bytes.size(); at += kMaxMessage) {
    const int n = static_cast<int>(std::min(kMaxMessage, bytes.size() - at));
    MPI_Recv(bytes.data() + at, n, MPI_CHAR, from, kTagData, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  return bytes;
}

void broadcast_bytes(std::vector<char>& bytes, int root) {
  std::uint64_t size = bytes.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  bytes.resize(size);
  for (std::size_t at = 0; at < bytes.size(); at += kMaxMessage) {
    const int n = static_cast<int>(std::min(kMaxMessage, bytes.size() - at));
    MPI_Bcast(bytes.data() + at, n, MPI_CHAR, root, MPI_COMM_WORLD);
  }
}

Outcome Outcome::of_current_exception() {
  try {
    throw;
  } catch (const Error& e) {
    return {true, e.kind(), e.what()};
  } catch (const std::exception& e) {
    return {true, Error::Kind::system, e.what()};
  }
}

void Outcome::pack(Packer& out) const {
  out.put<std::uint8_t>(failed);
  out.put(kind);
  out.put_string(message);
}

Outcome Outcome::unpack(Unpacker& in) {
  Outcome o;
  o.failed = in.get<std::uint8_t>() != 0;
  o.kind = in.get<Error::Kind>();
  o.message = in.get_string();
  return o;
}

void share_outcome(const Outcome& mine, int root) {
  Packer p;
  mine.pack(p);
  broadcast_bytes(p.bytes(), root);
  Unpacker u(p.bytes());
  const Outcome shared = Outcome::unpack(u);
  if (shared.failed) shared.raise();
}

namespace {
std::string g_program = "mpimon-merge";
std::FILE* g_user_stderr = stderr;
}  // namespace

void report_from_rank_zero(const std::string& program) {
  g_program = program;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) return;
  const int copy = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
  g_user_stderr = copy >= 0 ? fdopen(copy, "w") : nullptr;
  if (g_user_stderr == nullptr || !std::freopen("/dev/null", "w", stdout) || !std::freopen("/dev/null", "w", stderr))
    MPI_Abort(MPI_COMM_WORLD, kAbortExitCode);
}

void abort_merge(const std::string& message, const std::string& temporary) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::error_code ignored;
  std::filesystem::remove(temporary, ignored);
  std::fprintf(g_user_stderr, "%s: error: %s (process %d of %d; the merge is aborted, nothing written)\n",
               g_program.c_str(), message.c_str(), rank, size);
  std::fflush(g_user_stderr);
  MPI_Abort(MPI_COMM_WORLD, kAbortExitCode);
  std::_Exit(kAbortExitCode);  // MPI_Abort does not return
}

}  // namespace mpimon::parallel_detail
