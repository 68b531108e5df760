#include <stdexcept>
#include <string>
#include <vector>

#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/workloads/workloads.hpp"

namespace mpimon::workloads {

using mpi::check;
using mpi::world_ranks;

RmaOp parse_rma_op(const std::string& name) {
  static const std::pair<const char*, RmaOp> ops[] = {{"put", RmaOp::put},
                                                      {"get", RmaOp::get},
                                                      {"accumulate", RmaOp::accumulate},
                                                      {"get_accumulate", RmaOp::get_accumulate},
                                                      {"fetch_and_op", RmaOp::fetch_and_op},
                                                      {"compare_and_swap", RmaOp::compare_and_swap}};
  for (auto [n, op] : ops) {
    if (name == n) return op;
  }
  throw std::invalid_argument("unknown one-sided operation '" + name + "'");
}

RmaSync parse_rma_sync(const std::string& name) {
  if (name == "fence") return RmaSync::fence;
  if (name == "lock") return RmaSync::lock;
  if (name == "pscw") return RmaSync::pscw;
  throw std::invalid_argument("unknown synchronisation '" + name + "'");
}

namespace {

constexpr int kWindowInts = 4096;

// Elements moved per operation toward target t: varies with the target so that pairs differ.
int elements_for(RmaOp op, int target) {
  if (op == RmaOp::fetch_and_op || op == RmaOp::compare_and_swap) return 1;
  return 7 + 300 * target;
}

class Epoch {
 public:
  Epoch(MPI_Win win, RmaSync sync, MPI_Group group) : win_(win), sync_(sync), group_(group) {
    if (sync_ == RmaSync::fence) check(MPI_Win_fence(0, win_), "MPI_Win_fence");
    if (sync_ == RmaSync::pscw) {
      check(MPI_Win_post(group_, 0, win_), "MPI_Win_post");
      check(MPI_Win_start(group_, 0, win_), "MPI_Win_start");
    }
  }
  ~Epoch() {
    if (sync_ == RmaSync::fence) check(MPI_Win_fence(0, win_), "MPI_Win_fence");
    if (sync_ == RmaSync::pscw) {
      check(MPI_Win_complete(win_), "MPI_Win_complete");
      check(MPI_Win_wait(win_), "MPI_Win_wait");
    }
  }
  Epoch(const Epoch&) = delete;
  Epoch& operator=(const Epoch&) = delete;
  // With lock synchronisation every access is its own passive-target epoch.
  void lock(int target) const {
    if (sync_ == RmaSync::lock) check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win_), "MPI_Win_lock");
  }
  void unlock(int target) const {
    if (sync_ == RmaSync::lock) check(MPI_Win_unlock(target, win_), "MPI_Win_unlock");
  }

 private:
  MPI_Win win_;
  RmaSync sync_;
  MPI_Group group_;
};

void issue(RmaOp op, int target, int n, std::vector<int>& origin, std::vector<int>& result, MPI_Win win) {
  switch (op) {
    case RmaOp::put:
      check(MPI_Put(origin.data(), n, MPI_INT, target, 0, n, MPI_INT, win), "MPI_Put");
      break;
    case RmaOp::get:
      check(MPI_Get(result.data(), n, MPI_INT, target, 0, n, MPI_INT, win), "MPI_Get");
      break;
    case RmaOp::accumulate:
      check(MPI_Accumulate(origin.data(), n, MPI_INT, target, 0, n, MPI_INT, MPI_SUM, win), "MPI_Accumulate");
      break;
    case RmaOp::get_accumulate:
      check(
          MPI_Get_accumulate(origin.data(), n, MPI_INT, result.data(), n, MPI_INT, target, 0, n, MPI_INT, MPI_SUM, win),
          "MPI_Get_accumulate");
      break;
    case RmaOp::fetch_and_op:
      check(MPI_Fetch_and_op(origin.data(), result.data(), MPI_INT, target, 0, MPI_SUM, win), "MPI_Fetch_and_op");
      break;
    case RmaOp::compare_and_swap:
      check(MPI_Compare_and_swap(origin.data(), origin.data() + 1, result.data(), MPI_INT, target, 0, win),
            "MPI_Compare_and_swap");
      break;
  }
}

void record(RmaOp op, std::uint32_t target, int n, Ledger& ledger) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(n) * sizeof(int);
  const bool fetches = op != RmaOp::put && op != RmaOp::accumulate;
  ledger.record(TrafficClass::osc_sent, target, op == RmaOp::get ? 0 : bytes);
  if (fetches) ledger.record(TrafficClass::osc_recv, target, bytes);
}

}  // namespace

void run_rma(MPI_Comm comm, RmaOp op, RmaSync sync, bool control, Ledger& ledger) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  const std::vector<std::uint32_t> world = world_ranks(comm);
  std::vector<int> window(kWindowInts, 1), origin(kWindowInts, 2), result(kWindowInts, 0);
  MPI_Win win;
  check(MPI_Win_create(window.data(), kWindowInts * sizeof(int), sizeof(int), MPI_INFO_NULL, comm, &win),
        "MPI_Win_create");
  MPI_Group group;
  MPI_Comm_group(comm, &group);
  {
    Epoch epoch(win, sync, group);
    for (int target = 0; target < size && !control; ++target) {
      const int n = elements_for(op, target);
      epoch.lock(target);
      issue(op, target, n, origin, result, win);
      epoch.unlock(target);
      record(op, world[static_cast<std::size_t>(target)], n, ledger);
    }
    if (control && sync == RmaSync::lock) {
      for (int target = 0; target < size; ++target) {
        epoch.lock(target);
        epoch.unlock(target);
      }
    }
  }
  MPI_Group_free(&group);
  check(MPI_Win_free(&win), "MPI_Win_free");
}

}  // namespace mpimon::workloads
