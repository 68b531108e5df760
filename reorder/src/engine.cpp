// run_reorder: the one collective flow of every entry point (reorder_internal.hpp). Its collectives
// are PMPI_ calls, so the application's own PMPI tools do not see them: a gather of the places and
// problems, a gather of the edges, a broadcast of the outcome and, when the order changes, a
// scatter of the new ranks.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>

#include "mpimon/json.hpp"
#include "reorder_internal.hpp"

namespace mpimon::reorder {

namespace {

struct Record {
  char host[64];
  std::int32_t bound, package, core, packages, cores_per_package;
  std::int32_t problem;
  std::int64_t detail_a, detail_b, edges;
};

struct Header {
  std::int32_t status;
  std::int32_t pass_through;
  mpimon_reorder_stats stats;
  char message[1024];
};

template <std::size_t N>
void copy_text(char (&to)[N], const std::string& from) {
  std::snprintf(to, N, "%s", from.c_str());
}

Record record_of(const Contribution& mine) {
  Record r{};
  const ProcessPlace& me = local_place();
  copy_text(r.host, me.host);
  r.bound = me.bound;
  r.package = static_cast<std::int32_t>(me.package);
  r.core = static_cast<std::int32_t>(me.core);
  r.packages = static_cast<std::int32_t>(me.packages);
  r.cores_per_package = static_cast<std::int32_t>(me.cores_per_package);
  r.problem = static_cast<std::int32_t>(mine.problem);
  r.detail_a = mine.detail_a;
  r.detail_b = mine.detail_b;
  r.edges = static_cast<std::int64_t>(mine.edges.size());
  return r;
}

double time_limit(std::uint32_t vertices) {
  if (const char* text = std::getenv("MPIMON_REORDER_TIME_LIMIT"); text && *text) {
    char* end = nullptr;
    const double s = std::strtod(text, &end);
    if (end != text && *end == '\0' && s > 0) return s;
  }
  return default_time_limit(vertices);
}

// Rank 0: the decision, from every process's record and edges.
Header decide_at_root(const Request& request, const std::vector<Record>& records, std::vector<DirectedEdge>& edges,
                      std::vector<std::uint32_t>& process_of) {
  Header h{};
  auto fail = [&h](int status, const std::string& message) {
    h.status = status;
    copy_text(h.message, message);
    return h;
  };
  for (std::size_t p = 0; p < records.size(); ++p) {
    const auto problem = static_cast<Problem>(records[p].problem);
    if (problem == Problem::none) continue;
    if (problem == Problem::pass_through) {
      h.pass_through = 1;
      return h;
    }
    const int status = problem == Problem::unknown_source || problem == Problem::null_argument ||
                               problem == Problem::negative_count || problem == Problem::bad_edge ||
                               problem == Problem::negative_weight
                           ? MPIMON_REORDER_ERR_ARG
                           : MPIMON_REORDER_ERR_SOURCE;
    return fail(status,
                problem_message(problem, static_cast<int>(p), records[p].detail_a, records[p].detail_b, request));
  }
  if (request.root_part) {
    Contribution extra = request.root_part();
    if (extra.problem == Problem::pass_through) {
      h.pass_through = 1;
      return h;
    }
    if (extra.problem != Problem::none) {
      return fail(MPIMON_REORDER_ERR_SOURCE,
                  extra.message.empty() ? problem_message(extra.problem, 0, extra.detail_a, extra.detail_b, request)
                                        : extra.message);
    }
    edges.insert(edges.end(), extra.edges.begin(), extra.edges.end());
  }
  std::vector<ProcessPlace> places(records.size());
  for (std::size_t p = 0; p < records.size(); ++p) {
    const Record& r = records[p];
    places[p] = {std::string(r.host, strnlen(r.host, sizeof r.host)),
                 r.bound != 0,
                 static_cast<std::uint32_t>(r.package),
                 static_cast<std::uint32_t>(r.core),
                 static_cast<std::uint32_t>(r.packages),
                 static_cast<std::uint32_t>(r.cores_per_package)};
  }
  auto& s = h.stats;
  s.processes = static_cast<int>(records.size());
  s.vertices = request.vertices;
  copy_text(s.method, "identity");
  const double t1 = PMPI_Wtime();
  try {
    const Machine machine = machine_model(places);
    s.nodes = static_cast<int>(machine.nodes);
    s.placed_by_core = machine.by_core;
    Decision d = decide(request.vertices, edges, machine, time_limit(request.vertices));
    s.reordered = d.reordered;
    s.edges = static_cast<long long>(d.edges);
    s.cost_before = d.cost_before;
    s.cost_after = d.cost_after;
    s.between_nodes_before = d.between_before;
    s.between_nodes_after = d.between_after;
    copy_text(s.method, d.method);
    std::string note = d.note;
    if (!machine.note.empty()) note = machine.note + (note.empty() ? "" : "; " + note);
    copy_text(s.note, note);
    process_of = std::move(d.process_of);
  } catch (const std::exception& e) {
    copy_text(s.note, std::string("order kept: ") + e.what());
  }
  s.seconds_mapping = PMPI_Wtime() - t1;
  return h;
}

// Every process's records and edges at rank 0 (empty elsewhere).
void gather(MPI_Comm comm, int rank, int size, const Contribution& mine, std::vector<Record>& records,
            std::vector<DirectedEdge>& edges) {
  const Record me = record_of(mine);
  if (rank == 0) records.resize(static_cast<std::size_t>(size));
  PMPI_Gather(&me, sizeof me, MPI_BYTE, records.data(), sizeof me, MPI_BYTE, 0, comm);
  MPI_Datatype edge_type;
  PMPI_Type_contiguous(sizeof(DirectedEdge), MPI_BYTE, &edge_type);
  PMPI_Type_commit(&edge_type);
  std::vector<int> counts, offsets;
  if (rank == 0) {
    std::int64_t total = 0;
    for (const auto& r : records) {
      offsets.push_back(static_cast<int>(std::min<std::int64_t>(total, INT32_MAX)));
      counts.push_back(static_cast<int>(r.edges));
      total += r.edges;
    }
    edges.resize(static_cast<std::size_t>(std::min<std::int64_t>(total, INT32_MAX)));
  }
  PMPI_Gatherv(mine.edges.data(), static_cast<int>(mine.edges.size()), edge_type, edges.data(), counts.data(),
               offsets.data(), edge_type, 0, comm);
  PMPI_Type_free(&edge_type);
}

}  // namespace

Outcome run_reorder(MPI_Comm comm, Request request) {
  Outcome out;
  out.started = PMPI_Wtime();
  int rank = 0, size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  // Counts beyond what one gather can carry are refused before anything is sent.
  if (request.mine.edges.size() > static_cast<std::size_t>(INT32_MAX / 2) && request.mine.problem == Problem::none) {
    request.mine = Contribution{};
    request.mine.problem = Problem::negative_count;
    request.mine.detail_a = -1;
  }
  std::vector<Record> records;
  std::vector<DirectedEdge> edges;
  gather(comm, rank, size, request.mine, records, edges);
  request.mine.edges = {};
  std::int64_t total = 0;
  for (const auto& r : records) total += r.edges;
  Header h{};
  std::vector<std::uint32_t> process_of;
  if (rank == 0) {
    if (total > INT32_MAX) {
      h.status = MPIMON_REORDER_ERR_ARG;
      copy_text(h.message, "more than 2^31 edges in all: not placed");
    } else {
      h = decide_at_root(request, records, edges, process_of);
      h.stats.seconds_source = PMPI_Wtime() - out.started - h.stats.seconds_mapping;
    }
  }
  std::vector<DirectedEdge>().swap(edges);
  PMPI_Bcast(&h, sizeof h, MPI_BYTE, 0, comm);
  out.status = h.status;
  out.pass_through = h.pass_through != 0;
  out.message = h.message;
  out.stats = h.stats;
  if (out.status != MPIMON_REORDER_SUCCESS || out.pass_through || !out.stats.reordered) return out;
  std::vector<int> new_rank;
  if (rank == 0) {
    new_rank.assign(static_cast<std::size_t>(size), -1);
    for (std::size_t v = 0; v < process_of.size(); ++v) new_rank[process_of[v]] = static_cast<int>(v);
  }
  PMPI_Scatter(new_rank.data(), 1, MPI_INT, &out.new_rank, 1, MPI_INT, 0, comm);
  return out;
}

bool reorder_disabled() {
  const char* v = std::getenv("MPIMON_REORDER");
  return v != nullptr && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0);
}

namespace {

std::string verbose_line(const Request& request, const Outcome& o) {
  const auto& s = o.stats;
  char text[2048];
  if (o.status != MPIMON_REORDER_SUCCESS) {
    std::snprintf(text, sizeof text, "mpimon-reorder: %s: error: %s\n", request.call, o.message.c_str());
    return text;
  }
  const double change = s.cost_before > 0 ? 100.0 * (s.cost_after / s.cost_before - 1.0) : 0.0;
  std::snprintf(text, sizeof text,
                "mpimon-reorder: %s (%s): %d processes on %d node(s), placed by %s; %lld vertices, %lld edges; "
                "modelled cost %.0f -> %.0f (%+.1f %%), between nodes %.0f -> %.0f; %s (%s)%s%s; %.3f s "
                "(source %.3f, mapping %.3f, communicator %.3f)\n",
                request.call, request.source.c_str(), s.processes, s.nodes, s.placed_by_core ? "core" : "node",
                s.vertices, s.edges, s.cost_before, s.cost_after, change, s.between_nodes_before, s.between_nodes_after,
                s.reordered ? "reordered" : "order kept", s.method, s.note[0] ? ": " : "", s.note, s.seconds,
                s.seconds_source, s.seconds_mapping, s.seconds_communicator);
  return text;
}

std::string stats_json(const Request& request, const Outcome& o) {
  const auto& s = o.stats;
  const Json line = {{"call", request.call},
                     {"source", request.source},
                     {"status", o.status},
                     {"error", o.message},
                     {"reordered", s.reordered != 0},
                     {"processes", s.processes},
                     {"nodes", s.nodes},
                     {"placed_by", s.placed_by_core ? "core" : "node"},
                     {"vertices", s.vertices},
                     {"edges", s.edges},
                     {"cost_before", s.cost_before},
                     {"cost_after", s.cost_after},
                     {"between_nodes_before", s.between_nodes_before},
                     {"between_nodes_after", s.between_nodes_after},
                     {"method", std::string(s.method)},
                     {"note", std::string(s.note)},
                     {"seconds", s.seconds},
                     {"seconds_source", s.seconds_source},
                     {"seconds_mapping", s.seconds_mapping},
                     {"seconds_communicator", s.seconds_communicator}};
  return json_line(line) + "\n";
}

}  // namespace

void finish_reorder(MPI_Comm comm, const Request& request, Outcome& o) {
  o.stats.seconds = PMPI_Wtime() - o.started;
  o.stats.seconds_communicator = std::max(0.0, o.stats.seconds - o.stats.seconds_source - o.stats.seconds_mapping);
  set_last(o.stats, o.status == MPIMON_REORDER_SUCCESS ? "" : o.message);
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0 || o.pass_through) return;
  const char* verbose = std::getenv("MPIMON_REORDER_VERBOSE");
  // Errors of mpimon_reorder are returned to the caller; a constructor's are said, since it goes on.
  const bool say = (verbose && std::strcmp(verbose, "1") == 0) ||
                   (o.status != MPIMON_REORDER_SUCCESS && std::strncmp(request.call, "MPI_", 4) == 0);
  if (say) {
    const std::string line = verbose_line(request, o);
    std::fputs(line.c_str(), stderr);
    std::fflush(stderr);
  }
  if (const char* path = std::getenv("MPIMON_REORDER_STATS"); path && *path) {
    std::ofstream(path, std::ios::app) << stats_json(request, o);
  }
}

}  // namespace mpimon::reorder
