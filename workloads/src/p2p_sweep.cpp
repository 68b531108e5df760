#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <string>

#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/workloads/workloads.hpp"

namespace mpimon::workloads {

using mpi::check;
using mpi::world_ranks;

namespace {

constexpr int kReadyTag = 999;
constexpr int kFirstDataTag = 1000;
// Three blocks of two ints, stride four: 24 payload bytes per element, 40 bytes of extent.
constexpr int kDerivedCount = 2;
constexpr std::uint64_t kDerivedBytes = kDerivedCount * 3 * 2 * sizeof(int);

// 0 B, then sizes on and just off powers of two: buckets 0, 1, 2, 4, 10, 11, 17, 19.
constexpr std::array<std::uint64_t, 8> kSizes = {0, 1, 3, 8, 1000, 1024, 65543, 262144};

MPI_Datatype make_derived_type() {
  MPI_Datatype t;
  check(MPI_Type_vector(3, 2, 4, MPI_INT, &t), "MPI_Type_vector");
  check(MPI_Type_commit(&t), "MPI_Type_commit");
  return t;
}

}  // namespace

const char* send_mode_name(SendMode m) {
  static constexpr const char* names[] = {"send",  "isend",    "ssend",      "bsend",
                                          "rsend", "sendrecv", "persistent", "derived"};
  return names[static_cast<int>(m)];
}

SendMode parse_send_mode(const std::string& name) {
  for (SendMode m : kAllSendModes) {
    if (name == send_mode_name(m)) return m;
  }
  throw std::invalid_argument("unknown send mode '" + name + "'");
}

std::vector<PlannedMessage> plan_p2p_messages(int src, int dst, const std::vector<SendMode>& modes) {
  std::vector<PlannedMessage> plan;
  const int messages = static_cast<int>(modes.size()) + (src + 2 * dst) % 3;  // vary counts between pairs
  for (int k = 0; k < messages; ++k) {
    SendMode mode = modes[static_cast<std::size_t>(k) % modes.size()];
    std::uint64_t bytes =
        mode == SendMode::derived ? kDerivedBytes : kSizes[static_cast<std::size_t>(k + src + dst) % kSizes.size()];
    plan.push_back({mode, bytes, kFirstDataTag + k});
  }
  return plan;
}

void run_p2p_sweep(MPI_Comm comm, Ledger& ledger, const std::vector<SendMode>& modes) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<std::uint32_t> world = world_ranks(comm);
  MPI_Datatype derived = make_derived_type();
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(derived, &lb, &extent);

  // Post every receive first.
  std::vector<std::unique_ptr<char[]>> buffers;
  std::vector<MPI_Request> receives;
  auto buffer_for = [&](const PlannedMessage& m) {
    std::size_t n = m.mode == SendMode::derived ? static_cast<std::size_t>(extent) * kDerivedCount : m.bytes;
    buffers.push_back(std::make_unique<char[]>(n + 1));
    return buffers.back().get();
  };
  for (int src = 0; src < size; ++src) {
    for (const auto& m : plan_p2p_messages(src, rank, modes)) {
      MPI_Request r;
      if (m.mode == SendMode::derived) {
        check(MPI_Irecv(buffer_for(m), kDerivedCount, derived, src, m.tag, comm, &r), "MPI_Irecv");
      } else {
        check(MPI_Irecv(buffer_for(m), static_cast<int>(m.bytes), MPI_BYTE, src, m.tag, comm, &r), "MPI_Irecv");
      }
      receives.push_back(r);
    }
  }

  // Ready sends need their receives posted: announce them to every sender, and wait for every
  // destination's announcement.
  if (std::find(modes.begin(), modes.end(), SendMode::rsend) != modes.end()) {
    std::vector<MPI_Request> tokens(2 * static_cast<std::size_t>(size));
    for (int peer = 0; peer < size; ++peer) {
      check(MPI_Irecv(nullptr, 0, MPI_BYTE, peer, kReadyTag, comm, &tokens[static_cast<std::size_t>(peer)]),
            "MPI_Irecv");
    }
    for (int peer = 0; peer < size; ++peer) {
      check(MPI_Isend(nullptr, 0, MPI_BYTE, peer, kReadyTag, comm, &tokens[static_cast<std::size_t>(size + peer)]),
            "MPI_Isend");
      ledger.record(TrafficClass::external, world[static_cast<std::size_t>(peer)], 0);
    }
    check(MPI_Waitall(static_cast<int>(tokens.size()), tokens.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  }

  // Buffered sends need an attached buffer large enough for all of them at once.
  std::size_t bsend_bytes = 0;
  for (int dst = 0; dst < size; ++dst) {
    for (const auto& m : plan_p2p_messages(rank, dst, modes)) {
      if (m.mode == SendMode::bsend) bsend_bytes += m.bytes + MPI_BSEND_OVERHEAD;
    }
  }
  std::vector<char> attached(bsend_bytes + MPI_BSEND_OVERHEAD);
  check(MPI_Buffer_attach(attached.data(), static_cast<int>(attached.size())), "MPI_Buffer_attach");

  std::vector<MPI_Request> sends;
  for (int dst = 0; dst < size; ++dst) {
    for (const auto& m : plan_p2p_messages(rank, dst, modes)) {
      char* data = buffer_for(m);
      const int n = static_cast<int>(m.bytes);
      MPI_Request r;
      switch (m.mode) {
        case SendMode::send:
          check(MPI_Send(data, n, MPI_BYTE, dst, m.tag, comm), "MPI_Send");
          break;
        case SendMode::isend:
          check(MPI_Isend(data, n, MPI_BYTE, dst, m.tag, comm, &r), "MPI_Isend");
          sends.push_back(r);
          break;
        case SendMode::ssend:
          check(MPI_Ssend(data, n, MPI_BYTE, dst, m.tag, comm), "MPI_Ssend");
          break;
        case SendMode::bsend:
          check(MPI_Bsend(data, n, MPI_BYTE, dst, m.tag, comm), "MPI_Bsend");
          break;
        case SendMode::rsend:
          check(MPI_Rsend(data, n, MPI_BYTE, dst, m.tag, comm), "MPI_Rsend");
          break;
        case SendMode::sendrecv:
          check(MPI_Sendrecv(data, n, MPI_BYTE, dst, m.tag, nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, comm,
                             MPI_STATUS_IGNORE),
                "MPI_Sendrecv");
          break;
        case SendMode::persistent:
          check(MPI_Send_init(data, n, MPI_BYTE, dst, m.tag, comm, &r), "MPI_Send_init");
          check(MPI_Start(&r), "MPI_Start");
          check(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
          MPI_Request_free(&r);
          break;
        case SendMode::derived:
          check(MPI_Send(data, kDerivedCount, derived, dst, m.tag, comm), "MPI_Send");
          break;
      }
      ledger.record(TrafficClass::external, world[static_cast<std::size_t>(dst)], m.bytes);
    }
  }
  // Never counted: the send short-circuits in the MPI layer.
  check(MPI_Send(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, comm), "MPI_Send to MPI_PROC_NULL");

  check(MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  check(MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  void* detached = nullptr;
  int detached_size = 0;
  MPI_Buffer_detach(&detached, &detached_size);
  MPI_Type_free(&derived);
}

}  // namespace mpimon::workloads
