#include "exchange.hpp"

#include <mpi.h>

#include <algorithm>
#include <exception>
#include <limits>

namespace mpimon::parallel {

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

void share_first_failure(const Outcome& mine, std::uint64_t order) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  constexpr auto kNone = std::numeric_limits<std::uint64_t>::max();
  // (order, rank) pairs: the lowest order wins, ties to the lowest rank.
  const std::uint64_t mine_key[2] = {mine.failed ? order : kNone, static_cast<std::uint64_t>(rank)};
  std::uint64_t first[2] = {kNone, 0};
  MPI_Allreduce(&mine_key[0], &first[0], 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  if (first[0] == kNone) return;
  const std::uint64_t candidate = mine_key[0] == first[0] ? mine_key[1] : kNone;
  MPI_Allreduce(&candidate, &first[1], 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  share_outcome(mine, static_cast<int>(first[1]));
}

}  // namespace mpimon::parallel
