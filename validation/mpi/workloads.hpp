#pragma once
// Communication workloads shared by validation and benchmarks. Each one records every message
// it sends in a Ledger, the ground truth the monitoring is compared with.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/ledger.hpp"

namespace mpimon::mpi {

/// The ways a point-to-point message can be sent; each must be counted once by the monitoring.
enum class SendMode { send, isend, ssend, bsend, rsend, sendrecv, persistent, derived };

struct PlannedMessage {
  SendMode mode;
  std::uint64_t bytes;  ///< payload bytes (for `derived`, count x type size)
  int tag;
};

/// Every send mode, in a fixed order.
inline constexpr SendMode kAllSendModes[] = {SendMode::send,   SendMode::isend,    SendMode::ssend,
                                             SendMode::bsend,  SendMode::rsend,    SendMode::sendrecv,
                                             SendMode::persistent, SendMode::derived};
const char* send_mode_name(SendMode m);
/// Parses "send", "isend", ...; throws std::invalid_argument for other names.
SendMode parse_send_mode(const std::string& name);

/// The messages comm rank `src` sends to comm rank `dst` in the point-to-point sweep: the given
/// send modes in turn, sizes from 0 bytes to 256 KiB spanning many histogram buckets.
std::vector<PlannedMessage> plan_p2p_messages(int src, int dst, const std::vector<SendMode>& modes);

/// Every rank of `comm` sends its planned messages to every rank (itself included) and one
/// message to MPI_PROC_NULL, which the monitoring must not count. Receives are pre-posted and
/// announced with a 0-byte token before any data is sent, so ready-mode sends are legal. No
/// collective is called, so with pml_monitoring_enable = 1 every recorded message is in the ledger.
void run_p2p_sweep(MPI_Comm comm, Ledger& ledger, const std::vector<SendMode>& modes);

}  // namespace mpimon::mpi
