#pragma once
// The clock of mpimon-overhead-bench's per-iteration times: the invariant TSC when every check
// passes on every rank, else clock_gettime(CLOCK_MONOTONIC_RAW), with the reason recorded
// (docs/benchmarks.md, "The clock").

#include <time.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "tsc_clock.h"

namespace mpimon::bench {

class BenchClock {
 public:
  /// Collective: `request` is auto (the TSC if usable), tsc (the TSC or an error) or monotonic.
  /// Throws std::runtime_error (same message on every rank) when tsc is requested and unusable.
  static BenchClock choose(const std::string& request, int rank, int np);

  /// A raw reading: TSC ticks or nanoseconds.
  [[nodiscard]] std::int64_t now() const {
    if (tsc_) return static_cast<std::int64_t>(mpimon_tsc_read());
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC_RAW, &t);
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
  }
  /// A difference of raw readings in whole nanoseconds (rounded).
  [[nodiscard]] std::int64_t to_ns(std::int64_t raw) const {
    return tsc_ ? std::llround(mpimon_ticks_to_ns(static_cast<std::uint64_t>(raw), ticks_per_ns_)) : raw;
  }

  [[nodiscard]] bool tsc() const { return tsc_; }
  [[nodiscard]] double ticks_per_ns() const { return ticks_per_ns_; }
  /// "tsc" or "monotonic_raw".
  [[nodiscard]] std::string name() const { return tsc_ ? "tsc" : "monotonic_raw"; }
  /// The checks made and their outcome, or why the TSC is not used.
  [[nodiscard]] const std::string& note() const { return note_; }
  /// The clock in words with its resolution: the smallest non-zero difference of 1000 reads.
  [[nodiscard]] std::string describe() const;

 private:
  bool tsc_ = false;
  double ticks_per_ns_ = 0;
  std::string note_;
};

}  // namespace mpimon::bench
