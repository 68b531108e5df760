/* The benchmarks' fine clock: the CPU's invariant time-stamp counter, converted to nanoseconds
 * with a frequency calibrated against CLOCK_MONOTONIC_RAW (docs/benchmarks.md, "The clock").
 * Shared by mpimon-overhead-bench (C++) and the calibration library (C), so that an injected cost
 * is measured with the same clock as the benchmark that must find it. The conversion and the
 * calibration's arithmetic are pure functions, unit-tested on synthetic readings. */
#ifndef MPIMON_TSC_CLOCK_H
#define MPIMON_TSC_CLOCK_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define MPIMON_HAVE_TSC 1
#else
#define MPIMON_HAVE_TSC 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One reading of the counter, fenced so that it neither runs ahead of the timed code nor lets
 * that code start before it (lfence is dispatch-serialising on Intel and, under Linux, AMD). */
static inline uint64_t mpimon_tsc_read(void) {
#if MPIMON_HAVE_TSC
  _mm_lfence();
  const uint64_t t = __rdtsc();
  _mm_lfence();
  return t;
#else
  return 0;
#endif
}

/* Nanoseconds of `ticks` at `ticks_per_ns` (a frequency in GHz). */
double mpimon_ticks_to_ns(uint64_t ticks, double ticks_per_ns);

/* One calibration reading: the counter read just before and just after one CLOCK_MONOTONIC_RAW
 * read (ns). The narrower the bracket, the better the counter value (its midpoint) matches. */
struct mpimon_clock_pair {
  uint64_t tsc_before, tsc_after;
  int64_t ns;
};

/* The counter's frequency (ticks per ns) from readings taken in two bursts, `first` at the start
 * and `last` at the end of a calibration window: in each burst the reading with the narrowest
 * bracket is kept (an interrupted reading has a wide one), and the frequency is their difference
 * in ticks over their difference in ns. Returns 0 when the input cannot give one (no readings,
 * no elapsed time, a counter going backwards). */
double mpimon_tsc_frequency(const struct mpimon_clock_pair* first, size_t n_first, const struct mpimon_clock_pair* last,
                            size_t n_last);

/* Whether CPUID says the counter is invariant (leaf 0x80000007, EDX bit 8: constant rate in every
 * P-, C- and T-state). */
int mpimon_tsc_invariant(void);

/* Calibrates the counter against CLOCK_MONOTONIC_RAW over `window_ns` (busy, about that long):
 * 16 readings at each end. Returns ticks per ns, 0 when there is no counter. */
double mpimon_tsc_calibrate(int64_t window_ns);

#ifdef __cplusplus
}
#endif

#endif
