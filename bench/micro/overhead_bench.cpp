// mpimon-overhead-bench: the micro-benchmark program that `mpimon bench overhead` launches with
// monitoring off and on (docs/benchmarks.md). One Google Benchmark run per (operation, size); each
// run executes a fixed loop of W untimed and N timed iterations, identical on every rank, and
// reports the per-iteration maximum over ranks.
//
// Usage: mpimon-overhead-bench [--ops LIST] [--sizes LIST|paper|quick] [--iterations N]
//                              [--warmup W] [--seed S] [--samples FILE] [--mpit-off]
//                              [--clock auto|tsc|monotonic] [--interleave B [--switch mpit|delay] [--blocks FILE]]
//                              [Google Benchmark flags, e.g. --benchmark_out=F.json]

#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <mpi.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench_clock.hpp"
#include "mpimon/base/names.hpp"
#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/mpi/mpit.hpp"
#include "mpimon/overhead_design/interleave.hpp"

extern char** environ;

namespace {

using mpimon::mpi::check;

// ---- operations, sizes, options -------------------------------------------------------------

enum class Op { send, pingpong, bcast, alltoall, put_lock, put_flush, get_lock, get_flush };
constexpr std::array kAllOps = {Op::send,     Op::pingpong,  Op::bcast,    Op::alltoall,
                                Op::put_lock, Op::put_flush, Op::get_lock, Op::get_flush};

constexpr std::array<mpimon::Named<Op>, kAllOps.size()> kOpNames{{{Op::send, "send"},
                                                                  {Op::pingpong, "pingpong"},
                                                                  {Op::bcast, "bcast"},
                                                                  {Op::alltoall, "alltoall"},
                                                                  {Op::put_lock, "put_lock"},
                                                                  {Op::put_flush, "put_flush"},
                                                                  {Op::get_lock, "get_lock"},
                                                                  {Op::get_flush, "get_flush"}}};

const char* op_name(Op op) { return mpimon::to_name(kOpNames, op); }

bool is_rma(Op op) { return op == Op::put_lock || op == Op::put_flush || op == Op::get_lock || op == Op::get_flush; }

constexpr std::string_view kUsage =
    "usage: mpimon-overhead-bench [--ops LIST] [--sizes LIST|paper|quick] [--iterations N] [--warmup W]\n"
    "                             [--seed S] [--samples FILE] [--mpit-off] [--benchmark_* flags]\n"
    "  --ops LIST      comma list of send,pingpong,bcast,alltoall,put_lock,put_flush,get_lock,get_flush\n"
    "                  (put = put_lock, get = get_lock); default: all\n"
    "  --sizes SPEC    comma list of byte counts, 'paper' (44 sizes 0..1 MiB, default) or 'quick' (0,8,1024,65536)\n"
    "  --iterations N  timed iterations per (op, size), default 1000\n"
    "  --warmup W      untimed iterations before them, default 100\n"
    "  --seed S        seed of the shuffled run order (rank 0's value is used), default 12345\n"
    "  --samples FILE  rank 0 writes every per-iteration maximum: op<TAB>size<TAB>v1,...,vN (ns)\n"
    "  --mpit-off      switch Open MPI's monitoring off through MPI_T right after MPI_Init\n"
    "  --interleave B  interleaved design: timed iterations in blocks of B, the cost switched on and off in\n"
    "                  ABBA order (iterations must be a multiple of 2B)\n"
    "  --switch S      what --interleave switches: mpit (monitoring's counting, default) or delay (the\n"
    "                  calibration library's loop)\n"
    "  --blocks FILE   rank 0 writes each run's blocks: op<TAB>size<TAB>B<TAB>states<TAB>counted\n"
    "  --clock C       auto (the invariant TSC when usable on every rank, default), tsc (or fail), monotonic\n"
    "See docs/benchmarks.md.\n";

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Options {
  std::vector<Op> ops{kAllOps.begin(), kAllOps.end()};
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

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

template <class T>
T parse_number(std::string_view text, std::string_view what, T min, T max) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < min || value > max)
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not an integer in [" + std::to_string(min) +
                     ", " + std::to_string(max) + "]");
  return value;
}

// The sizes of Open MPI's test_overhead: from 0, next = floor(1.4 x) if that is larger, else x + 1,
// while below 1.4 MiB: 44 sizes, the last 1385027. We clamp that last one to 1 MiB so that the
// sweep spans exactly 0..1 MiB (docs/benchmarks.md).
std::vector<int> paper_sizes() {
  std::vector<int> sizes;
  for (int x = 0; x < 1024 * 1024 * 1.4;) {
    sizes.push_back(x);
    const int next = static_cast<int>(x * 1.4);
    x = next > x ? next : x + 1;
  }
  sizes.back() = 1024 * 1024;
  return sizes;
}

std::vector<Op> parse_ops(std::string_view list) {
  std::vector<Op> ops;
  for (std::string_view name : split(list, ',')) {
    std::optional<Op> op = mpimon::from_name(kOpNames, name);
    if (name == "put") op = Op::put_lock;  // the short names of the locked forms
    if (name == "get") op = Op::get_lock;
    if (!op) throw UsageError("--ops: unknown operation '" + std::string(name) + "'");
    if (std::find(ops.begin(), ops.end(), *op) != ops.end())
      throw UsageError("--ops: '" + std::string(name) + "' given twice");
    ops.push_back(*op);
  }
  return ops;
}

std::vector<int> parse_sizes(std::string_view spec) {
  if (spec == "paper") return paper_sizes();
  if (spec == "quick") return {0, 8, 1024, 65536};
  std::vector<int> sizes;
  for (std::string_view item : split(spec, ',')) {
    const int size = parse_number<int>(item, "--sizes", 0, std::numeric_limits<int>::max());
    if (std::find(sizes.begin(), sizes.end(), size) != sizes.end())
      throw UsageError("--sizes: " + std::to_string(size) + " given twice");
    sizes.push_back(size);
  }
  return sizes;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::string_view key = arg, value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      key = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto take_value = [&]() -> std::string_view {
      if (has_value) return value;
      if (i + 1 >= argc) throw UsageError(std::string(key) + " needs a value");
      return argv[++i];
    };
    if (key == "--ops") {
      o.ops = parse_ops(take_value());
    } else if (key == "--sizes") {
      o.sizes_spec = take_value();
    } else if (key == "--iterations") {
      o.iterations = parse_number<int>(take_value(), "--iterations", 1, 100'000'000);
    } else if (key == "--warmup") {
      o.warmup = parse_number<int>(take_value(), "--warmup", 0, 100'000'000);
    } else if (key == "--seed") {
      o.seed = parse_number<std::uint64_t>(take_value(), "--seed", 0, std::numeric_limits<std::uint64_t>::max());
    } else if (key == "--samples") {
      o.samples = take_value();
      if (o.samples.empty()) throw UsageError("--samples needs a file name");
    } else if (key == "--interleave") {
      o.interleave = parse_number<int>(take_value(), "--interleave", 1, 100'000'000);
    } else if (key == "--switch") {
      o.switch_kind = take_value();
      if (o.switch_kind != "mpit" && o.switch_kind != "delay")
        throw UsageError("--switch: '" + o.switch_kind + "' is not mpit or delay");
    } else if (key == "--blocks") {
      o.blocks = take_value();
      if (o.blocks.empty()) throw UsageError("--blocks needs a file name");
    } else if (key == "--clock") {
      o.clock = take_value();
      if (o.clock != "auto" && o.clock != "tsc" && o.clock != "monotonic")
        throw UsageError("--clock: '" + o.clock + "' is not auto, tsc or monotonic");
    } else if (arg == "--mpit-off") {
      o.mpit_off = true;
    } else if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else {
      // These would break the fixed, rank-identical run structure (or, for repetitions, the
      // one-samples-line-per-benchmark rule): random interleaving shuffles per rank.
      for (const char* banned :
           {"--benchmark_enable_random_interleaving", "--benchmark_repetitions", "--benchmark_min_warmup_time"})
        if (key == banned)
          throw UsageError(std::string(banned) +
                           " is not supported: the order is shuffled with --seed, repeat by launching again");
      o.benchmark_args.emplace_back(arg);
    }
  }
  if (o.interleave > 0) {
    if (const std::string e =
            mpimon::abba_plan_error(static_cast<std::size_t>(o.iterations), static_cast<std::size_t>(o.interleave));
        !e.empty())
      throw UsageError("--interleave: " + e);
    if (o.mpit_off) throw UsageError("--interleave and --mpit-off: give one");
  }
  o.sizes = parse_sizes(o.sizes_spec);
  if (o.sizes.empty()) throw UsageError("--sizes: empty list");
  return o;
}

std::string join(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

// ---- helpers --------------------------------------------------------------------------------

// True when every rank says ok; otherwise the lowest failing rank prints its message.
bool agree(bool ok, const std::string& message, int rank, int np) {
  const int mine = ok ? np : rank;
  int first_failing = np;
  check(MPI_Allreduce(&mine, &first_failing, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  if (first_failing == rank) std::fprintf(stderr, "mpimon-overhead-bench: error: %s\n", message.c_str());
  return first_failing == np;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(std::max(len, 0)));
  s = s.substr(0, s.find('\n'));
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

// Rank 0's OMPI_MCA_* variables as key=value;... (sorted, prefix removed), without the per-launch
// bookkeeping mpirun itself sets (job id, URIs, session directories), which differ on every launch.
std::string mca_settings() {
  constexpr std::array kLauncherKeys = {"ess_base_jobid",       "ess_base_vpid",         "orte_ess_node_rank",
                                        "orte_hnp_uri",         "orte_local_daemon_uri", "orte_jobfam_session_dir",
                                        "orte_top_session_dir", "orte_tmpdir_base",      "orte_precondition_transports",
                                        "initial_wdir"};
  constexpr std::string_view prefix = "OMPI_MCA_";
  std::vector<std::string> items;
  for (char** e = environ; *e; ++e) {
    const std::string_view var = *e;
    if (!var.starts_with(prefix)) continue;
    const std::string_view kv = var.substr(prefix.size());
    const std::string_view key = kv.substr(0, kv.find('='));
    if (std::find(kLauncherKeys.begin(), kLauncherKeys.end(), key) != kLauncherKeys.end()) continue;
    items.emplace_back(kv);
  }
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ";") + item;
  return out;
}

std::string monitoring_state(const Options& o) {
  if (o.mpit_off) return "loaded, stopped through MPI_T";
  if (o.interleave > 0 && o.switch_kind == "mpit") return "loaded, counting switched per block through MPI_T";
  const char* enable = std::getenv("OMPI_MCA_pml_monitoring_enable");
  // (an --interleave --switch delay run reports the monitoring as launched)
  if (enable && *enable && std::string_view(enable) != "0")
    return "on (pml_monitoring_enable=" + std::string(enable) + ")";
  return "off";
}

// This rank's CPU affinity as a compact list, e.g. "0-3,6".
std::string affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "?";
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE;) {
    if (!CPU_ISSET(cpu, &set)) {
      ++cpu;
      continue;
    }
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    out += (out.empty() ? "" : ",") + std::to_string(cpu) + (last > cpu ? "-" + std::to_string(last) : "");
    cpu = last + 1;
  }
  return out;
}

// Every rank's affinity gathered to rank 0: "0:{0};1:{1}" (collective; empty on other ranks).
std::string gather_binding(int rank, int np) {
  const std::string mine = affinity();
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(static_cast<std::size_t>(np)), displs(static_cast<std::size_t>(np));
  check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  int total = 0;
  for (std::size_t r = 0; r < lens.size(); ++r) {
    displs[r] = total;
    total += lens[r];
  }
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  check(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  if (rank != 0) return {};
  std::string out;
  for (std::size_t r = 0; r < lens.size(); ++r)
    out += (r ? ";" : "") + std::to_string(r) + ":{" +
           all.substr(static_cast<std::size_t>(displs[r]), static_cast<std::size_t>(lens[r])) + "}";
  return out;
}

// The calibration library (bench/calibration/pmpi_delay.c) describes itself when it is preloaded.
std::string calibration_description() {
  using Describe = const char* (*)();
  void* symbol = dlsym(RTLD_DEFAULT, "mpimon_pmpi_delay_describe");
  if (!symbol) return "none";
  const char* text = reinterpret_cast<Describe>(symbol)();
  return std::string("libmpimon-pmpi-delay: ") + (text ? text : "?");
}

// Whether this MPI can create a window on MPI_COMM_WORLD (Open MPI 4.1 cannot on a single process:
// no osc component accepts it). Collective; errors are returned, not fatal, for this one call.
std::string window_error() {
  MPI_Errhandler previous;
  check(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &previous), "MPI_Comm_get_errhandler");
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  char byte = 0;
  MPI_Win win = MPI_WIN_NULL;
  const int rc = MPI_Win_create(&byte, 1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, previous), "MPI_Comm_set_errhandler");
  MPI_Errhandler_free(&previous);
  if (rc == MPI_SUCCESS) {
    check(MPI_Win_free(&win), "MPI_Win_free");
    return {};
  }
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return std::string(text, static_cast<std::size_t>(std::max(len, 0)));
}

constexpr const char* kRmaSync =
    "put_lock/get_lock: MPI_Win_lock(exclusive for put, shared for get, target to) untimed, then "
    "MPI_Put/MPI_Get + MPI_Win_unlock timed (as test_overhead); put_flush/get_flush: one "
    "MPI_Win_lock_all epoch around warm-up and timed loop, MPI_Put/MPI_Get + MPI_Win_flush(to) timed; "
    "windows from MPI_Win_create, one per (op, size), target to = (rank + 1) % np, displacement 0";

// ---- one benchmark --------------------------------------------------------------------------

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

void run_benchmark(benchmark::State& state, Op op, int size, const RunSettings& s) {
  Kernel kernel(op, size, s.rank, s.np, s.clock);
  std::vector<std::int64_t> local(static_cast<std::size_t>(s.iterations)), maxima(local.size());
  std::string states, counted;  // per block: switched on or off, collective records counted
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
        states += mpimon::abba_on(k) ? '1' : '0';
        counted += (k ? "," : "") + (before && after ? std::to_string(*after - *before) : std::string("-"));
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
    const std::string line = std::string(op_name(op)) + '\t' + std::to_string(size) + '\t' +
                             std::to_string(s.block_length) + '\t' + states + '\t' + counted + '\n';
    std::fputs(line.c_str(), s.blocks);
    std::fflush(s.blocks);
  }
  if (s.samples) {
    std::string line = std::string(op_name(op)) + '\t' + std::to_string(size) + '\t';
    for (std::size_t i = 0; i < maxima.size(); ++i) line += (i ? "," : "") + std::to_string(maxima[i]);
    line += '\n';
    std::fputs(line.c_str(), s.samples);
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

class NullReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

// Ends MPI_T before MPI_Finalize (Open MPI 4.1 crashes in MPI_T_finalize after it).
struct MpitGuard {
  bool active = false;
  ~MpitGuard() {
    if (active) MPI_T_finalize();
  }
};

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session mpi(argc, argv);
  const int rank = mpi.rank(), np = mpi.size();

  Options options;
  std::string usage_error;
  try {
    options = parse_options(argc, argv);
  } catch (const UsageError& e) {
    usage_error = e.what();
  }
  // Every rank parses the same command line, so all reach the same verdict and leave together.
  if (!usage_error.empty()) {
    if (rank == 0) std::fprintf(stderr, "mpimon-overhead-bench: error: %s\n%s", usage_error.c_str(), kUsage.data());
    return 2;
  }
  if (options.help) {
    if (rank == 0) std::printf("%s", kUsage.data());
    return 0;
  }

  // --mpit-off: starting then stopping one monitoring handle switches all monitoring off for the
  // rest of the run (docs/defects.md, stopping-one-handle-stops-all). The handle is kept until
  // the end, freed, never restarted.
  MpitGuard mpit;
  std::optional<mpimon::mpi::PvarSession> pvars;
  std::optional<Switch> switcher;
  if (options.interleave > 0 && options.switch_kind == "delay") {
    using SetActive = int (*)(int);
    void* symbol = dlsym(RTLD_DEFAULT, "mpimon_pmpi_delay_set_active");
    if (!agree(symbol != nullptr, "--switch delay: the calibration library libmpimon-pmpi-delay.so is not preloaded",
               rank, np))
      return 3;
    switcher.emplace(reinterpret_cast<SetActive>(symbol));
    switcher->set(false);
  }
  if (options.mpit_off || (options.interleave > 0 && options.switch_kind == "mpit")) {
    int provided = 0;
    check(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), "MPI_T_init_thread");
    mpit.active = true;
    int error = MPI_SUCCESS;
    const auto index = mpimon::mpi::find_pvar("coll_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE, &error);
    if (!agree(index.has_value(),
               std::string(options.mpit_off ? "--mpit-off" : "--interleave") +
                   ": MPI_T has no coll_monitoring_messages_count (" + mpimon::mpi::mpit_error_name(error) +
                   "): the monitoring components are not loaded",
               rank, np))
      return 3;
    pvars.emplace();
    if (options.mpit_off) {
      pvars->stop(pvars->start(*index, MPI_COMM_WORLD));
    } else {
      switcher.emplace(*pvars, *index);
      switcher->set(false);  // counting only inside on-blocks
    }
  }

  // Google Benchmark sees its own flags only; ranks > 0 never get the output file flags (each
  // rank would otherwise truncate and write the same file) and print nothing on stdout.
  std::vector<std::string> gb_args{argv[0]};
  for (const auto& a : options.benchmark_args) {
    const bool out_flag = a.starts_with("--benchmark_out=") || a.starts_with("--benchmark_out_format=");
    if (rank == 0 || !out_flag) gb_args.push_back(a);
  }
  std::vector<char*> gb_argv;
  for (auto& a : gb_args) gb_argv.push_back(a.data());
  gb_argv.push_back(nullptr);
  int gb_argc = static_cast<int>(gb_args.size());
  if (rank != 0 && !std::freopen("/dev/null", "w", stdout)) return 4;
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (gb_argc > 1) {
    if (rank == 0)
      std::fprintf(stderr, "mpimon-overhead-bench: error: unknown argument '%s'\n%s", gb_argv[1], kUsage.data());
    return 2;
  }

  // Files rank 0 writes are opened before any benchmark, so a bad path fails fast on all ranks.
  std::FILE* samples = nullptr;
  std::FILE* blocks = nullptr;
  std::string file_error;
  if (rank == 0) {
    for (const auto& a : options.benchmark_args)
      if (a.starts_with("--benchmark_out=") && !std::ofstream(a.substr(std::strlen("--benchmark_out="))))
        file_error = "cannot write " + a.substr(std::strlen("--benchmark_out="));
    if (!options.samples.empty() && !(samples = std::fopen(options.samples.c_str(), "w")))
      file_error = "cannot write --samples file " + options.samples + ": " + std::strerror(errno);
    if (!options.blocks.empty() && !(blocks = std::fopen(options.blocks.c_str(), "w")))
      file_error = "cannot write --blocks file " + options.blocks + ": " + std::strerror(errno);
  }
  if (!agree(file_error.empty(), file_error, rank, np)) return 2;

  std::uint64_t seed = options.seed;
  check(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  const std::string binding = gather_binding(rank, np);

  // The (op, size) list in a shuffled order, identical on every rank: Fisher-Yates driven by
  // mt19937_64(seed), written out so that no standard library's shuffle is involved.
  std::vector<std::pair<Op, int>> configs;
  std::string skipped;
  auto skip = [&](const std::string& what) {
    if (rank == 0) std::fprintf(stderr, "mpimon-overhead-bench: skipping %s\n", what.c_str());
    skipped += (skipped.empty() ? "" : "; ") + what;
  };
  std::string rma_error;
  if (std::any_of(options.ops.begin(), options.ops.end(), is_rma)) rma_error = window_error();
  for (Op op : options.ops) {
    if (op == Op::pingpong && np % 2 != 0) {
      skip("pingpong (needs an even number of processes, np = " + std::to_string(np) + ")");
      continue;
    }
    if (is_rma(op) && !rma_error.empty()) {
      skip(std::string(op_name(op)) + " (MPI_Win_create fails here: " + rma_error + ")");
      continue;
    }
    for (int size : options.sizes) configs.emplace_back(op, size);
  }
  std::mt19937_64 rng(seed);
  for (std::size_t i = configs.size(); i > 1; --i) std::swap(configs[i - 1], configs[rng() % i]);

  std::optional<mpimon::bench::BenchClock> clock;
  try {
    clock = mpimon::bench::BenchClock::choose(options.clock, rank, np);
  } catch (const std::runtime_error& e) {
    if (rank == 0) std::fprintf(stderr, "mpimon-overhead-bench: error: %s\n", e.what());
    return 2;
  }
  const RunSettings settings{options.iterations,
                             options.warmup,
                             rank,
                             np,
                             *clock,
                             options.interleave,
                             switcher ? &*switcher : nullptr,
                             blocks,
                             samples};
  for (const auto& [op, size] : configs) {
    const std::string name = std::string(op_name(op)) + "/" + std::to_string(size);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [op = op, size = size, &settings](benchmark::State& state) { run_benchmark(state, op, size, settings); })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }

  std::string ops_text;
  for (Op op : options.ops) ops_text += (ops_text.empty() ? "" : ",") + std::string(op_name(op));
  benchmark::AddCustomContext("mpi_library", mpi_library_version());
  benchmark::AddCustomContext("np", std::to_string(np));
  benchmark::AddCustomContext("mca", mca_settings());
  benchmark::AddCustomContext("monitoring", monitoring_state(options));
  benchmark::AddCustomContext("binding", binding);
  benchmark::AddCustomContext("timer", clock->describe());
  benchmark::AddCustomContext("clock", clock->name());
  benchmark::AddCustomContext("tsc_ticks_per_ns", clock->tsc() ? std::to_string(clock->ticks_per_ns()) : "none");
  benchmark::AddCustomContext("clock_note", clock->note());
  benchmark::AddCustomContext("iterations", std::to_string(options.iterations));
  benchmark::AddCustomContext("warmup", std::to_string(options.warmup));
  benchmark::AddCustomContext("seed", std::to_string(seed));
  benchmark::AddCustomContext("sizes", join(options.sizes));
  benchmark::AddCustomContext("ops", ops_text);
  benchmark::AddCustomContext("skipped", skipped.empty() ? "none" : skipped);
  benchmark::AddCustomContext("rma_sync", kRmaSync);
  benchmark::AddCustomContext("calibration", calibration_description());
  benchmark::AddCustomContext("sample", "per iteration: maximum over ranks of the local time, in ns");
  benchmark::AddCustomContext(
      "design", options.interleave == 0
                    ? "pairs: one arm per launch"
                    : "interleaved: blocks of " + std::to_string(options.interleave) +
                          " iterations, ABBA (on, off, off, on, ...), switched by " +
                          (options.switch_kind == "mpit"
                               ? std::string("MPI_T (start/stop of a coll_monitoring_messages_count handle)")
                               : std::string("the calibration library (mpimon_pmpi_delay_set_active)")));

  if (rank == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    NullReporter null;
    benchmark::RunSpecifiedBenchmarks(&null);
  }
  benchmark::Shutdown();
  // Counting back on: Open MPI skips the finalize dump when the state is off at MPI_Finalize.
  if (switcher) switcher->set(true);

  int status = 0;
  if (blocks && std::fclose(blocks) != 0) {
    std::fprintf(stderr, "mpimon-overhead-bench: error: writing %s failed\n", options.blocks.c_str());
    status = 1;
  }
  if (samples && std::fclose(samples) != 0) {
    std::fprintf(stderr, "mpimon-overhead-bench: error: writing %s failed\n", options.samples.c_str());
    status = 1;
  }
  return status;
}
