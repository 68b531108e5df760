/* libmpimon-pmpi-delay.so: the calibration library of the overhead harness (docs/benchmarks.md).
 *
 * Preloaded, it adds a known cost to each call of the measured operations: MPI_Send, MPI_Bcast,
 * MPI_Alltoall, MPI_Put and MPI_Get first run a fixed instruction loop (the gate's, spin_loop.h:
 * 2 instructions per iteration), then their PMPI_ version. The cost is defined in instructions,
 * so it is the same on every call, and its time per call is measured on its own when the library
 * loads, again at MPI_Init for a time request and at MPI_Finalize, with the benchmark's clock (the
 * invariant TSC when the CPU has one): that measured time is the cost the harness must find again.
 * The harness's baseline arm loads the library with no loop, so the call through the wrapper costs
 * the same in both arms.
 *
 *   mpirun -x LD_PRELOAD=/path/libmpimon-pmpi-delay.so -x MPIMON_DELAY_LOOPS=40 \
 *          [-x MPIMON_DELAY_OPS=MPI_Send,MPI_Put] ./mpimon-overhead-bench ...
 *
 * MPIMON_DELAY_LOOPS: iterations of the loop per call (integer in [0, 1e9]). MPIMON_DELAY_NS: the
 * same as a time, converted to loops with the loop's speed measured at load (integer >= 0); not
 * both. Default: no loop. MPIMON_DELAY_OPS: comma list of the intercepted names (the "MPI_" prefix
 * and case are optional); default: all five. MPIMON_DELAY_REPORT: a path prefix; each rank then
 * writes "calls loops delivered_ns start_ns end_ns" to PREFIX.RANK at MPI_Finalize. All are read
 * once, when the library is loaded; a bad value stops the process with exit code 2.
 *
 * mpimon_pmpi_delay_set_active(0) makes the calls skip the loop until set_active(1): the
 * benchmark's interleaved design switches the injected cost per block of iterations. */

#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "spin_loop.h"
#include "tsc_clock.h"

enum { DELAY_SEND, DELAY_BCAST, DELAY_ALLTOALL, DELAY_PUT, DELAY_GET, DELAY_OPS };
static const char* const op_names[DELAY_OPS] = {"MPI_Send", "MPI_Bcast", "MPI_Alltoall", "MPI_Put", "MPI_Get"};

static unsigned long loops;
static volatile int active = 1;
static double delivered_ns; /* the loop's time per call, measured on its own at load (and MPI_Init) */
static int delayed[DELAY_OPS];
static char description[320] = "not initialised";

/* For mpimon-overhead-bench, which records it in its context and switches it (found with dlsym). */
const char* mpimon_pmpi_delay_describe(void);
const char* mpimon_pmpi_delay_describe(void) { return description; }
unsigned long mpimon_pmpi_delay_loops(void);
unsigned long mpimon_pmpi_delay_loops(void) { return loops; }
int mpimon_pmpi_delay_set_active(int on);
int mpimon_pmpi_delay_set_active(int on) {
  const int previous = active;
  active = on;
  return previous;
}

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

/* The clock: the TSC when CPUID says it is invariant (calibrated here), else CLOCK_MONOTONIC_RAW. */
static double ticks_per_ns;

static double now_ns(void) {
  if (ticks_per_ns > 0) return (double)mpimon_tsc_read() / ticks_per_ns;
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_RAW, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int compare_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The time per call of n loops minus that of none, each timed over a batch of 100 calls, the two
 * batches alternated 101 times: the median of the differences. Short batches (microseconds) are
 * rarely interrupted, so the median is the loop's cost while it runs. */
static double loop_cost_ns(unsigned long n) {
  enum { ROUNDS = 101, CALLS = 100 };
  double d[ROUNDS];
  for (int r = 0; r < ROUNDS; ++r) {
    double t0 = now_ns();
    for (int i = 0; i < CALLS; ++i) mpimon_spin_loop(n);
    double t1 = now_ns();
    for (int i = 0; i < CALLS; ++i) mpimon_spin_loop(0);
    double t2 = now_ns();
    d[r] = ((t1 - t0) - (t2 - t1)) / CALLS;
  }
  qsort(d, ROUNDS, sizeof d[0], compare_double);
  return d[ROUNDS / 2];
}

static unsigned long requested_ns;
static size_t prefix_length; /* of the description: what was requested */
static const char* clock_name = "?";

static void measure_and_describe(void) {
  delivered_ns = loops > 0 ? loop_cost_ns(loops) : 0;
  size_t used = prefix_length;
  used += (size_t)snprintf(description + used, sizeof description - used,
                           "%lu loops (%lu instructions), %.2f ns per call measured on its own (%s), before", loops,
                           2 * loops, delivered_ns, clock_name);
  for (int i = 0; i < DELAY_OPS && used < sizeof description; ++i)
    if (delayed[i]) used += (size_t)snprintf(description + used, sizeof description - used, " %s", op_names[i]);
}

static unsigned long parse_count(const char* variable, const char* text, unsigned long long max) {
  char* end = NULL;
  const unsigned long long value = strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-' || value > max) bad_setting(variable, text);
  return (unsigned long)value;
}

__attribute__((constructor)) static void read_settings(void) {
  const char* ns = getenv("MPIMON_DELAY_NS");
  const char* n = getenv("MPIMON_DELAY_LOOPS");
  if (ns && *ns && n && *n) bad_setting("MPIMON_DELAY_NS with MPIMON_DELAY_LOOPS", ns);
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
  if (mpimon_tsc_invariant()) ticks_per_ns = mpimon_tsc_calibrate(20000000);
  const char* clock = ticks_per_ns > 0 ? "TSC" : "CLOCK_MONOTONIC_RAW";
  size_t used = 0;
  if (ns && *ns) {
    const unsigned long want = parse_count("MPIMON_DELAY_NS", ns, 10000000000ULL);
    /* A first estimate from 200-loop batches; each rank refines its own at MPI_Init. */
    const double per_loop = loop_cost_ns(200) / 200;
    loops = want > 0 && per_loop > 0 ? (unsigned long)((double)want / per_loop + 0.5) : 0;
    requested_ns = want;
    used = (size_t)snprintf(description, sizeof description,
                            "%lu ns requested (first estimate %.3f ns per loop): ", want, per_loop);
  } else if (n && *n) {
    loops = parse_count("MPIMON_DELAY_LOOPS", n, 1000000000ULL);
    used = (size_t)snprintf(description, sizeof description, "%lu loops requested: ", loops);
  } else {
    used = (size_t)snprintf(description, sizeof description, "nothing requested: ");
  }
  prefix_length = used;
  clock_name = clock;
  measure_and_describe();
}

/* Each rank refines the conversion of a time request now that the processes have started: the
 * loop's speed measured at load, before MPI_Init, is disturbed by the start-up (it was off by up to
 * 60 %, and the time per loop is not the same at 200 loops as at 20), so the count is corrected
 * from the cost of the count itself, three times. */
static void refine_loops(void) {
  /* Above 10 us per call the first estimate is close enough, and each measurement would take a
   * tenth of a second or more (101 x 100 calls of the loop). */
  if (requested_ns > 10000) return;
  for (int round = 0; round < 3 && loops > 0; ++round) {
    const double cost = loop_cost_ns(loops);
    if (cost <= 0) break;
    /* At most a factor 4 per round: a cost measured near 0 (a few loops against the clock's noise)
     * must not turn into a count thousands of times too large. */
    double factor = (double)requested_ns / cost;
    factor = factor > 4 ? 4 : factor < 0.25 ? 0.25 : factor;
    const double corrected = (double)loops * factor;
    loops = corrected < 1 ? 1 : (unsigned long)(corrected + 0.5);
  }
}

/* A time request is delivered as the same time on every rank, each converting it with its own
 * measurement: the ranks' loops run at speeds 10-70 % apart (the virtual cores' clocks, other
 * load), and the per-iteration sample is the slowest rank's, so one count for all would add more
 * than requested where it matters. A request in loops stays the same count everywhere. */
static void convert_on_each_rank(void) {
  if (requested_ns == 0) return;
  refine_loops();
  measure_and_describe();
}

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  if (rc == MPI_SUCCESS) convert_on_each_rank();
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) convert_on_each_rank();
  return rc;
}

static long long calls;

static void delay(int op) {
  if (!delayed[op]) return;
  mpimon_spin_loop(active ? loops : 0);
  ++calls;
}

/* MPIMON_DELAY_REPORT=PREFIX: each rank writes "calls loops delivered_ns start_ns end_ns" to
 * PREFIX.RANK. The loop's speed drifts during a run on a shared machine (by up to a factor 2
 * between MPI_Init and MPI_Finalize on a virtual CPU), so it is measured again at the end, and the
 * cost delivered is the mean of the two measurements (the one at the start alone above 20000
 * loops, about 10 us per call, where a measurement takes a tenth of a second or more). */
int MPI_Finalize(void) {
  const char* prefix = getenv("MPIMON_DELAY_REPORT");
  if (prefix && *prefix) {
    const double start_ns = delivered_ns;
    const double end_ns = loops > 0 && loops <= 20000 ? loop_cost_ns(loops) : start_ns;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, rank);
    FILE* f = fopen(path, "w");
    if (f) {
      fprintf(f, "%lld %lu %.4f %.4f %.4f\n", calls, loops, (start_ns + end_ns) / 2, start_ns, end_ns);
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
