#pragma once
// What the parts of mpimon-overhead-bench share (bench/micro/overhead_bench*.cpp): its options,
// the provenance it records, the switch of the interleaved design and one benchmark's run.

#include <benchmark/benchmark.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench_clock.hpp"
#include "mpimon/mpi/mpit.hpp"
#include "mpimon/overhead_design/operations.hpp"

namespace mpimon::bench {

using Op = BenchOp;
inline const char* op_name(Op op) { return to_name(kBenchOpNames, op); }
inline std::vector<Op> all_ops() {
  std::vector<Op> ops;
  for (const auto& entry : kBenchOpNames) ops.push_back(entry.value);
  return ops;
}

// ---- options (overhead_bench_options.cpp) ----------------------------------------------------

/// The program's --help: its options, the operations of kBenchOpNames and the named sizes.
std::string usage();

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<Op> ops{all_ops()};
  std::vector<int> sizes;
  std::string sizes_spec = "paper";
  int iterations = 1000;
  int warmup = 100;
  std::uint64_t seed = 12345;
  std::string samples;
  bool mpit_off = false;
  std::string clock = "auto";
  int interleave = 0;  // block length; 0: one arm per launch
  std::string switch_kind = "mpit", blocks;
  bool help = false;
  std::vector<std::string> benchmark_args;  // everything else, for Google Benchmark
};

Options parse_options(int argc, char** argv);
std::string join(const std::vector<int>& values);

// ---- provenance and agreement across ranks (overhead_bench_context.cpp) ----------------------

/// True when every rank says ok; otherwise the lowest failing rank prints its message.
bool agree(bool ok, const std::string& message, int rank, int np);
std::string mpi_library_version();
std::string mca_settings();
std::string monitoring_state(const Options& o);
std::string gather_binding(int rank, int np);
std::string calibration_description();
std::string window_error();
inline constexpr const char* kRmaSync =
    "put_lock/get_lock: MPI_Win_lock(exclusive for put, shared for get, target to) untimed, then "
    "MPI_Put/MPI_Get + MPI_Win_unlock timed (as test_overhead); put_flush/get_flush: one "
    "MPI_Win_lock_all epoch around warm-up and timed loop, MPI_Put/MPI_Get + MPI_Win_flush(to) timed; "
    "windows from MPI_Win_create, one per (op, size), target to = (rank + 1) % np, displacement 0";

// ---- one benchmark (overhead_bench_run.cpp) -------------------------------------------------

// What the interleaved design switches per block: the monitoring's counting through MPI_T, or the
// calibration library's loop. Switching is local to each rank; all ranks switch at the same
// iteration, and the next iteration's barrier lines them up.
class Switch {
 public:
  // MPI_T: the handle on coll_monitoring_messages_count started (counting on) or stopped (off).
  // In Open MPI every monitoring handle's start and stop set one global state that the pml, osc
  // and coll components all test before recording (docs/defects.md, stopping-one-handle-stops-all),
  // so this one handle switches all counting; its values, read per block, show that it did.
  Switch(mpimon::mpi::PvarSession& pvars, int index) : pvars_(&pvars), handle_(pvars.start(index, MPI_COMM_WORLD)) {}
  // The calibration library's mpimon_pmpi_delay_set_active.
  explicit Switch(int (*set_active)(int)) : set_active_(set_active) {}

  void set(bool on) {
    if (on == on_) return;
    on_ = on;
    if (set_active_) {
      set_active_(on ? 1 : 0);
    } else if (on) {
      pvars_->restart(handle_);
    } else {
      pvars_->stop(handle_);
    }
  }
  // Collective records counted so far by this rank (sum over peers), when the switch can read them.
  std::optional<std::uint64_t> counted() {
    if (!pvars_) return std::nullopt;
    std::uint64_t sum = 0;
    for (auto v : pvars_->read(handle_)) sum += v;
    return sum;
  }

 private:
  mpimon::mpi::PvarSession* pvars_ = nullptr;
  std::size_t handle_ = 0;
  int (*set_active_)(int) = nullptr;
  bool on_ = true;  // a freshly started handle counts; the library starts active
};

struct RunSettings {
  int iterations, warmup, rank, np;
  const mpimon::bench::BenchClock& clock;
  int block_length;    // 0: not interleaved
  Switch* switcher;    // interleaved only
  std::FILE* blocks;   // rank 0 only, may be null
  std::FILE* samples;  // rank 0 only, may be null
};

void run_benchmark(benchmark::State& state, Op op, int size, const RunSettings& s);

}  // namespace mpimon::bench
