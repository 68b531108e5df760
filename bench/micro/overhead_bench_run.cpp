// One benchmark of mpimon-overhead-bench: the kernel of an (operation, size), its timed loop, the
// interleaved blocks, the samples and the summary counters.

#include "overhead_bench.hpp"

#include <time.h>

#include <algorithm>

#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/overhead_design/bench_files.hpp"
#include "mpimon/overhead_design/interleave.hpp"

namespace mpimon::bench {

namespace {

using mpimon::mpi::check;

constexpr int kTag = 201;

// Buffers, peers and window of one (op, size); the constructor and destructor are collective.
class Kernel {
 public:
  Kernel(Op op, int size, int rank, int np, const mpimon::bench::BenchClock& clock)
      : clock_(clock),
        op_(op),
        size_(size),
        rank_(rank),
        to_((rank + 1) % np),
        from_((rank + np - 1) % np),
        partner_(rank ^ 1) {
    const std::size_t bytes = std::max<std::size_t>(static_cast<std::size_t>(size), 1);
    const std::size_t per_peer = op == Op::alltoall ? static_cast<std::size_t>(np) : 1;
    send_.assign(bytes * per_peer, static_cast<char>(rank + 1));
    recv_.assign(bytes * per_peer, 0);
    if (is_rma(op)) {
      target_.assign(bytes, 0);
      check(MPI_Win_create(target_.data(), static_cast<MPI_Aint>(target_.size()), 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                           &win_),
            "MPI_Win_create");
      if (op == Op::put_flush || op == Op::get_flush) check(MPI_Win_lock_all(0, win_), "MPI_Win_lock_all");
    }
  }
  ~Kernel() {
    if (win_ == MPI_WIN_NULL) return;
    if (op_ == Op::put_flush || op_ == Op::get_flush) check(MPI_Win_unlock_all(win_), "MPI_Win_unlock_all");
    check(MPI_Win_free(&win_), "MPI_Win_free");
  }
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  // One iteration: untimed synchronisation, then the timed operation; returns this rank's time in
  // raw clock units (BenchClock::to_ns converts).
  std::int64_t iteration() {
    MPI_Comm world = MPI_COMM_WORLD;
    std::int64_t t0 = 0, t1 = 0;
    int rc = MPI_SUCCESS;
    switch (op_) {
      case Op::send: {
        // The receive is posted before the barrier, so the timed send never meets an unexpected
        // message path at the receiver; only the local MPI_Send is timed (software cost).
        MPI_Request request;
        check(MPI_Irecv(recv_.data(), size_, MPI_BYTE, from_, kTag, world, &request), "MPI_Irecv");
        check(MPI_Barrier(world), "MPI_Barrier");
        t0 = clock_.now();
        rc = MPI_Send(send_.data(), size_, MPI_BYTE, to_, kTag, world);
        t1 = clock_.now();
        check(rc, "MPI_Send");
        check(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait");
        return t1 - t0;
      }
      case Op::pingpong: {
        // The even rank of each pair times one round trip; the odd rank reports 0, so the maximum
        // over ranks is the slowest pair's round trip / 2.
        check(MPI_Barrier(world), "MPI_Barrier");
        if (rank_ % 2 == 0) {
          t0 = clock_.now();
          rc = MPI_Send(send_.data(), size_, MPI_BYTE, partner_, kTag, world);
          if (rc == MPI_SUCCESS) rc = MPI_Recv(recv_.data(), size_, MPI_BYTE, partner_, kTag, world, MPI_STATUS_IGNORE);
          t1 = clock_.now();
          check(rc, "ping-pong");
          return (t1 - t0) / 2;
        }
        check(MPI_Recv(recv_.data(), size_, MPI_BYTE, partner_, kTag, world, MPI_STATUS_IGNORE), "MPI_Recv");
        check(MPI_Send(send_.data(), size_, MPI_BYTE, partner_, kTag, world), "MPI_Send");
        return 0;
      }
      case Op::bcast:
        check(MPI_Barrier(world), "MPI_Barrier");
        t0 = clock_.now();
        rc = MPI_Bcast(send_.data(), size_, MPI_BYTE, 0, world);
        t1 = clock_.now();
        check(rc, "MPI_Bcast");
        return t1 - t0;
      case Op::alltoall:
        check(MPI_Barrier(world), "MPI_Barrier");
        t0 = clock_.now();
        rc = MPI_Alltoall(send_.data(), size_, MPI_BYTE, recv_.data(), size_, MPI_BYTE, world);
        t1 = clock_.now();
        check(rc, "MPI_Alltoall");
        return t1 - t0;
      case Op::put_lock:
        check(MPI_Barrier(world), "MPI_Barrier");
        check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, to_, 0, win_), "MPI_Win_lock");
        t0 = clock_.now();
        rc = MPI_Put(send_.data(), size_, MPI_BYTE, to_, 0, size_, MPI_BYTE, win_);
        if (rc == MPI_SUCCESS) rc = MPI_Win_unlock(to_, win_);
        t1 = clock_.now();
        check(rc, "MPI_Put + MPI_Win_unlock");
        return t1 - t0;
      case Op::get_lock:
        check(MPI_Barrier(world), "MPI_Barrier");
        check(MPI_Win_lock(MPI_LOCK_SHARED, to_, 0, win_), "MPI_Win_lock");
        t0 = clock_.now();
        rc = MPI_Get(recv_.data(), size_, MPI_BYTE, to_, 0, size_, MPI_BYTE, win_);
        if (rc == MPI_SUCCESS) rc = MPI_Win_unlock(to_, win_);
        t1 = clock_.now();
        check(rc, "MPI_Get + MPI_Win_unlock");
        return t1 - t0;
      case Op::put_flush:
        check(MPI_Barrier(world), "MPI_Barrier");
        t0 = clock_.now();
        rc = MPI_Put(send_.data(), size_, MPI_BYTE, to_, 0, size_, MPI_BYTE, win_);
        if (rc == MPI_SUCCESS) rc = MPI_Win_flush(to_, win_);
        t1 = clock_.now();
        check(rc, "MPI_Put + MPI_Win_flush");
        return t1 - t0;
      case Op::get_flush:
        check(MPI_Barrier(world), "MPI_Barrier");
        t0 = clock_.now();
        rc = MPI_Get(recv_.data(), size_, MPI_BYTE, to_, 0, size_, MPI_BYTE, win_);
        if (rc == MPI_SUCCESS) rc = MPI_Win_flush(to_, win_);
        t1 = clock_.now();
        check(rc, "MPI_Get + MPI_Win_flush");
        return t1 - t0;
    }
    return 0;
  }

 private:
  const mpimon::bench::BenchClock& clock_;
  Op op_;
  int size_, rank_, to_, from_, partner_;
  std::vector<char> send_, recv_, target_;
  MPI_Win win_ = MPI_WIN_NULL;
};

// Quantile of sorted values, linear interpolation between order statistics (R's type 7, as the
// harness's own summaries; test_overhead takes the order statistic at floor(q (n - 1)) instead).
double quantile(const std::vector<std::int64_t>& sorted, double q) {
  const double h = static_cast<double>(sorted.size() - 1) * q;
  const auto lo = static_cast<std::size_t>(h);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return static_cast<double>(sorted[lo]) + (h - static_cast<double>(lo)) * static_cast<double>(sorted[hi] - sorted[lo]);
}

}  // namespace

void run_benchmark(benchmark::State& state, Op op, int size, const RunSettings& s) {
  Kernel kernel(op, size, s.rank, s.np, s.clock);
  std::vector<std::int64_t> local(static_cast<std::size_t>(s.iterations)), maxima(local.size());
  mpimon::BenchmarkBlocks blocks;  // per block: switched on or off, collective records counted
  for (auto _ : state) {
    if (s.switcher) s.switcher->set(false);  // the warm-up and everything outside on-blocks: off
    for (int i = 0; i < s.warmup; ++i) kernel.iteration();
    if (s.block_length == 0) {
      for (auto& t : local) t = kernel.iteration();
    } else {
      const auto length = static_cast<std::size_t>(s.block_length);
      for (std::size_t k = 0; k * length < local.size(); ++k) {
        s.switcher->set(mpimon::abba_on(k));
        const auto before = s.switcher->counted();
        for (std::size_t i = k * length; i < (k + 1) * length; ++i) local[i] = kernel.iteration();
        const auto after = s.switcher->counted();
        blocks.states += mpimon::abba_on(k) ? '1' : '0';
        blocks.counted.push_back(before && after ? std::optional(*after - *before) : std::nullopt);
      }
      s.switcher->set(false);
    }
    for (auto& t : local) t = s.clock.to_ns(t);
    // The only collective of the measurement, after the loop: per-iteration maxima over ranks,
    // bit-identical everywhere, so every rank reports the same manual time.
    check(MPI_Allreduce(local.data(), maxima.data(), static_cast<int>(maxima.size()), MPI_INT64_T, MPI_MAX,
                        MPI_COMM_WORLD),
          "MPI_Allreduce");
    std::int64_t sum = 0;
    for (auto t : maxima) sum += t;
    state.SetIterationTime(static_cast<double>(sum) * 1e-9);
  }
  if (s.blocks) {
    blocks.op = op_name(op);
    blocks.size = static_cast<std::uint64_t>(size);
    blocks.block_length = static_cast<std::uint64_t>(s.block_length);
    std::fputs(mpimon::blocks_line(blocks).c_str(), s.blocks);
    std::fflush(s.blocks);
  }
  if (s.samples) {
    std::fputs(mpimon::samples_line(op_name(op), static_cast<std::uint64_t>(size), maxima).c_str(), s.samples);
    std::fflush(s.samples);
  }
  std::vector<std::int64_t> sorted = maxima;
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (auto t : sorted) sum += static_cast<double>(t);
  state.counters["median_ns"] = quantile(sorted, 0.5);
  state.counters["q1_ns"] = quantile(sorted, 0.25);
  state.counters["q3_ns"] = quantile(sorted, 0.75);
  state.counters["d1_ns"] = quantile(sorted, 0.1);
  state.counters["d9_ns"] = quantile(sorted, 0.9);
  state.counters["mean_ns"] = sum / static_cast<double>(sorted.size());
  state.counters["min_ns"] = static_cast<double>(sorted.front());
  state.counters["max_ns"] = static_cast<double>(sorted.back());
  state.counters["bytes"] = size;
  state.counters["np"] = s.np;
  state.counters["samples"] = s.iterations;
  state.SetLabel(op_name(op));
}

}  // namespace mpimon::bench
