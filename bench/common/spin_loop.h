/* The fixed instruction loop that injects a known cost: the gate's injection library
 * (bench/gate/record_inject.c) and the overhead harness's calibration library
 * (bench/calibration/pmpi_delay.c) both add `n` iterations of it, so that an injected cost is a
 * number of instructions, identical on every call and every run. */
#ifndef MPIMON_SPIN_LOOP_H
#define MPIMON_SPIN_LOOP_H

/* Exactly 2 instructions per iteration on x86-64 (dec, jnz); nothing of the loop when n == 0.
 * Not inlined, so that the call costs the same whatever n is. */
__attribute__((noinline, unused)) static void mpimon_spin_loop(unsigned long n) {
  if (n == 0) return;
#if defined(__x86_64__)
  __asm__ volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
#else
  for (volatile unsigned long i = 0; i < n; ++i) {
  }
#endif
}

#endif
