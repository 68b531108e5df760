// The C API of mpimon/reorder.h: mpimon_reorder and mpimon_reorder_graph. Nothing throws past it.
#include <cstring>
#include <exception>
#include <string>

#include "reorder_internal.hpp"

using namespace mpimon::reorder;

namespace {

/// Makes *newcomm from the outcome: the new order (a split of comm), or a duplicate when kept.
int finish(MPI_Comm comm, const Request& request, Outcome& o, MPI_Comm* newcomm) {
  MPI_Comm result = MPI_COMM_NULL;
  if (o.status == MPIMON_REORDER_SUCCESS) {
    if (o.stats.reordered) {
      PMPI_Comm_split(comm, 0, o.new_rank, &result);
    } else {
      PMPI_Comm_dup(comm, &result);
    }
  }
  if (request.source == "monitoring") mark_monitoring();  // our own traffic is not the next call's
  finish_reorder(comm, request, o);
  if (newcomm != nullptr) *newcomm = result;
  return o.status;
}

/// A call that cannot even be made collective (no communicator): this process alone reports it.
int refuse(const char* why, MPI_Comm* newcomm) {
  if (newcomm != nullptr) *newcomm = MPI_COMM_NULL;
  set_last({}, why);
  return MPIMON_REORDER_ERR_ARG;
}

bool usable(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return false;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  return inter == 0;
}

int run(MPI_Comm comm, Request& request, MPI_Comm* newcomm) {
  LibraryScope scope;
  try {
    if (reorder_disabled()) {
      Outcome o;
      o.started = PMPI_Wtime();
      std::snprintf(o.stats.note, sizeof o.stats.note, "MPIMON_REORDER=off");
      std::snprintf(o.stats.method, sizeof o.stats.method, "identity");
      PMPI_Comm_size(comm, &o.stats.processes);
      o.stats.vertices = o.stats.kept_ranks = o.stats.processes;
      o.stats.rank0_kept = 1;
      return finish(comm, request, o, newcomm);
    }
    Outcome o = run_reorder(comm, request);
    return finish(comm, request, o, newcomm);
  } catch (const std::exception& e) {
    // Only an allocation can fail here, before or after the collectives, alike on every process.
    if (newcomm != nullptr) *newcomm = MPI_COMM_NULL;
    set_last({}, e.what());
    return MPIMON_REORDER_ERR_INTERNAL;
  }
}

}  // namespace

extern "C" {

int mpimon_reorder(MPI_Comm comm, const char* source, MPI_Comm* newcomm) {
  if (!usable(comm)) return refuse("the communicator is MPI_COMM_NULL or an inter-communicator", newcomm);
  int size = 1;
  PMPI_Comm_size(comm, &size);
  Request request;
  request.call = "mpimon_reorder";
  request.source = source == nullptr ? "" : source;
  request.vertices = static_cast<std::uint32_t>(size);
  if (source == nullptr || newcomm == nullptr) {
    request.mine.problem = Problem::null_argument;
  } else if (request.source == "monitoring") {
    request.mine = monitoring_contribution(comm);
  } else if (request.source.rfind("file:", 0) == 0 && request.source.size() > 5) {
    const std::string spec = request.source.substr(5);
    const auto processes = request.vertices;
    request.root_part = [spec, processes] { return file_contribution(spec, processes); };
  } else {
    request.mine.problem = Problem::unknown_source;
  }
  return run(comm, request, newcomm);
}

int mpimon_reorder_graph(MPI_Comm comm, int count, const int sources[], const int destinations[],
                         const long long weights[], MPI_Comm* newcomm) {
  if (!usable(comm)) return refuse("the communicator is MPI_COMM_NULL or an inter-communicator", newcomm);
  int size = 1;
  PMPI_Comm_size(comm, &size);
  Request request;
  request.call = "mpimon_reorder_graph";
  request.source = "graph";
  request.vertices = static_cast<std::uint32_t>(size);
  Contribution& c = request.mine;
  if (newcomm == nullptr || (count > 0 && (sources == nullptr || destinations == nullptr))) {
    c.problem = Problem::null_argument;
  } else if (count < 0) {
    c.problem = Problem::negative_count, c.detail_a = count;
  } else {
    for (int k = 0; k < count && c.problem == Problem::none; ++k) {
      const long long w = weights == nullptr ? 1 : weights[k];
      if (sources[k] < 0 || sources[k] >= size || destinations[k] < 0 || destinations[k] >= size) {
        const bool source_bad = sources[k] < 0 || sources[k] >= size;
        c.problem = Problem::bad_edge, c.detail_a = k, c.detail_b = source_bad ? sources[k] : destinations[k];
      } else if (w < 0) {
        c.problem = Problem::negative_weight, c.detail_a = k, c.detail_b = w;
      } else {
        c.edges.push_back({static_cast<std::uint32_t>(sources[k]), static_cast<std::uint32_t>(destinations[k]),
                           static_cast<std::uint64_t>(w)});
      }
    }
    if (c.problem != Problem::none) c.edges.clear();
  }
  return run(comm, request, newcomm);
}

int mpimon_reorder_get_stats(mpimon_reorder_stats* stats) {
  if (stats == nullptr) return MPIMON_REORDER_ERR_ARG;
  *stats = last_stats();
  return MPIMON_REORDER_SUCCESS;
}

const char* mpimon_reorder_error_message(void) { return last_error().c_str(); }

}  // extern "C"
