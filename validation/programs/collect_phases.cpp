// Ground truth for `mpimon collect` (docs/collect.md): six phases separated by MPI_Pcontrol, each
// rank writing the ledger of what it sent in the phases that are checked. The program also carries
// a PMPI tool of its own (MPI_Init, MPI_Init_thread, MPI_Send and MPI_Pcontrol wrappers, as a tool
// linked into an application defines them), which must keep working under the collector.
//
// Usage: mpimon-collect-phases LEDGER_PREFIX [--init-thread] [--abort] [--keep-communicator]
//   phase 1  setup: a window and a communicator are created (their traffic is not in a ledger)
//   phase 2  point-to-point: every send mode, many sizes, to every rank    LEDGER_PREFIX.phase_2
//   phase 3  one-sided: lock, put, get, unlock on every rank's window      LEDGER_PREFIX.phase_3
//   phase 4  collectives: a bcast on MPI_COMM_WORLD, an allreduce on a communicator that is then
//            freed                                                        LEDGER_PREFIX.phase_4
//   phase 5  nothing at all                                                LEDGER_PREFIX.phase_5
//   phase 6  the window is freed; MPI_Finalize ends the phase
//   --init-thread  starts MPI with MPI_Init_thread (MPI_THREAD_FUNNELED)
//   --abort        rank 0 calls MPI_Abort in phase 2
//   --keep-communicator  phase 4's communicator is not freed: on Open MPI 5.0.7 a flush after a
//                  communicator is freed reads freed memory (docs/defects.md#flush-after-comm-free)
//   --late-window  the window is created in phase 6 and phase 6 holds the one-sided traffic
//                  (LEDGER_PREFIX.phase_6; phase 3 then sends nothing): on Open MPI 5.0.7 creating
//                  a window frees a communicator inside osc/rdma, so two flushes after it crash
//                  (the same defect); one flush after it, at MPI_Finalize, does not
// Prints "TOOL ok" on rank 0 when the program's own wrappers saw every call they wrap.

#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/workloads/workloads.hpp"

namespace {

int g_init_calls = 0, g_send_calls = 0, g_pcontrol_calls = 0;

using mpimon::Ledger;
using mpimon::TrafficClass;
using mpimon::mpi::check;

// Each rank sends 3 messages of 10 bytes to the next one through MPI_Send, which the program's
// own wrapper must count.
void ring_sends(int rank, int size, Ledger& ledger) {
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  char out[10] = {}, in[3][10];
  MPI_Request requests[3];
  for (int i = 0; i < 3; ++i)
    check(MPI_Irecv(in[i], 10, MPI_BYTE, previous, 40 + i, MPI_COMM_WORLD, &requests[i]), "MPI_Irecv");
  const int before = g_send_calls;
  for (int i = 0; i < 3; ++i) {
    check(MPI_Send(out, 10, MPI_BYTE, next, 40 + i, MPI_COMM_WORLD), "MPI_Send");
    ledger.record(TrafficClass::external, static_cast<std::uint32_t>(next), 10);
  }
  check(MPI_Waitall(3, requests, MPI_STATUSES_IGNORE), "MPI_Waitall");
  if (g_send_calls - before != 3) mpimon::mpi::abort_job("the program's MPI_Send wrapper missed calls");
}

void one_sided(MPI_Win win, int size, Ledger& ledger) {
  std::vector<char> data(16, 'x'), back(8);
  for (int target = 0; target < size; ++target) {
    check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win), "MPI_Win_lock");
    check(MPI_Put(data.data(), 16, MPI_BYTE, target, 0, 16, MPI_BYTE, win), "MPI_Put");
    check(MPI_Get(back.data(), 8, MPI_BYTE, target, 32, 8, MPI_BYTE, win), "MPI_Get");
    check(MPI_Win_unlock(target, win), "MPI_Win_unlock");
    const auto t = static_cast<std::uint32_t>(target);
    ledger.record(TrafficClass::osc_sent, t, 16);  // the put
    ledger.record(TrafficClass::osc_sent, t, 0);   // the get's request
    ledger.record(TrafficClass::osc_recv, t, 8);   // the get's data
  }
}

// RR-9038's recording rules: a bcast's root records its data to every other rank (one-to-all);
// an allreduce's every rank records its data to every other rank (all-to-all).
void collectives(MPI_Comm freed, bool keep, int rank, int size, Ledger& ledger) {
  std::vector<int> data(5, rank), sum(5);
  const int root = size > 1 ? 1 : 0;
  check(MPI_Bcast(data.data(), 5, MPI_INT, root, MPI_COMM_WORLD), "MPI_Bcast");
  auto to_others = [&](mpimon::CollectiveKind kind, const std::string& name) {
    std::uint64_t total = 0;
    for (int p = 0; p < size; ++p) {
      if (p == rank) continue;
      ledger.record(TrafficClass::coll, static_cast<std::uint32_t>(p), 20);
      total += 20;
    }
    ledger.record_call(kind, name, total);
  };
  if (rank == root && size > 1) to_others(mpimon::CollectiveKind::one_to_all, "MPI_COMM_WORLD");
  check(MPI_Allreduce(data.data(), sum.data(), 5, MPI_INT, MPI_SUM, freed), "MPI_Allreduce");
  to_others(mpimon::CollectiveKind::all_to_all, "mpimon_freed");
  if (!keep) check(MPI_Comm_free(&freed), "MPI_Comm_free");
}

}  // namespace

// The program's own PMPI tool.
extern "C" {
int MPI_Init(int* argc, char*** argv) {
  ++g_init_calls;
  return PMPI_Init(argc, argv);
}
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  ++g_init_calls;
  return PMPI_Init_thread(argc, argv, required, provided);
}
int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  ++g_send_calls;
  return PMPI_Send(buf, count, type, dest, tag, comm);
}
int MPI_Pcontrol(const int level, ...) {
  ++g_pcontrol_calls;
  return PMPI_Pcontrol(level);
}
}

int main(int argc, char** argv) {
  std::string prefix;
  bool init_thread = false, abort_run = false, keep_communicator = false, late_window = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--init-thread")
      init_thread = true;
    else if (a == "--abort")
      abort_run = true;
    else if (a == "--keep-communicator")
      keep_communicator = true;
    else if (a == "--late-window")
      late_window = true;
    else
      prefix = a;
  }
  if (init_thread) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (prefix.empty())
    mpimon::mpi::abort_job(
        "usage: mpimon-collect-phases LEDGER_PREFIX [--init-thread] [--abort] [--keep-communicator] "
        "[--late-window]");
  mpimon::mpi::make_directories(std::filesystem::path(prefix).parent_path().string());
  auto ledger_of = [&] { return Ledger(static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(size)); };

  // Phase 1: setup.
  // With osc monitoring, Open MPI 4.1.4 refuses a window on one process (MPI_ERR_WIN, the pinned
  // defect one-process-window-refused): one process has no one-sided phase.
  std::vector<char> window(64);
  MPI_Win win = MPI_WIN_NULL;
  const auto create_window = [&] {
    if (size > 1) check(MPI_Win_create(window.data(), 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), "MPI_Win_create");
  };
  if (!late_window) create_window();
  MPI_Comm freed;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &freed), "MPI_Comm_dup");
  check(MPI_Comm_set_name(freed, "mpimon_freed"), "MPI_Comm_set_name");
  MPI_Pcontrol(1);

  Ledger p2p = ledger_of();
  if (abort_run && rank == 0) {
    std::fprintf(stderr, "rank 0 aborts in phase 2, as asked\n");
    MPI_Abort(MPI_COMM_WORLD, 9);
  }
  mpimon::workloads::run_p2p_sweep(
      MPI_COMM_WORLD, p2p,
      {mpimon::workloads::SendMode::send, mpimon::workloads::SendMode::isend, mpimon::workloads::SendMode::ssend,
       mpimon::workloads::SendMode::sendrecv, mpimon::workloads::SendMode::derived});
  ring_sends(rank, size, p2p);
  p2p.write(prefix + ".phase_2");
  MPI_Pcontrol(2);

  Ledger rma = ledger_of();
  if (win != MPI_WIN_NULL) one_sided(win, size, rma);
  rma.write(prefix + ".phase_3");
  MPI_Pcontrol(3);

  Ledger coll = ledger_of();
  collectives(freed, keep_communicator, rank, size, coll);
  coll.write(prefix + ".phase_4");
  MPI_Pcontrol(4);

  ledger_of().write(prefix + ".phase_5");  // nothing sent
  MPI_Pcontrol(5);

  if (late_window) {
    create_window();
    Ledger late = ledger_of();
    if (win != MPI_WIN_NULL) one_sided(win, size, late);
    late.write(prefix + ".phase_6");
  }
  if (win != MPI_WIN_NULL) check(MPI_Win_free(&win), "MPI_Win_free");
  if (rank == 0) {
    const bool ok = g_init_calls == 1 && g_pcontrol_calls == 5;
    std::printf("TOOL %s (MPI_Init %d, MPI_Pcontrol %d, MPI_Send %d calls)\n", ok ? "ok" : "FAILED", g_init_calls,
                g_pcontrol_calls, g_send_calls);
    std::fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
