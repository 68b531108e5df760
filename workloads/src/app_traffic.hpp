#pragma once
// The communication layer of the application workloads (app_*.cpp): every call is recorded in
// the ledger, counted and timed, so each workload reports its communication share and the
// monitoring can be compared with what it sent.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mpimon/models/ledger.hpp"
#include "mpimon/workloads/app_workloads.hpp"

namespace mpimon::workloads {

class Traffic {
 public:
  /// `renumbered`: comm may hold the world's processes in another order (WorkloadOptions::renumbered).
  Traffic(MPI_Comm comm, Ledger& ledger, bool inject_error, bool renumbered = false);

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }

  /// Non-blocking send of `count` doubles (never a persistent request: Open MPI 4.1 does not
  /// count those, docs/defects.md). With inject_error, rank 0's third message of the timed loop
  /// is corrupted (1 added to every value) before it leaves: the workload's check must fail.
  void isend(double* data, std::size_t count, int dest, int tag);
  void irecv(double* data, std::size_t count, int source, int tag);
  void recv(double* data, std::size_t count, int source, int tag);
  void wait_all();
  /// MPI_Allreduce(MPI_SUM) of `n` doubles on the communicator, recorded as RR-9038 models an
  /// all-to-all collective: each process sends its n doubles to each other process.
  void allreduce_sum(double* values, int n);

  /// The timed loop: counts, bytes and communication time accumulate between these two calls.
  void start_loop();
  void stop_loop();

  /// Every rank's `values` at rank 0 (rank-major; empty elsewhere), by point-to-point messages
  /// (recorded in the ledger, outside the timed loop), so that workloads without collectives
  /// stay free of them.
  std::vector<double> gather_to_root(const std::vector<double>& values);

  /// Fills the timing and traffic fields of `report` on rank 0 (every rank must call it).
  void summarise(WorkloadReport& report);

 private:
  class CommTimer;
  void count_message(std::size_t bytes);

  MPI_Comm comm_;
  Ledger& ledger_;
  int rank_ = 0, size_ = 1;
  std::string comm_name_;
  bool inject_error_ = false;
  bool in_loop_ = false;
  std::vector<MPI_Request> pending_;
  double loop_start_ = 0, loop_seconds_ = 0, comm_seconds_ = 0;
  std::uint64_t messages_ = 0, bytes_ = 0, collectives_ = 0;
};

/// `flops` dependent floating-point operations (multiply-adds, one after the other) that the
/// compiler cannot remove: the compute knob.
void burn_flops(double flops);

}  // namespace mpimon::workloads
