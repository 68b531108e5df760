// mpimon-gate-probe: the program `mpimon gate` runs under callgrind to count the instructions
// monitoring adds per operation (docs/gate.md). Rank 0 runs under valgrind (an MPMD launch line),
// the other ranks natively. For each operation, rank 0 collects instructions only around a loop of
// N operations, dumps the counts, then around a loop of 2N operations, and dumps again; the gate
// reads the two dumps and keeps (cost(2N) - cost(N)) / N, which removes any one-off cost.
//
// Usage: mpimon-gate-probe [--ops LIST] [--count N] [--size BYTES] [--warmup W]
//   --ops    comma list of send, put, get, bcast, allreduce, alltoall (default: all)
//   --count  N, the operations of the first loop (the second has 2N), default 100
//   --size   message size in bytes (a multiple of 8), default 8
//   --warmup untimed operations first (lazy connection setup, caches), default 20
// Outside valgrind the client requests are no-ops, so the program also runs (and is tested) alone.

#include <mpi.h>
#include <valgrind/callgrind.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/mpi/mpi_support.hpp"

namespace {

using mpimon::mpi::check;

constexpr std::string_view kOps[] = {"send", "put", "get", "bcast", "allreduce", "alltoall"};
constexpr int kTag = 301;

struct Options {
  std::vector<std::string> ops{std::begin(kOps), std::end(kOps)};
  int count = 100, size = 8, warmup = 20;
};

bool parse_int(std::string_view text, int min, int max, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc{} && end == text.data() + text.size() && out >= min && out <= max;
}

// Returns "" or the reason the command line is wrong.
std::string parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view key = argv[i];
    if (i + 1 >= argc) return std::string(key) + " needs a value";
    const std::string_view value = argv[++i];
    if (key == "--ops") {
      o.ops.clear();
      for (std::size_t start = 0; start <= value.size();) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        const std::string_view op = value.substr(start, comma - start);
        bool known = false;
        for (auto k : kOps) known = known || k == op;
        if (!known) return "--ops: unknown operation '" + std::string(op) + "'";
        o.ops.emplace_back(op);
        start = comma + 1;
      }
    } else if (key == "--count") {
      if (!parse_int(value, 1, 1000000, o.count)) return "--count: not an integer in [1, 1000000]";
    } else if (key == "--size") {
      if (!parse_int(value, 8, 1 << 20, o.size) || o.size % 8 != 0) return "--size: not a multiple of 8 in [8, 1 MiB]";
    } else if (key == "--warmup") {
      if (!parse_int(value, 0, 1000000, o.warmup)) return "--warmup: not an integer in [0, 1000000]";
    } else {
      return "unknown argument '" + std::string(key) + "'";
    }
  }
  return {};
}

// Buffers and window of one operation; construction and destruction are collective.
class Operation {
 public:
  Operation(std::string name, int size, int rank, int np)
      : name_(std::move(name)),
        size_(size),
        rank_(rank),
        np_(np),
        send_(static_cast<std::size_t>(size) * static_cast<std::size_t>(np), static_cast<char>(rank + 1)),
        recv_(send_.size(), 0) {
    if (name_ == "put" || name_ == "get") {
      check(MPI_Win_create(recv_.data(), static_cast<MPI_Aint>(recv_.size()), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win_),
            "MPI_Win_create");
      check(MPI_Win_lock_all(0, win_), "MPI_Win_lock_all");
    }
  }
  ~Operation() {
    if (win_ == MPI_WIN_NULL) return;
    check(MPI_Win_unlock_all(win_), "MPI_Win_unlock_all");
    check(MPI_Win_free(&win_), "MPI_Win_free");
  }
  Operation(const Operation&) = delete;
  Operation& operator=(const Operation&) = delete;

  // n operations. Point-to-point and one-sided: rank 0 acts, rank 1 receives or is the target;
  // collectives: every rank. Receives are posted before the barrier that precedes the loop.
  void loop(int n, bool measured) {
    std::vector<MPI_Request> receives;
    if (name_ == "send" && rank_ == 1) {
      receives.resize(static_cast<std::size_t>(n));
      for (auto& r : receives)
        check(MPI_Irecv(recv_.data(), size_, MPI_BYTE, 0, kTag, MPI_COMM_WORLD, &r), "MPI_Irecv");
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (measured) CALLGRIND_TOGGLE_COLLECT;
    for (int i = 0; i < n; ++i) once();
    if (measured) CALLGRIND_TOGGLE_COLLECT;
    if (!receives.empty()) {
      check(MPI_Waitall(n, receives.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    }
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
  }

 private:
  void once() {
    const int count64 = size_ / 8;
    if (name_ == "send") {
      if (rank_ == 0) check(MPI_Send(send_.data(), size_, MPI_BYTE, 1, kTag, MPI_COMM_WORLD), "MPI_Send");
    } else if (name_ == "put") {
      if (rank_ == 0) {
        check(MPI_Put(send_.data(), size_, MPI_BYTE, 1, 0, size_, MPI_BYTE, win_), "MPI_Put");
        check(MPI_Win_flush(1, win_), "MPI_Win_flush");
      }
    } else if (name_ == "get") {
      if (rank_ == 0) {
        check(MPI_Get(send_.data(), size_, MPI_BYTE, 1, 0, size_, MPI_BYTE, win_), "MPI_Get");
        check(MPI_Win_flush(1, win_), "MPI_Win_flush");
      }
    } else if (name_ == "bcast") {
      check(MPI_Bcast(send_.data(), size_, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    } else if (name_ == "allreduce") {
      check(MPI_Allreduce(send_.data(), recv_.data(), count64, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    } else if (name_ == "alltoall") {
      check(MPI_Alltoall(send_.data(), size_, MPI_BYTE, recv_.data(), size_, MPI_BYTE, MPI_COMM_WORLD), "MPI_Alltoall");
    }
  }

  std::string name_;
  int size_, rank_, np_;
  std::vector<char> send_, recv_;
  MPI_Win win_ = MPI_WIN_NULL;
};

// Callgrind writes the counts collected since the last dump to a new file, labelled with `label`.
void dump(const std::string& label) { CALLGRIND_DUMP_STATS_AT(label.c_str()); }

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session mpi(argc, argv);
  Options options;
  const std::string error = parse(argc, argv, options);
  if (!error.empty() || mpi.size() != 2) {
    if (mpi.rank() == 0) {
      std::fprintf(stderr, "mpimon-gate-probe: error: %s\n",
                   error.empty() ? "needs exactly 2 processes" : error.c_str());
    }
    return 2;
  }
  for (const auto& name : options.ops) {
    Operation op(name, options.size, mpi.rank(), mpi.size());
    op.loop(options.warmup, false);
    for (int n : {options.count, 2 * options.count}) {
      op.loop(n, true);
      if (mpi.rank() == 0) dump("mpimon-gate " + name + " " + std::to_string(options.size) + " " + std::to_string(n));
    }
  }
  if (mpi.rank() == 0) std::printf("mpimon-gate-probe: done\n");
  return 0;
}
