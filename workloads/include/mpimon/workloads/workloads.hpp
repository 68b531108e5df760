#pragma once
// Communication workloads shared by validation and benchmarks. Each one records every message
// it sends in a Ledger, the ground truth the monitoring is compared with.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/models/ledger.hpp"

namespace mpimon::workloads {

/// The ways a point-to-point message can be sent; each must be counted once by the monitoring.
enum class SendMode { send, isend, ssend, bsend, rsend, sendrecv, persistent, derived };

struct PlannedMessage {
  SendMode mode;
  std::uint64_t bytes;  ///< payload bytes (for `derived`, count x type size)
  int tag;
};

/// Every send mode, in a fixed order.
inline constexpr SendMode kAllSendModes[] = {SendMode::send,       SendMode::isend,  SendMode::ssend,
                                             SendMode::bsend,      SendMode::rsend,  SendMode::sendrecv,
                                             SendMode::persistent, SendMode::derived};
const char* send_mode_name(SendMode m);
/// Parses "send", "isend", ...; throws std::invalid_argument for other names.
SendMode parse_send_mode(const std::string& name);

/// The messages comm rank `src` sends to comm rank `dst` in the point-to-point sweep: the given
/// send modes in turn, sizes from 0 bytes to 256 KiB spanning many histogram buckets.
std::vector<PlannedMessage> plan_p2p_messages(int src, int dst, const std::vector<SendMode>& modes);

/// Every rank of `comm` sends its planned messages to every rank (itself included) and one
/// message to MPI_PROC_NULL, which the monitoring must not count. Receives are pre-posted; when
/// the modes include ready sends they are announced with a 0-byte token (in the ledger) before any
/// data is sent, so ready-mode sends are legal. Without ready sends there is no token, so a run of
/// one mode (the persistent-send defect) holds only messages of that mode. No
/// collective is called, so with pml_monitoring_enable = 1 every recorded message is in the ledger.
void run_p2p_sweep(MPI_Comm comm, Ledger& ledger, const std::vector<SendMode>& modes);

}  // namespace mpimon::workloads

namespace mpimon::workloads {

// ---- One-sided -------------------------------------------------------------------------------

/// The one-sided operations the monitoring intercepts.
enum class RmaOp { put, get, accumulate, get_accumulate, fetch_and_op, compare_and_swap };
/// How access epochs are opened and closed.
enum class RmaSync { fence, lock, pscw };

RmaOp parse_rma_op(const std::string& name);      ///< "put", "get", ...; throws std::invalid_argument
RmaSync parse_rma_sync(const std::string& name);  ///< "fence", "lock", "pscw"

/// Every rank applies `op` to every rank's window (itself included) in one epoch of `sync`,
/// and records what the origin sends and receives. The ledger's model: each operation is one
/// message to the target (osc_sent) carrying the origin buffer's bytes (0 for a Get, one element
/// for Fetch_and_op and Compare_and_swap); operations that return data are also one message
/// from the target (osc_recv) carrying the returned bytes. With `control`, the window is created
/// and freed and the epochs opened and closed, but no operation is issued.
void run_rma(MPI_Comm comm, RmaOp op, RmaSync sync, bool control, Ledger& ledger);

// ---- Collectives -----------------------------------------------------------------------------

/// Names of the collective operations `run_collective` knows, blocking, non-blocking (`i...`) and
/// neighbourhood (`neighbor_...`, `ineighbor_...`).
std::vector<std::string> collective_names();

/// Calls the collective `name` once on a duplicate of `comm` named "mpimon_coll" (neighbourhood
/// operations on a periodic 1-D Cartesian communicator named "mpimon_cart"), and records the
/// API-level traffic RR-9038 documents for it (section 9.4 and table 2): one-to-all, the root
/// sends its data to each other process; all-to-one, each other process sends its data to the
/// root; all-to-all, each process sends to each other process what the operation gives it;
/// nothing to itself. With `control` the communicators are created but no collective is called
/// (bcast_on_freed_comm also makes and frees its own two communicators, without its Bcast).
/// Throws std::invalid_argument for unknown names.
void run_collective(MPI_Comm comm, const std::string& name, bool control, Ledger& ledger);

}  // namespace mpimon::workloads
