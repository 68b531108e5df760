#define _POSIX_C_SOURCE 200809L

#include "tsc_clock.h"

#include <time.h>

#if MPIMON_HAVE_TSC
#include <cpuid.h>
#endif

double mpimon_ticks_to_ns(uint64_t ticks, double ticks_per_ns) { return (double)ticks / ticks_per_ns; }

/* The reading with the narrowest bracket, or NULL when a bracket is inverted or there is none. */
static const struct mpimon_clock_pair* tightest(const struct mpimon_clock_pair* p, size_t n) {
  const struct mpimon_clock_pair* best = NULL;
  for (size_t i = 0; i < n; ++i) {
    if (p[i].tsc_after < p[i].tsc_before) return NULL;
    if (!best || p[i].tsc_after - p[i].tsc_before < best->tsc_after - best->tsc_before) best = &p[i];
  }
  return best;
}

double mpimon_tsc_frequency(const struct mpimon_clock_pair* first, size_t n_first, const struct mpimon_clock_pair* last,
                            size_t n_last) {
  const struct mpimon_clock_pair *a = tightest(first, n_first), *b = tightest(last, n_last);
  if (!a || !b || b->ns <= a->ns || b->tsc_before < a->tsc_before) return 0;
  /* Midpoints, computed without overflow: before + (after - before) / 2. */
  const double ta = (double)a->tsc_before + (double)(a->tsc_after - a->tsc_before) / 2;
  const double tb = (double)b->tsc_before + (double)(b->tsc_after - b->tsc_before) / 2;
  return (tb - ta) / (double)(b->ns - a->ns);
}

int mpimon_tsc_invariant(void) {
#if MPIMON_HAVE_TSC
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u) return 0;
  if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return 0;
  return (int)((d >> 8) & 1u);
#else
  return 0;
#endif
}

static int64_t monotonic_raw_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_RAW, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void burst(struct mpimon_clock_pair* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    p[i].tsc_before = mpimon_tsc_read();
    p[i].ns = monotonic_raw_ns();
    p[i].tsc_after = mpimon_tsc_read();
  }
}

double mpimon_tsc_calibrate(int64_t window_ns) {
  if (!MPIMON_HAVE_TSC) return 0;
  enum { N = 16 };
  struct mpimon_clock_pair first[N], last[N];
  burst(first, N);
  const int64_t end = first[N - 1].ns + window_ns;
  while (monotonic_raw_ns() < end) {
  }
  burst(last, N);
  return mpimon_tsc_frequency(first, N, last, N);
}
