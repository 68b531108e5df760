/* libmpimon-gate-inject.so: makes Open MPI's monitoring a known number of instructions more
 * expensive, to prove that `mpimon gate` catches it (docs/gate.md, CTest cli.gate).
 *
 * Preloaded, it interposes the three recording functions of libmca_common_monitoring (the pml,
 * osc and coll components call them through the PLT for every message, RMA operation and
 * collective peer they record): each call first runs MPIMON_GATE_INJECT_LOOPS iterations of a
 * two-instruction loop (dec, jnz), then the real function. So each recording costs exactly
 * 2 x LOOPS instructions more than with LOOPS=0 (the library's own forwarding costs the same in
 * both). The gate counts these functions as monitoring code because the monitoring calls them.
 *
 *   mpirun -x LD_PRELOAD=/path/libmpimon-gate-inject.so -x MPIMON_GATE_INJECT_LOOPS=50 ...
 *
 * MPIMON_GATE_INJECT_LOOPS: integer in [0, 1e9], default 0; a bad value exits with code 2. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin_loop.h"

static unsigned long loops;

__attribute__((constructor)) static void read_loops(void) {
  const char* text = getenv("MPIMON_GATE_INJECT_LOOPS");
  if (!text || !*text) return;
  char* end = NULL;
  const unsigned long long value = strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-' || value > 1000000000ULL) {
    fprintf(stderr, "libmpimon-gate-inject: bad MPIMON_GATE_INJECT_LOOPS '%s'\n", text);
    exit(2);
  }
  loops = (unsigned long)value;
}

/* The next definition of `name` (Open MPI's), stored through a void** as POSIX's dlsym examples do. */
static void resolve(const char* name, void** slot) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    fprintf(stderr, "libmpimon-gate-inject: %s not found (are the monitoring components loaded?)\n", name);
    exit(2);
  }
  *slot = f;
}

/* Signatures of Open MPI 4.1's ompi/mca/common/monitoring/common_monitoring.h (the osc direction
 * is an enum, passed as an int). */
void mca_common_monitoring_record_pml(int world_rank, size_t data_size, int tag);
void mca_common_monitoring_record_osc(int world_rank, size_t data_size, int direction);
void mca_common_monitoring_record_coll(int world_rank, size_t data_size);

void mca_common_monitoring_record_pml(int world_rank, size_t data_size, int tag) {
  static void (*f)(int, size_t, int);
  if (!f) resolve(__func__, (void**)&f);
  mpimon_spin_loop(loops);
  f(world_rank, data_size, tag);
}

void mca_common_monitoring_record_osc(int world_rank, size_t data_size, int direction) {
  static void (*f)(int, size_t, int);
  if (!f) resolve(__func__, (void**)&f);
  mpimon_spin_loop(loops);
  f(world_rank, data_size, direction);
}

void mca_common_monitoring_record_coll(int world_rank, size_t data_size) {
  static void (*f)(int, size_t);
  if (!f) resolve(__func__, (void**)&f);
  mpimon_spin_loop(loops);
  f(world_rank, data_size);
}
