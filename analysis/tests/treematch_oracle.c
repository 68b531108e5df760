/* Test oracle: TreeMatch's mapping of a matrix file (as `mpimon export treematch` writes it) onto a
 * .tgt file, through the library's own file readers (tm_load_aff_mat, tm_load_topology), i.e. what
 * TreeMatch's `mapping` tool computes. Prints one leaf per rank, one a line.
 * Usage: treematch_oracle LIBRARY.so ARCH.tgt MATRIX.mat   (exit 77 when the library is unusable) */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
  int* sigma;
  size_t sigma_length;
  int** k;
  size_t k_length;
  int oversub_fact;
} solution_t;

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s LIBRARY.so ARCH.tgt MATRIX.mat\n", argv[0]);
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "%s\n", dlerror());
    return 77;
  }
  void (*set_verbose)(unsigned) = (void (*)(unsigned))dlsym(lib, "tm_set_verbose_level");
  void* (*load_topology)(char*, int) = (void* (*)(char*, int))dlsym(lib, "tm_load_topology");
  void* (*load_matrix)(char*) = (void* (*)(char*))dlsym(lib, "tm_load_aff_mat");
  void* (*build_tree)(void*, void*, double*, double*) =
      (void* (*)(void*, void*, double*, double*))dlsym(lib, "tm_build_tree_from_topology");
  solution_t* (*compute)(void*, void*) = (solution_t * (*)(void*, void*)) dlsym(lib, "tm_compute_mapping");
  if (!set_verbose || !load_topology || !load_matrix || !build_tree || !compute) return 77;
  set_verbose(0);
  void* topology = load_topology(argv[2], 2 /* TM_FILE_TYPE_TGT */);
  void* matrix = load_matrix(argv[3]);
  solution_t* sol = compute(topology, build_tree(topology, matrix, NULL, NULL));
  fflush(stdout);
  for (size_t i = 0; i < sol->sigma_length; ++i) printf("%d\n", sol->sigma[i]);
  return 0;
}
