/* libmpimon-pmpi-delay.so: the calibration library of the overhead harness (docs/benchmarks.md).
 *
 * Preloaded in the "on" arm only, it adds a known cost to each call of the measured operations:
 * MPI_Send, MPI_Bcast, MPI_Alltoall, MPI_Put and MPI_Get busy-wait MPIMON_DELAY_NS nanoseconds,
 * then call their PMPI_ version. The harness must find that cost again. The wait is a loop whose
 * speed is measured when the library loads, not a loop on the clock: reading the clock costs
 * ~20 ns and a clock-driven spin overshoots by a fraction of that, a bias the harness would
 * (rightly) detect. The harness's baseline arm loads the library with MPIMON_DELAY_NS=0, so the
 * call through the wrapper costs the same in both arms.
 *
 *   mpirun -x LD_PRELOAD=/path/libmpimon-pmpi-delay.so -x MPIMON_DELAY_NS=200 \
 *          [-x MPIMON_DELAY_OPS=MPI_Send,MPI_Put] ./mpimon-overhead-bench ...
 *
 * MPIMON_DELAY_REPORT: a path prefix; each rank then writes "spins total_ns" (how many delays it
 * made and how long they took, timed around the loop) to PREFIX.RANK at MPI_Finalize.
 * MPIMON_DELAY_NS: integer >= 0 (default 0: nothing is added). MPIMON_DELAY_OPS: comma list of
 * the intercepted names (the "MPI_" prefix and case are optional); default: all five. Both are
 * read once, when the library is loaded; a bad value stops the process with exit code 2. */

#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum { DELAY_SEND, DELAY_BCAST, DELAY_ALLTOALL, DELAY_PUT, DELAY_GET, DELAY_OPS };
static const char* const op_names[DELAY_OPS] = {"MPI_Send", "MPI_Bcast", "MPI_Alltoall", "MPI_Put", "MPI_Get"};

static long long delay_ns;
static double loops_per_ns;
static int delayed[DELAY_OPS];
static char description[256] = "not initialised";

/* For mpimon-overhead-bench, which records it in its context (found with dlsym). */
const char* mpimon_pmpi_delay_describe(void);
const char* mpimon_pmpi_delay_describe(void) { return description; }

static void bad_setting(const char* variable, const char* value) {
  fprintf(stderr, "libmpimon-pmpi-delay: bad %s '%s' (see docs/benchmarks.md)\n", variable, value);
  exit(2);
}

static int op_index(const char* name, size_t length) {
  for (int i = 0; i < DELAY_OPS; ++i) {
    const char *full = op_names[i], *bare = op_names[i] + 4; /* without "MPI_" */
    if ((strlen(full) == length && strncasecmp(name, full, length) == 0) ||
        (strlen(bare) == length && strncasecmp(name, bare, length) == 0))
      return i;
  }
  return -1;
}

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

__attribute__((noinline)) static void spin(long long iterations) {
  for (volatile long long i = 0; i < iterations; ++i) {
  }
}

/* What a spin of k iterations costs, from 2001 timed runs: the mean of their middle half (robust
 * to interruptions, and finer than the clock's granularity). */
static int compare_long(const void* a, const void* b) {
  const long long x = *(const long long*)a, y = *(const long long*)b;
  return (x > y) - (x < y);
}

static double spin_cost_ns(long long k) {
  enum { RUNS = 2001 };
  static long long t[RUNS];
  for (int i = 0; i < RUNS; ++i) {
    const long long start = now_ns();
    spin(k);
    t[i] = now_ns() - start;
  }
  qsort(t, RUNS, sizeof t[0], compare_long);
  double sum = 0;
  for (int i = RUNS / 4; i < 3 * RUNS / 4; ++i) sum += (double)t[i];
  return sum / (double)(3 * RUNS / 4 - RUNS / 4);
}

/* A spin costs a fixed part (entering and leaving the loop, ~20 ns here) plus a time per
 * iteration: both are measured, so that the added cost is the requested one, not 20 ns more. */
static double fixed_ns;

static void calibrate(void) {
  const long long short_spin = 200, long_spin = 8000;
  spin(long_spin); /* warm up */
  const double empty = spin_cost_ns(0), low = spin_cost_ns(short_spin), high = spin_cost_ns(long_spin);
  const double ns_per_loop = (high - low) / (double)(long_spin - short_spin);
  loops_per_ns = 1.0 / ns_per_loop;
  fixed_ns = low - empty - (double)short_spin * ns_per_loop;
  if (fixed_ns < 0) fixed_ns = 0;
}

__attribute__((constructor)) static void read_settings(void) {
  const char* ns = getenv("MPIMON_DELAY_NS");
  if (ns && *ns) {
    char* end = NULL;
    const long long value = strtoll(ns, &end, 10);
    if (*end != '\0' || value < 0 || value > 10000000000LL) bad_setting("MPIMON_DELAY_NS", ns);
    delay_ns = value;
  }
  const char* ops = getenv("MPIMON_DELAY_OPS");
  if (ops && *ops) {
    for (const char* item = ops;;) {
      const char* comma = strchr(item, ',');
      const size_t length = comma ? (size_t)(comma - item) : strlen(item);
      const int i = op_index(item, length);
      if (i < 0) bad_setting("MPIMON_DELAY_OPS", ops);
      delayed[i] = 1;
      if (!comma) break;
      item = comma + 1;
    }
  } else {
    for (int i = 0; i < DELAY_OPS; ++i) delayed[i] = 1;
  }
  calibrate();
  size_t used = (size_t)snprintf(description, sizeof description,
                                 "%lld ns busy-wait (calibrated loop: %.4f iterations per ns, %.1f ns fixed) before",
                                 delay_ns, loops_per_ns, fixed_ns);
  for (int i = 0; i < DELAY_OPS && used < sizeof description; ++i)
    if (delayed[i]) used += (size_t)snprintf(description + used, sizeof description - used, " %s", op_names[i]);
}

/* Called with 0 ns too (the baseline arm): only the number of loop iterations differs between arms. */
/* Every spin is also timed, in both arms: the difference of the arms' mean spin times is the cost
 * really added, which the harness compares with what it recovers (MPIMON_DELAY_REPORT). */
static long long spins, spin_total_ns;

static void delay(int op) {
  if (!delayed[op]) return;
  const double loops = ((double)delay_ns - fixed_ns) * loops_per_ns;
  const long long start = now_ns();
  spin(delay_ns > 0 && loops > 0 ? (long long)(loops + 0.5) : 0);
  spin_total_ns += now_ns() - start;
  ++spins;
}

/* MPIMON_DELAY_REPORT=PREFIX: each rank writes "spins total_ns" to PREFIX.RANK at MPI_Finalize. */
int MPI_Finalize(void) {
  const char* prefix = getenv("MPIMON_DELAY_REPORT");
  if (prefix && *prefix) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, rank);
    FILE* f = fopen(path, "w");
    if (f) {
      fprintf(f, "%lld %lld\n", spins, spin_total_ns);
      fclose(f);
    }
  }
  return PMPI_Finalize();
}

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  delay(DELAY_SEND);
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  delay(DELAY_BCAST);
  return PMPI_Bcast(buffer, count, datatype, root, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  delay(DELAY_ALLTOALL);
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  delay(DELAY_PUT);
  return PMPI_Put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                  win);
}

int MPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  delay(DELAY_GET);
  return PMPI_Get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count, target_datatype,
                  win);
}
