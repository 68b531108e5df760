// The C API's bad inputs and agreement (docs/reorder.md#the-c-api-mpimonreorderh): every process must return the same
// status, MPI_COMM_NULL on an error, a message naming what is wrong, and never hang. Expected codes
// and words are this program's own. Prints "OK name" or "FAIL name: why" per check; exits 1 on any
// failure. Run on one node with unbound processes (a valid call then keeps the order, with a note).
// Usage: mpimon-reorder-api --foreign FILE.h5 (a recording of another process count)
//                           --not-mpimon FILE (any file that is not a matrices file)
//                           --monitoring CODE WORDS (what "monitoring" must return on this MPI)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpimon/reorder.h"

namespace {

int g_rank = 0, g_size = 1, g_failed = 0;

void verdict(const std::string& name, int rc, MPI_Comm result, int expected, const std::string& words) {
  std::string why;
  int lowest = rc, highest = rc;
  MPI_Allreduce(MPI_IN_PLACE, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &highest, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const std::string message = mpimon_reorder_error_message();
  if (lowest != highest)
    why = "the processes disagree: codes " + std::to_string(lowest) + " to " + std::to_string(highest);
  else if (rc != expected)
    why = "code " + std::to_string(rc) + ", expected " + std::to_string(expected) + " (" + message + ")";
  else if (rc != MPIMON_REORDER_SUCCESS && result != MPI_COMM_NULL)
    why = "an error with a communicator";
  else if (rc != MPIMON_REORDER_SUCCESS && message.find(words) == std::string::npos)
    why = "the message '" + message + "' does not say '" + words + "'";
  else if (rc == MPIMON_REORDER_SUCCESS && !message.empty())
    why = "a success with a message: " + message;
  int bad = why.empty() ? 0 : 1, any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (bad) std::printf("FAIL %s: rank %d: %s\n", name.c_str(), g_rank, why.c_str());
  if (!any && g_rank == 0) std::printf("OK %s: %s\n", name.c_str(), message.empty() ? "(no error)" : message.c_str());
  std::fflush(stdout);
  g_failed |= any;
}

void source_case(const std::string& name, const std::string& source, int expected, const std::string& words) {
  MPI_Comm result = MPI_COMM_WORLD;  // must be overwritten
  const int rc = mpimon_reorder(MPI_COMM_WORLD, source.c_str(), &result);
  verdict(name, rc, result, expected, words);
  if (result != MPI_COMM_NULL && result != MPI_COMM_WORLD) MPI_Comm_free(&result);
}

// A ring over the processes: rank r gives the edge r -> r + 1, weight 10.
void graph_case(const std::string& name, int bad_rank, int destination, long long weight, int expected,
                const std::string& words) {
  int source = g_rank, to = (g_rank + 1) % g_size;
  long long w = 10;
  if (g_rank == bad_rank) to = destination, w = weight;
  MPI_Comm result = MPI_COMM_WORLD;
  const int rc = mpimon_reorder_graph(MPI_COMM_WORLD, 1, &source, &to, &w, &result);
  verdict(name, rc, result, expected, words);
  if (result != MPI_COMM_NULL && result != MPI_COMM_WORLD) MPI_Comm_free(&result);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  std::string foreign, not_mpimon, monitoring_words;
  int monitoring_code = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--foreign" && i + 1 < argc)
      foreign = argv[++i];
    else if (a == "--not-mpimon" && i + 1 < argc)
      not_mpimon = argv[++i];
    else if (a == "--monitoring" && i + 2 < argc)
      monitoring_code = std::atoi(argv[++i]), monitoring_words = argv[++i];
  }
  if (foreign.empty() || not_mpimon.empty() || monitoring_code < 0 || g_size < 3) {
    if (g_rank == 0) std::fprintf(stderr, "usage: see the head of api_check.cpp (3 processes or more)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  source_case("unknown_source", "bogus", MPIMON_REORDER_ERR_ARG, "unknown source 'bogus'");
  source_case("empty_file_source", "file:", MPIMON_REORDER_ERR_ARG, "unknown source 'file:'");
  source_case("missing_file", "file:/nonexistent/mpimon-reorder.h5", MPIMON_REORDER_ERR_SOURCE,
              "/nonexistent/mpimon-reorder.h5");
  source_case("not_a_recording", "file:" + not_mpimon, MPIMON_REORDER_ERR_SOURCE, not_mpimon);
  source_case("foreign_recording", "file:" + foreign, MPIMON_REORDER_ERR_SOURCE,
              "the communicator has " + std::to_string(g_size));
  source_case("unknown_dump", "file:" + foreign + "#nothing", MPIMON_REORDER_ERR_SOURCE, "no dump 'nothing'");
  source_case("monitoring", "monitoring", monitoring_code, monitoring_words);
  // One process alone gives a bad edge: every process returns the error.
  graph_case("out_of_range_rank", 2, g_size, 10, MPIMON_REORDER_ERR_ARG,
             "rank 2: edge 0 names rank " + std::to_string(g_size));
  graph_case("negative_rank", 1, -1, 10, MPIMON_REORDER_ERR_ARG, "rank 1: edge 0 names rank -1");
  graph_case("negative_weight", 0, 1, -5, MPIMON_REORDER_ERR_ARG, "rank 0: edge 0 has the negative weight -5");
  {
    // Every process gives the edge 0 -> 1 with the largest weight: their sum exceeds 64 bits.
    int source = 0, to = 1;
    long long w = 0x7fffffffffffffffLL;
    MPI_Comm result = MPI_COMM_WORLD;
    const int rc = mpimon_reorder_graph(MPI_COMM_WORLD, 1, &source, &to, &w, &result);
    verdict("weights_beyond_64_bits", rc, result, MPIMON_REORDER_ERR_ARG, "the weights between 0 and 1 exceed 64 bits");
    if (result != MPI_COMM_NULL && result != MPI_COMM_WORLD) MPI_Comm_free(&result);
  }
  // A variable the library does not understand is an error naming it, on every process.
  setenv("MPIMON_REORDER_TIME_LIMIT", "soon", 1);
  graph_case("bad_time_limit", -1, 0, 10, MPIMON_REORDER_ERR_ARG, "MPIMON_REORDER_TIME_LIMIT='soon'");
  unsetenv("MPIMON_REORDER_TIME_LIMIT");
  // The library's own failure while deciding (a fault injected at rank 0): an internal error on
  // every process, not a success.
  setenv("MPIMON_REORDER_INJECT_FAULT", "decide", 1);
  graph_case("internal_error", -1, 0, 10, MPIMON_REORDER_ERR_INTERNAL,
             "internal error of libmpimon-reorder while deciding (rank 0): a fault injected");
  unsetenv("MPIMON_REORDER_INJECT_FAULT");
  {
    // One process passes no place for the result: every process returns the error.
    int source = g_rank, to = (g_rank + 1) % g_size;
    MPI_Comm result = MPI_COMM_WORLD;
    const int rc = mpimon_reorder_graph(MPI_COMM_WORLD, 1, &source, &to, nullptr, g_rank == 1 ? nullptr : &result);
    verdict("null_newcomm", rc, g_rank == 1 ? MPI_COMM_NULL : result, MPIMON_REORDER_ERR_ARG,
            "rank 1: a required pointer argument is NULL");
  }
  {
    // A valid graph on processes of one node, not bound: every order costs the same; the order is
    // kept, in a new communicator congruent to the world, with a note.
    int source = g_rank, to = (g_rank + 1) % g_size;
    MPI_Comm result = MPI_COMM_NULL;
    const int rc = mpimon_reorder_graph(MPI_COMM_WORLD, 1, &source, &to, nullptr, &result);
    verdict("one_node_keeps_the_order", rc, result, MPIMON_REORDER_SUCCESS, "");
    mpimon_reorder_stats stats{};
    mpimon_reorder_get_stats(&stats);
    int compare = MPI_UNEQUAL;
    if (result != MPI_COMM_NULL) MPI_Comm_compare(result, MPI_COMM_WORLD, &compare);
    const bool ok = compare == MPI_CONGRUENT && stats.reordered == 0 && std::strstr(stats.note, "one node") &&
                    stats.processes == g_size && stats.nodes == 1 && stats.vertices == g_size && stats.edges == g_size;
    if (!ok)
      std::printf("FAIL one_node_stats: rank %d: compare %d reordered %d note '%s'\n", g_rank, compare, stats.reordered,
                  stats.note);
    else if (g_rank == 0)
      std::printf("OK one_node_stats: %s\n", stats.note);
    g_failed |= !ok;
    if (result != MPI_COMM_NULL) MPI_Comm_free(&result);
  }
  {
    // The null communicator: refused at once, on this process alone (nothing collective).
    MPI_Comm result = MPI_COMM_WORLD;
    const int rc = mpimon_reorder(MPI_COMM_NULL, "monitoring", &result);
    const bool ok = rc == MPIMON_REORDER_ERR_ARG && result == MPI_COMM_NULL &&
                    std::strstr(mpimon_reorder_error_message(), "MPI_COMM_NULL");
    if (!ok)
      std::printf("FAIL null_comm: rank %d: code %d\n", g_rank, rc);
    else if (g_rank == 0)
      std::printf("OK null_comm: %s\n", mpimon_reorder_error_message());
    g_failed |= !ok;
  }
  int any = 0;
  MPI_Allreduce(&g_failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
