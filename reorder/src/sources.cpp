// Where mpimon_reorder's traffic comes from: Open MPI's monitoring read through MPI_T, or a
// recording; and the messages rank 0 gives for what a process could not contribute.
#include <algorithm>
#include <cstring>
#include <memory>

#include "mpimon/base/error.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/mpi/mpit.hpp"
#include "reorder_internal.hpp"

namespace mpimon::reorder {

namespace {

// The per-peer bytes this process sent through the PML (pml_monitoring_messages_size, bound to
// MPI_COMM_WORLD, indexed by world rank: Open MPI refuses any other communicator). Opened at the
// first "monitoring" call; closed at MPI_Finalize (an attribute of MPI_COMM_SELF, deleted first
// thing there), before MPI_T_finalize, which Open MPI 4.1 cannot take after MPI_Finalize.
struct Monitoring {
  bool opened = false;
  Problem problem = Problem::none;
  std::int64_t error = 0;
  bool mpit = false;
  std::unique_ptr<mpi::PvarSession> session;
  std::size_t handle = 0;
  std::vector<std::uint64_t> baseline;  ///< the counters at the end of the last call

  void close() {
    session.reset();
    if (mpit) MPI_T_finalize();
    mpit = false;
  }
};

Monitoring& monitoring() {
  static Monitoring m;
  return m;
}

int close_at_finalize(MPI_Comm, int, void*, void*) {
  monitoring().close();
  return MPI_SUCCESS;
}

void open_monitoring(Monitoring& m) {
  m.opened = true;
  int provided = 0;
  if (const int rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided); rc != MPI_SUCCESS) {
    m.problem = Problem::mpit_init, m.error = rc;
    return;
  }
  m.mpit = true;
  int keyval = MPI_KEYVAL_INVALID;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, close_at_finalize, &keyval, nullptr);
  PMPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr);
  int error = 0;
  const auto index = mpi::find_pvar("pml_monitoring_messages_size", MPI_T_PVAR_CLASS_SIZE, &error);
  if (!index) {
    m.problem = Problem::no_pml_variables, m.error = error;
    return;
  }
  m.session = std::make_unique<mpi::PvarSession>();
  if (const int rc = m.session->try_start(*index, MPI_COMM_WORLD, m.handle); rc != MPI_SUCCESS) {
    m.problem = Problem::mpit_failed, m.error = rc;
    m.session.reset();
  }
}

/// The counters now, or a problem.
Problem read_counters(Monitoring& m, std::vector<std::uint64_t>& now, std::int64_t& error) {
  if (!m.opened) open_monitoring(m);
  if (m.problem != Problem::none) {
    error = m.error;
    return m.problem;
  }
  if (const int rc = m.session->try_read(m.handle, now); rc != MPI_SUCCESS) {
    error = rc;
    return Problem::mpit_failed;
  }
  return Problem::none;
}

std::string library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  PMPI_Get_library_version(text, &length);
  std::string line(text, strnlen(text, sizeof text));
  return line.substr(0, line.find_first_of(",\n"));
}

}  // namespace

Contribution monitoring_contribution(MPI_Comm comm) {
  Contribution c;
  Monitoring& m = monitoring();
  std::vector<std::uint64_t> now;
  c.problem = read_counters(m, now, c.detail_a);
  if (c.problem != Problem::none) return c;
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  const std::vector<std::uint32_t> world = mpi::world_ranks(comm);
  for (std::size_t q = 0; q < world.size(); ++q) {
    const std::uint32_t w = world[q];
    if (w >= now.size() || static_cast<int>(q) == rank) continue;
    const std::uint64_t before = w < m.baseline.size() ? m.baseline[w] : 0;
    // A count below the last reading was reset (a flush, e.g. mpimon collect's): all of it is new.
    const std::uint64_t bytes = now[w] >= before ? now[w] - before : now[w];
    if (bytes > 0) c.edges.push_back({static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(q), bytes});
  }
  return c;
}

void mark_monitoring() {
  Monitoring& m = monitoring();
  std::vector<std::uint64_t> now;
  std::int64_t error = 0;
  if (m.opened && read_counters(m, now, error) == Problem::none) m.baseline = std::move(now);
}

Contribution file_contribution(const std::string& spec, std::uint32_t processes) {
  Contribution c;
  const auto hash = spec.rfind('#');
  const std::string path = spec.substr(0, hash);
  try {
    const MatrixFile file(path);
    std::string dump = hash == std::string::npos ? file.default_dump() : spec.substr(hash + 1);
    const auto dumps = file.dumps();
    if (std::find(dumps.begin(), dumps.end(), dump) == dumps.end()) {
      std::string names;
      for (const auto& d : dumps) names += (names.empty() ? "" : ", ") + d;
      raise_error(Error::Kind::input, path, "no dump '" + dump + "' (it has " + names + ")");
    }
    const auto missing = file.root_strings("missing_classes");
    if (std::find(missing.begin(), missing.end(), "external") != missing.end()) {
      raise_error(Error::Kind::input, path,
                  "holds no point-to-point traffic (missing_classes: external; mpimon collect on Open MPI 4.1 "
                  "cannot deliver it): record the run with mpimon record");
    }
    const DumpInfo info = file.info(dump);
    if (info.nprocs != processes) {
      raise_error(Error::Kind::input, path,
                  "records " + std::to_string(info.nprocs) + " processes (dump " + dump + "), the communicator has " +
                      std::to_string(processes) + ": a recording of another run?");
    }
    const SparseMatrix bytes = sum_classes(file, dump, {TrafficClass::external, TrafficClass::internal}, Metric::bytes);
    for_each_nonzero(bytes, [&c](std::uint32_t i, std::uint32_t j, std::uint64_t v) { c.edges.push_back({i, j, v}); });
  } catch (const std::exception& e) {
    c.problem = Problem::source_failed;
    c.message = std::string("source 'file:") + spec + "': " + e.what();
    c.edges.clear();
  }
  return c;
}

std::string problem_message(Problem p, int rank, std::int64_t a, std::int64_t b, const Request& request) {
  const std::string who = "rank " + std::to_string(rank) + ": ";
  switch (p) {
    case Problem::null_argument:
      return who + "a required pointer argument is NULL";
    case Problem::negative_count:
      return who + (a < 0 && b == 0 ? std::string("more edges than one call can carry (2^30)")
                                    : "the edge count " + std::to_string(a) + " is negative");
    case Problem::bad_edge:
      return who + "edge " + std::to_string(a) + " names rank " + std::to_string(b) +
             ", which is not a rank of the communicator (0.." + std::to_string(request.vertices - 1) + ")";
    case Problem::negative_weight:
      return who + "edge " + std::to_string(a) + " has the negative weight " + std::to_string(b);
    case Problem::unknown_source:
      return who + "unknown source '" + request.source + "' (monitoring, file:PATH.h5[#DUMP])";
    case Problem::mpit_init:
      return who + "source 'monitoring': MPI_T_init_thread failed (" + mpi::mpit_error_name(static_cast<int>(a)) + ")";
    case Problem::no_pml_variables: {
      const std::string version = library_version();
      if (version.find("Open MPI v4.") != std::string::npos) {
        return "source 'monitoring' needs the PML's monitoring counters through MPI_T, which " + version +
               " removes at MPI_Init (defect pml-mpit-invalid-after-init, docs/defects.md: "
               "pml_monitoring_messages_size answers " +
               mpi::mpit_error_name(static_cast<int>(a)) +
               "); use source 'file:PATH.h5' with a recording of the run (mpimon record), or Open MPI 5.0";
      }
      return "source 'monitoring': " + version + " has no pml_monitoring_messages_size through MPI_T (" +
             mpi::mpit_error_name(static_cast<int>(a)) +
             "): is Open MPI's monitoring on (--mca pml_monitoring_enable 1, a pml list that keeps monitoring)?";
    }
    case Problem::mpit_failed:
      return who + "source 'monitoring': reading pml_monitoring_messages_size through MPI_T failed (" +
             mpi::mpit_error_name(static_cast<int>(a)) + ")";
    case Problem::source_failed:
    case Problem::pass_through:
    case Problem::none:
      break;
  }
  return who + "cannot contribute";
}

namespace {
mpimon_reorder_stats g_stats{};
std::string g_error;
}  // namespace

void set_last(const mpimon_reorder_stats& stats, const std::string& error) {
  g_stats = stats;
  g_error = error;
}
const mpimon_reorder_stats& last_stats() { return g_stats; }
const std::string& last_error() { return g_error; }

}  // namespace mpimon::reorder
