#include "bench_clock.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "mpimon/base/number_text.hpp"
#include "mpimon/mpi/mpi_support.hpp"

namespace mpimon::bench {

using mpimon::mpi::check;

namespace {

std::string first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// Whether the first "flags" line of /proc/cpuinfo lists `flag` as a whole word.
bool cpu_flag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("flags")) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    for (std::string w; words >> w;)
      if (w == flag) return true;
    return false;
  }
  return false;
}

std::string fixed(double v, int digits) {
  const std::string format = "%." + std::to_string(digits) + "f";
  return mpimon::format_number(v, format.c_str());
}
// Rank 0 against every other rank, 10 round trips each: its readings a (before sending) and c
// (after the answer) must bracket the other rank's reading b. Counters that are not synchronised
// (offset larger than a round trip) break a <= b <= c. Collective; true on rank 0 when every
// round trip was consistent (the verdict is broadcast).
bool counters_agree(int rank, int np) {
  constexpr int kRounds = 10, kClockTag = 7301;
  int ok = 1;
  for (int peer = 1; peer < np; ++peer) {
    for (int round = 0; round < kRounds; ++round) {
      std::uint64_t b = 0;
      if (rank == 0) {
        const std::uint64_t a = mpimon_tsc_read();
        check(MPI_Send(&a, 1, MPI_UINT64_T, peer, kClockTag, MPI_COMM_WORLD), "MPI_Send");
        check(MPI_Recv(&b, 1, MPI_UINT64_T, peer, kClockTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        const std::uint64_t c = mpimon_tsc_read();
        if (!(a <= b && b <= c)) ok = 0;
      } else if (rank == peer) {
        std::uint64_t a = 0;
        check(MPI_Recv(&a, 1, MPI_UINT64_T, 0, kClockTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
        b = mpimon_tsc_read();
        check(MPI_Send(&b, 1, MPI_UINT64_T, 0, kClockTag, MPI_COMM_WORLD), "MPI_Send");
      }
    }
  }
  check(MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return ok == 1;
}

}  // namespace

BenchClock BenchClock::choose(const std::string& request, int rank, int np) {
  BenchClock c;
  if (request == "monotonic") {
    c.note_ = "monotonic_raw requested (--clock monotonic)";
    return c;
  }
  // Checks every rank makes on its own CPU; the TSC is used only when all pass on all ranks.
  std::string why;
  const bool invariant = MPIMON_HAVE_TSC && mpimon_tsc_invariant();
  if (!invariant) why = "CPUID 0x80000007 EDX bit 8 (invariant TSC) not set";
  const bool flags = cpu_flag("constant_tsc") && cpu_flag("nonstop_tsc");
  if (why.empty() && !flags) why = "/proc/cpuinfo lacks constant_tsc or nonstop_tsc";
  // 50 ms against CLOCK_MONOTONIC_RAW on every rank; the ranks' frequencies must agree.
  const double mine = why.empty() ? mpimon_tsc_calibrate(50'000'000) : 0;
  if (why.empty() && !(mine > 0)) why = "the TSC frequency could not be calibrated";
  int usable = why.empty() ? 1 : 0, all_usable = 0;
  check(MPI_Allreduce(&usable, &all_usable, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  double low = 0, high = 0;
  check(MPI_Allreduce(&mine, &low, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  check(MPI_Allreduce(&mine, &high, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  // Rank 0's reason stands for all (the first rank failing a check is enough to fall back).
  if (all_usable && high / low - 1 > 1e-3)
    why = "the ranks' TSC frequencies differ by more than 0.1 % (" + fixed(low, 4) + " to " + fixed(high, 4) +
          " ticks/ns)";
  else if (!all_usable && why.empty())
    why = "another rank's TSC failed the checks";
  if (why.empty() && !counters_agree(rank, np))
    why = "the ranks' TSCs are not synchronised (a round trip read a later counter before an earlier one)";
  // Broadcast rank 0's verdict text so that every rank records the same.
  int length = static_cast<int>(why.size());
  check(MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  why.resize(static_cast<std::size_t>(length));
  check(MPI_Bcast(why.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");

  const std::string kernel =
      "kernel clocksource " + first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource") +
      ", available: " + first_line("/sys/devices/system/clocksource/clocksource0/available_clocksource");
  if (!why.empty()) {
    if (request == "tsc") throw std::runtime_error("--clock tsc: the TSC is not usable: " + why);
    c.note_ = "TSC not used: " + why + "; " + kernel;
    return c;
  }
  c.tsc_ = true;
  c.ticks_per_ns_ = mine;  // each rank converts its own ticks with its own calibration
  c.note_ =
      "invariant TSC (CPUID and constant_tsc nonstop_tsc on every rank), calibrated against "
      "CLOCK_MONOTONIC_RAW over 50 ms per rank: " +
      fixed(low, 6) + " to " + fixed(high, 6) +
      " ticks/ns; rank 0 and every other rank read it consistently in 10 round trips; " + kernel;
  return c;
}

std::string BenchClock::describe() const {
  std::int64_t smallest = std::numeric_limits<std::int64_t>::max();
  std::int64_t previous = now();
  for (int i = 0; i < 1000; ++i) {
    const std::int64_t t = now();
    if (t > previous) smallest = std::min(smallest, t - previous);
    previous = t;
  }
  const std::string step =
      smallest == std::numeric_limits<std::int64_t>::max()
          ? std::string("none")
          : (tsc_ ? fixed(mpimon_ticks_to_ns(static_cast<std::uint64_t>(smallest), ticks_per_ns_), 1)
                  : std::to_string(smallest));
  if (tsc_) {
    // The counter's own step: the greatest common divisor of 1000 differences of unfenced reads.
    // A real TSC counts every tick (step 1); a virtualised one may advance in coarser steps.
    std::uint64_t gcd = 0;
#if MPIMON_HAVE_TSC
    std::uint64_t previous_tick = __rdtsc();
    for (int i = 0; i < 1000; ++i) {
      const std::uint64_t t = __rdtsc();
      gcd = std::gcd(gcd, t - previous_tick);
      previous_tick = t;
    }
#endif
    return "TSC (lfence; rdtsc; lfence), " + fixed(ticks_per_ns_, 6) +
           " ticks/ns, times rounded to 1 ns; the counter advances in steps of " + std::to_string(gcd) + " ticks (" +
           fixed(mpimon_ticks_to_ns(gcd, ticks_per_ns_), 2) +
           " ns); smallest non-zero difference of 1000 back-to-back reads " + step + " ns";
  }
  timespec res{};
  clock_getres(CLOCK_MONOTONIC_RAW, &res);
  return "clock_gettime(CLOCK_MONOTONIC_RAW); clock_getres " + std::to_string(res.tv_nsec) +
         " ns; smallest non-zero difference of 1000 back-to-back reads " + step + " ns";
}

}  // namespace mpimon::bench
