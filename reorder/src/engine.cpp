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
#include <map>
#include <stdexcept>
#include <string>

#include "mpimon/base/error.hpp"
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

// The variables a user sets (docs/reorder.md, Environment) are checked before anything is decided:
// a value the library does not understand is an error naming the variable, not a silent default.
std::string environment_problem() {
  const char* mode = std::getenv("MPIMON_REORDER");
  if (mode && *mode && std::strcmp(mode, "on") != 0 && std::strcmp(mode, "1") != 0) {
    return std::string("MPIMON_REORDER='") + mode + "': expected on, 1, off or 0";
  }
  const char* verbose = std::getenv("MPIMON_REORDER_VERBOSE");
  if (verbose && *verbose && std::strcmp(verbose, "1") != 0 && std::strcmp(verbose, "0") != 0) {
    return std::string("MPIMON_REORDER_VERBOSE='") + verbose + "': expected 1 or 0";
  }
  if (const char* text = std::getenv("MPIMON_REORDER_TIME_LIMIT"); text && *text) {
    char* end = nullptr;
    const double s = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(s > 0) || s > 86400) {
      return std::string("MPIMON_REORDER_TIME_LIMIT='") + text + "': expected seconds, more than 0 and at most 86400";
    }
  }
  return "";
}

double time_limit(std::uint32_t vertices) {
  if (const char* text = std::getenv("MPIMON_REORDER_TIME_LIMIT"); text && *text) return std::strtod(text, nullptr);
  return default_time_limit(vertices);
}

/// Rank 0's decisions by graph and places: a constructor called again (one topology per step) on
/// the same graph and the same places pays the gathers and the communicator, not the mapping. Two
/// independent 64-bit hashes name an entry; the least recently used of kCacheSize is dropped.
class DecisionCache {
 public:
  struct Key {
    std::uint64_t a = 0, b = 0;
    bool operator==(const Key&) const = default;
  };
  static Key key(std::uint32_t vertices, const AffinityGraph& graph, const std::vector<ProcessPlace>& places) {
    Key k{0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full};
    auto add = [&k](std::uint64_t x) {
      k.a = mix(k.a ^ x);
      k.b = mix(k.b + x * 0xff51afd7ed558ccdull);
    };
    add(vertices);
    add(graph.edges.size());
    for (const auto& e : graph.edges) add((std::uint64_t{e.a} << 32) | e.b), add(e.weight);
    add(places.size());
    for (const auto& p : places) {
      add(std::hash<std::string>{}(p.host));
      add((std::uint64_t{p.bound} << 63) | (std::uint64_t{p.package} << 32) | p.core);
      add((std::uint64_t{p.packages} << 32) | p.cores_per_package);
    }
    return k;
  }
  const Decision* find(const Key& k) {
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      if (entries_[i].first == k) {
        std::rotate(entries_.begin(), entries_.begin() + static_cast<std::ptrdiff_t>(i),
                    entries_.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        return &entries_.front().second;
      }
    }
    return nullptr;
  }
  void add(const Key& k, Decision d) {
    if (entries_.size() == kCacheSize) entries_.pop_back();
    entries_.insert(entries_.begin(), {k, std::move(d)});
  }
  static constexpr std::size_t kCacheSize = 64;

 private:
  static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  std::vector<std::pair<Key, Decision>> entries_;
};

// MPIMON_REORDER_PLAN: the order is kept and, the first time the processes of MPI_COMM_WORLD would
// be renumbered, the placement is written for the next launch (docs/reorder.md, "A plan for the
// next launch"); the note says what became of it.
Header plan_instead(Header h, const Request& request, const std::string& path, const std::vector<ProcessPlace>& places,
                    std::vector<std::uint32_t>& process_of) {
  static bool written = false;
  auto& s = h.stats;
  if (!s.reordered) return h;
  char note[sizeof s.note];
  if (!request.whole_world) {
    std::snprintf(note, sizeof note, "MPIMON_REORDER_PLAN: not the processes of MPI_COMM_WORLD, no plan written");
  } else if (written) {
    std::snprintf(note, sizeof note, "MPIMON_REORDER_PLAN: %s was written by an earlier call", path.c_str());
  } else {
    try {
      write_plan(path, process_of, places, s.placed_by_core != 0);
    } catch (const std::exception& e) {
      h.status = MPIMON_REORDER_ERR_ARG;
      copy_text(h.message, std::string("MPIMON_REORDER_PLAN: ") + e.what());
      return h;
    }
    written = true;
    std::snprintf(note, sizeof note,
                  "MPIMON_REORDER_PLAN: the placement of modelled cost %.0f (between nodes %.0f) "
                  "written to %s (and .hosts) for the next launch",
                  s.cost_after, s.between_nodes_after, path.c_str());
  }
  s.reordered = 0;
  s.cost_after = s.cost_before;
  s.between_nodes_after = s.between_nodes_before;
  s.kept_ranks = static_cast<int>(s.vertices);
  s.rank0_kept = 1;
  copy_text(s.method, "identity");
  copy_text(s.note, note);
  process_of.clear();
  return h;
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
  if (const std::string problem = environment_problem(); !problem.empty()) return fail(MPIMON_REORDER_ERR_ARG, problem);
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
  AffinityGraph graph;
  try {
    graph = fold_edges(request.vertices, std::move(edges));  // weights beyond 64 bits: the caller's
  } catch (const std::exception& e) {
    return fail(MPIMON_REORDER_ERR_ARG, e.what());
  }
  // Anything that goes wrong from here is the library's own failure: an error on every process,
  // never a success that hides it.
  try {
    if (const char* fault = std::getenv("MPIMON_REORDER_INJECT_FAULT"); fault && std::strcmp(fault, "decide") == 0) {
      throw std::runtime_error("a fault injected by MPIMON_REORDER_INJECT_FAULT=decide (tests)");
    }
    const Machine machine = machine_model(places);
    static DecisionCache cache;
    const auto key = DecisionCache::key(request.vertices, graph, places);
    const Decision* known = cache.find(key);
    s.cached = known != nullptr;
    if (!known) {
      cache.add(key, decide(request.vertices, graph, machine, time_limit(request.vertices)));
      known = cache.find(key);
    }
    const Decision& d = *known;
    s.nodes = static_cast<int>(machine.nodes);
    s.placed_by_core = machine.by_core;
    s.reordered = d.reordered;
    s.edges = static_cast<long long>(d.edges);
    s.cost_before = d.cost_before;
    s.cost_after = d.cost_after;
    s.between_nodes_before = d.between_before;
    s.between_nodes_after = d.between_after;
    s.kept_ranks = static_cast<int>(d.kept);
    s.rank0_kept = d.rank0_kept;
    copy_text(s.method, d.method);
    std::string note = d.note;
    if (!machine.note.empty()) note = machine.note + (note.empty() ? "" : "; " + note);
    if (s.cached) note += std::string(note.empty() ? "" : "; ") + "the decision of an earlier call on this graph";
    copy_text(s.note, note);
    process_of = d.process_of;
  } catch (const std::exception& e) {
    s.reordered = 0, s.kept_ranks = 0, s.rank0_kept = 0;
    return fail(MPIMON_REORDER_ERR_INTERNAL,
                std::string("internal error of libmpimon-reorder while deciding (rank 0): ") + e.what());
  }
  s.seconds_mapping = PMPI_Wtime() - t1;
  if (const char* plan = std::getenv("MPIMON_REORDER_PLAN"); plan && *plan && request.may_plan) {
    return plan_instead(h, request, plan, places, process_of);
  }
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
      int same = MPI_UNEQUAL;
      PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same);
      request.whole_world = same == MPI_IDENT || same == MPI_CONGRUENT;
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

namespace {

// Writes `text` to `path` whole or not at all (a partial file renamed once written).
void write_whole(const std::string& path, const std::string& text) {
  check_output_path(path);
  const std::string partial = path + ".partial";
  {
    std::ofstream out(partial);
    out << text;
    if (!out.flush()) raise_error(Error::Kind::system, path, "cannot be written");
  }
  if (std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    raise_error(Error::Kind::system, path, "cannot be written");
  }
}

}  // namespace

void write_plan(const std::string& path, const std::vector<std::uint32_t>& process_of,
                const std::vector<ProcessPlace>& places, bool by_core) {
  // The process whose place each rank of the next launch takes: the vertices' first, then the rest.
  std::vector<std::uint32_t> order(process_of);
  std::vector<bool> placed(places.size(), false);
  for (const auto p : process_of) placed.at(p) = true;
  for (std::uint32_t p = 0; p < places.size(); ++p) {
    if (!placed[p]) order.push_back(p);
  }
  std::string rankfile, hosts;
  std::map<std::string, int> slots;  // by node: the next slot of each host, in rank order
  for (std::size_t r = 0; r < order.size(); ++r) {
    const ProcessPlace& at = places[order[r]];
    const std::string slot =
        by_core ? std::to_string(at.package) + ":" + std::to_string(at.core) : std::to_string(slots[at.host]++);
    rankfile += "rank " + std::to_string(r) + "=" + at.host + " slot=" + slot + "\n";
    hosts += at.host + "\n";
  }
  write_whole(path + ".hosts", hosts);
  write_whole(path, rankfile);
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
    const bool constructor = std::strncmp(request.call, "MPI_", 4) == 0;
    std::snprintf(text, sizeof text, "mpimon-reorder: %s: error %d: %s%s\n", request.call, o.status, o.message.c_str(),
                  constructor ? "; not reordered by the library: the call goes to the MPI library as made" : "");
    return text;
  }
  const double change = s.cost_before > 0 ? 100.0 * (s.cost_after / s.cost_before - 1.0) : 0.0;
  char kept[128] = "";
  if (s.reordered) {
    std::snprintf(kept, sizeof kept, ", %d of %lld processes keep their rank (rank 0 %s)", s.kept_ranks, s.vertices,
                  s.rank0_kept ? "kept" : "moved");
  }
  std::snprintf(text, sizeof text,
                "mpimon-reorder: %s (%s): %d processes on %d node(s), placed by %s; %lld vertices, %lld edges; "
                "modelled cost %.0f -> %.0f (%+.1f %%), between nodes %.0f -> %.0f; %s (%s)%s%s%s; %.3f s "
                "(source %.3f, mapping %.3f, communicator %.3f)\n",
                request.call, request.source.c_str(), s.processes, s.nodes, s.placed_by_core ? "core" : "node",
                s.vertices, s.edges, s.cost_before, s.cost_after, change, s.between_nodes_before, s.between_nodes_after,
                s.reordered ? "reordered" : "order kept", s.method, kept, s.note[0] ? ": " : "", s.note, s.seconds,
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
                     {"kept_ranks", s.kept_ranks},
                     {"rank0_kept", s.rank0_kept != 0},
                     {"cached", s.cached != 0},
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
