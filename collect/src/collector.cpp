// libmpimon-collect.so: collects Open MPI's monitoring from a running application into one
// mpimon-matrices HDF5 file (docs/collect.md), one dump group per phase. Phases end at every
// MPI_Pcontrol and at MPI_Finalize.
//
// Interception: MPI_Init, MPI_Init_thread, MPI_Pcontrol and MPI_Finalize, each under both its MPI_
// and its PMPI_ name, and nothing else. An application without its own tool calls our MPI_Init; a
// tool built into the application defines MPI_Init itself (the executable's symbols come before
// any preloaded library) and calls PMPI_Init, which is ours. Either way the collector runs once and
// passes the call on to the next definition (the MPI library's PMPI_*), so the application's own
// PMPI tools keep working.
//
// Each process keeps the text of its phases in memory (a `.prof` dump's text: the one Open MPI's
// flush writes where the MPI_T flush variable works, else one written from the MPI_T counters it
// can read); at MPI_Finalize they are gathered to rank 0, which writes the file through the
// analysis library's merge.

#include <dlfcn.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "mpimon/base/scratch.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/matrices/merge.hpp"
#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/mpi/mpit.hpp"

namespace {

namespace fs = std::filesystem;

// ---- Settings (environment variables, set by `mpimon collect` or by the user) -----------------

struct Settings {
  std::string output = "mpimon-collect.h5";
  bool refuse_missing = false;  // MPIMON_COLLECT_MISSING=refuse: abort when a class is missing
  std::string temporary_root;   // node-local directory for the flushed dumps
  std::string copy_dumps;       // testing aid: rank 0 also leaves the gathered dumps here
  bool tree = false;            // MPIMON_COLLECT_TRANSPORT=tree: binomial tree instead of a gather
  bool timing = false;          // MPIMON_COLLECT_TIMING=1: rank 0 prints the transport and write times
  // MPIMON_COLLECT_COMPONENTS (set by mpimon collect): the monitoring components loaded, comma-separated
  std::optional<std::vector<std::string>> components;
};

std::string environment(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

Settings read_settings() {
  Settings s;
  s.output = environment("MPIMON_COLLECT_OUTPUT", s.output);
  const std::string missing = environment("MPIMON_COLLECT_MISSING", "label");
  if (missing != "label" && missing != "refuse") {
    std::fprintf(stderr, "mpimon-collect: MPIMON_COLLECT_MISSING must be label or refuse, not '%s'; using label\n",
                 missing.c_str());
  }
  s.refuse_missing = missing == "refuse";
  s.temporary_root = environment("MPIMON_COLLECT_TMPDIR", environment("TMPDIR", "/tmp"));
  s.copy_dumps = environment("MPIMON_COLLECT_COPY_DUMPS", "");
  const std::string transport = environment("MPIMON_COLLECT_TRANSPORT", "gather");
  if (transport != "gather" && transport != "tree") {
    std::fprintf(stderr, "mpimon-collect: MPIMON_COLLECT_TRANSPORT must be gather or tree, not '%s'; using gather\n",
                 transport.c_str());
  }
  s.tree = transport == "tree";
  s.timing = environment("MPIMON_COLLECT_TIMING", "0") == "1";
  if (const char* list = std::getenv("MPIMON_COLLECT_COMPONENTS")) {
    s.components.emplace();
    std::istringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
      if (!item.empty()) s.components->push_back(item);
    }
  }
  return s;
}

// The classes of a dump group, as docs/matrices-format.md names them, plus the histograms and the
// per-communicator records.
const char* const kExternal = "external";
const char* const kInternal = "internal";
const char* const kOscSent = "osc_sent";
const char* const kOscRecv = "osc_recv";
const char* const kColl = "coll";
const char* const kHistogram = "histogram";
const char* const kCommunicators = "communicators";

// ---- Where a phase's dump comes from ----------------------------------------------------------

class PhaseSource {
 public:
  virtual ~PhaseSource() = default;
  /// Ends the current phase and returns its dump text (what this process recorded in it).
  virtual std::string close_phase(int phase, bool last) = 0;
  std::vector<std::string> collected, missing;
};

std::string read_and_remove(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::error_code ignored;
  fs::remove(path, ignored);
  return text.str();
}

/// Open MPI 5: the `pml_monitoring_flush` variable. Stopping its handle writes NAME.RANK.prof
/// (everything a finalize dump holds) and resets the counters; the file is read and removed at
/// once, so no dump stays on disk.
class FlushSource : public PhaseSource {
 public:
  FlushSource(int index, int rank, const std::string& temporary_root)
      : rank_(rank), directory_(temporary_root, "mpimon-collect-") {
    mpimon::mpi::check(MPI_T_pvar_session_create(&session_), "MPI_T_pvar_session_create");
    int elements = 0;
    mpimon::mpi::check(MPI_T_pvar_handle_alloc(session_, index, nullptr, &handle_, &elements),
                       "MPI_T_pvar_handle_alloc(pml_monitoring_flush)");
    start(1);
    collected = {kExternal, kInternal, kOscSent, kOscRecv, kColl, kHistogram, kCommunicators};
  }
  ~FlushSource() override {
    MPI_T_pvar_handle_free(session_, &handle_);
    MPI_T_pvar_session_free(&session_);
  }

  std::string close_phase(int phase, bool last) override {
    mpimon::mpi::check(MPI_T_pvar_stop(session_, handle_), "MPI_T_pvar_stop(pml_monitoring_flush)");
    std::string text = read_and_remove(name(phase) + "." + std::to_string(rank_) + ".prof");
    if (!last) start(phase + 1);
    return text;
  }

 private:
  std::string name(int phase) const { return (directory_.path() / ("phase_" + std::to_string(phase))).string(); }
  void start(int phase) {
    const std::string file = name(phase);
    mpimon::mpi::check(MPI_T_pvar_write(session_, handle_, file.c_str()), "MPI_T_pvar_write(pml_monitoring_flush)");
    mpimon::mpi::check(MPI_T_pvar_start(session_, handle_), "MPI_T_pvar_start(pml_monitoring_flush)");
  }

  int rank_;
  mpimon::ScratchDirectory directory_;
  MPI_T_pvar_session session_{};
  MPI_T_pvar_handle handle_{};
};

/// Open MPI 4.1 (no flush variable after MPI_Init: docs/defects.md, pml-mpit-invalid-after-init):
/// the osc and coll counters that MPI_T still delivers, read at each phase's end and written as
/// the lines of a dump. Handles are never stopped (stopping one stops all counting), and the
/// counters are cumulative, so a phase is the difference of two readings.
class CounterSource : public PhaseSource {
 public:
  CounterSource(int rank, int size) : rank_(rank), size_(size) {
    add_array(kOscSent, "osc_monitoring_messages_sent_count", "osc_monitoring_messages_sent_size");
    add_array(kOscRecv, "osc_monitoring_messages_recv_count", "osc_monitoring_messages_recv_size");
    add_array(kColl, "coll_monitoring_messages_count", "coll_monitoring_messages_size");
    world_records_ = add_world_records();
    missing = {kExternal, kInternal, kHistogram, kCommunicators};
    for (const char* c : {kOscSent, kOscRecv, kColl}) {
      if (!has(c)) missing.push_back(c);
    }
    if (world_records_) collected.push_back("communicators:MPI_COMM_WORLD");
  }

  std::string close_phase(int, bool) override {
    std::vector<std::vector<std::uint64_t>> now;
    for (std::size_t h = 0; h < handles_; ++h) now.push_back(session_.read(h));
    if (previous_.empty()) previous_.assign(now.size(), {});
    std::vector<std::vector<std::uint64_t>> delta(now.size());
    for (std::size_t h = 0; h < now.size(); ++h) {
      delta[h] = now[h];
      for (std::size_t i = 0; i < previous_[h].size() && i < delta[h].size(); ++i) delta[h][i] -= previous_[h][i];
    }
    previous_ = now;
    return text(delta);
  }

 private:
  struct Array {
    const char* traffic_class;
    char letter;
    std::size_t count_handle, size_handle;
  };

  bool has(const char* c) const {
    for (const auto& a : arrays_) {
      if (std::strcmp(a.traffic_class, c) == 0) return true;
    }
    return false;
  }

  std::optional<std::size_t> start(const char* name, int var_class) {
    auto index = mpimon::mpi::find_pvar(name, var_class);
    if (!index) return std::nullopt;
    session_.start(*index, MPI_COMM_WORLD);
    return handles_++;
  }

  void add_array(const char* traffic_class, const char* count_name, const char* size_name) {
    auto count = start(count_name, MPI_T_PVAR_CLASS_SIZE);
    auto size = count ? start(size_name, MPI_T_PVAR_CLASS_SIZE) : std::nullopt;
    if (!count || !size) return;  // a lone started handle is harmless: it is never read
    const char letter = traffic_class == kOscSent ? 'S' : traffic_class == kOscRecv ? 'R' : 'C';
    arrays_.push_back({traffic_class, letter, *count, *size});
    collected.push_back(traffic_class);
  }

  /// MPI_COMM_WORLD's O2A, A2O and A2A records: count and size handle of each, in that order.
  std::optional<std::size_t> add_world_records() {
    std::optional<std::size_t> first;
    for (const char* kind : {"o2a", "a2o", "a2a"}) {
      auto count = start((std::string("coll_monitoring_") + kind + "_count").c_str(), MPI_T_PVAR_CLASS_COUNTER);
      auto size = start((std::string("coll_monitoring_") + kind + "_size").c_str(), MPI_T_PVAR_CLASS_AGGREGATE);
      if (!count || !size || *size != *count + 1) return std::nullopt;
      if (!first) first = count;
    }
    return first;
  }

  static std::string line(char letter, int me, int peer, std::uint64_t bytes, std::uint64_t count) {
    return std::string(1, letter) + "\t" + std::to_string(me) + "\t" + std::to_string(peer) + "\t" +
           std::to_string(bytes) + " bytes\t" + std::to_string(count) + " msgs sent\n";
  }

  // The order of Open MPI's own dump: for each peer S then R, then all C lines.
  std::string text(const std::vector<std::vector<std::uint64_t>>& delta) const {
    std::string out = "# POINT TO POINT\n# OSC\n";
    for (int peer = 0; peer < size_; ++peer) {
      for (const auto& a : arrays_) {
        if (a.letter == 'C') continue;
        const auto p = static_cast<std::size_t>(peer);
        if (delta[a.count_handle][p] != 0) {
          out += line(a.letter, rank_, peer, delta[a.size_handle][p], delta[a.count_handle][p]);
        }
      }
    }
    out += "# COLLECTIVES\n";
    for (const auto& a : arrays_) {
      if (a.letter != 'C') continue;
      for (int peer = 0; peer < size_; ++peer) {
        const auto p = static_cast<std::size_t>(peer);
        if (delta[a.count_handle][p] != 0) {
          out += line('C', rank_, peer, delta[a.size_handle][p], delta[a.count_handle][p]);
        }
      }
    }
    // The world's D block also gives the dump its number of processes when no line names a peer.
    out += "D\tMPI_COMM_WORLD\tprocs: ";
    for (int r = 0; r < size_; ++r) out += (r ? "," : "") + std::to_string(r);
    out += "\n";
    const char* kinds[] = {"O2A", "A2O", "A2A"};
    for (std::size_t k = 0; k < 3; ++k) {
      std::uint64_t count = 0, bytes = 0;
      if (world_records_) {
        count = delta[*world_records_ + 2 * k][0];
        bytes = delta[*world_records_ + 2 * k + 1][0];
      }
      out += std::string(kinds[k]) + "\t" + std::to_string(rank_) + "\t" + std::to_string(bytes) + " bytes\t" +
             std::to_string(count) + " msgs sent\n";
    }
    return out;
  }

  int rank_, size_;
  mpimon::mpi::PvarSession session_;
  std::size_t handles_ = 0;
  std::vector<Array> arrays_;
  std::optional<std::size_t> world_records_;
  std::vector<std::vector<std::uint64_t>> previous_;
};

// ---- The collector ----------------------------------------------------------------------------

struct Collector {
  Settings settings;
  int rank = 0, size = 1;
  std::unique_ptr<PhaseSource> source;
  std::vector<std::string> phases;  // this process's dump text of each closed phase
  bool mpit_initialised = false;
};

Collector* g_collector = nullptr;
bool g_inside = false;  // set while a hook runs: MPI_Init calling PMPI_Init must not hook twice

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out;
}

void start_collecting() {
  auto c = std::make_unique<Collector>();
  c->settings = read_settings();
  PMPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &c->size);
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
    if (c->rank == 0) std::fprintf(stderr, "mpimon-collect: MPI_T_init_thread failed: nothing is collected\n");
    return;
  }
  c->mpit_initialised = true;
  try {
    if (auto flush = mpimon::mpi::find_pvar("pml_monitoring_flush", MPI_T_PVAR_CLASS_GENERIC)) {
      c->source = std::make_unique<FlushSource>(*flush, c->rank, c->settings.temporary_root);
    } else {
      c->source = std::make_unique<CounterSource>(c->rank, c->size);
    }
  } catch (const std::exception& e) {
    if (c->rank == 0) std::fprintf(stderr, "mpimon-collect: %s: nothing is collected\n", e.what());
    MPI_T_finalize();
    return;
  }
  const auto& s = *c->source;
  if (c->rank == 0 && !s.missing.empty()) {
    std::fprintf(stderr,
                 "mpimon-collect: this MPI library does not deliver these classes through MPI_T: %s "
                 "(collected: %s)\n",
                 join(s.missing).c_str(), s.collected.empty() ? "nothing" : join(s.collected).c_str());
  }
  const bool nothing = std::none_of(s.collected.begin(), s.collected.end(),
                                    [](const std::string& k) { return k.find(':') == std::string::npos; });
  if (!s.missing.empty() && (c->settings.refuse_missing || nothing)) {
    if (c->rank == 0) {
      std::fprintf(stderr, "mpimon-collect: refusing to collect %s (MPIMON_COLLECT_MISSING=%s)\n",
                   nothing ? "nothing" : "a partial file", c->settings.refuse_missing ? "refuse" : "label");
    }
    PMPI_Abort(MPI_COMM_WORLD, 3);
  }
  g_collector = c.release();
}

void close_phase(bool last) {
  Collector& c = *g_collector;
  c.phases.push_back(c.source->close_phase(static_cast<int>(c.phases.size()) + 1, last));
}

// Each rank's phases, as one buffer: per phase an 8-byte length and the text.
std::vector<char> pack(const std::vector<std::string>& phases) {
  std::vector<char> out;
  for (const auto& text : phases) {
    const std::uint64_t n = text.size();
    out.insert(out.end(), reinterpret_cast<const char*>(&n), reinterpret_cast<const char*>(&n) + sizeof n);
    out.insert(out.end(), text.begin(), text.end());
  }
  return out;
}

std::vector<std::string> unpack(const char* data, std::size_t size) {
  std::vector<std::string> phases;
  std::size_t at = 0;
  while (at + sizeof(std::uint64_t) <= size) {
    std::uint64_t n = 0;
    std::memcpy(&n, data + at, sizeof n);
    at += sizeof n;
    phases.emplace_back(data + at, n);
    at += n;
  }
  return phases;
}

/// The release of the Open MPI this process runs ("Open MPI v4.1.4, package: ..." -> "4.1.4"), or "".
std::string library_release() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
  int length = 0;
  PMPI_Get_library_version(text, &length);
  std::cmatch m;
  static const std::regex release(R"(Open MPI v([0-9]+\.[0-9]+\.[0-9]+[^ ,]*))");
  return std::regex_search(text, m, release) ? m[1].str() : "";
}

/// Rank 0: writes every rank's phases as NAME.RANK.prof in a private directory, merges them into
/// the output (atomically: written under a temporary name and renamed) and removes them.
void write_file(const Collector& c, const std::vector<std::vector<std::string>>& by_rank) {
  const mpimon::ScratchDirectory scratch(c.settings.temporary_root, "mpimon-collect-");
  const fs::path& directory = scratch.path();
  std::vector<std::string> paths;
  for (std::size_t r = 0; r < by_rank.size(); ++r) {
    for (std::size_t k = 0; k < by_rank[r].size(); ++k) {
      const std::string name = "phase_" + std::to_string(k + 1) + "." + std::to_string(r) + ".prof";
      std::ofstream((directory / name).string(), std::ios::binary) << by_rank[r][k];
      paths.push_back((directory / name).string());
      if (!c.settings.copy_dumps.empty()) {
        std::ofstream((fs::path(c.settings.copy_dumps) / name).string(), std::ios::binary) << by_rank[r][k];
      }
    }
  }
  mpimon::MergeOptions options;
  options.generator = std::string("mpimon ") + mpimon::kVersion + " (collect)";
  options.root_string_lists = {{"collected_classes", c.source->collected}, {"missing_classes", c.source->missing}};
  options.root_strings = {{"open_mpi_version", library_release()}};
  if (c.settings.components) options.root_string_lists.emplace_back("monitoring_components", *c.settings.components);
  options.threads = 1;
  mpimon::merge_prof_files(paths, c.settings.output, options);
}

// Every rank's packed phases at rank 0 (empty elsewhere), by one MPI_Gather of the sizes and one
// MPI_Gatherv: the chosen transport (docs/collect.md, measured against the tree below).
std::vector<std::vector<std::string>> gather_to_root(const Collector& c, const std::vector<char>& mine) {
  int my_size = static_cast<int>(mine.size());
  std::vector<int> sizes(c.rank == 0 ? static_cast<std::size_t>(c.size) : 0), offsets(sizes.size());
  PMPI_Gather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::vector<char> all;
  if (c.rank == 0) {
    std::size_t total = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      offsets[r] = static_cast<int>(total);
      total += static_cast<std::size_t>(sizes[r]);
    }
    all.resize(total);
  }
  PMPI_Gatherv(mine.data(), my_size, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  std::vector<std::vector<std::string>> by_rank;
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    by_rank.push_back(unpack(all.data() + offsets[r], static_cast<std::size_t>(sizes[r])));
  }
  return by_rank;
}

// The same through a binomial tree (log2 P rounds, each process forwarding its subtree's blocks,
// framed as rank and size): the alternative the measurement compared the gather with.
std::vector<std::vector<std::string>> tree_to_root(const Collector& c, const std::vector<char>& mine) {
  std::vector<char> blocks;
  const auto frame = [&blocks](std::uint64_t rank, const std::vector<char>& data) {
    const std::uint64_t header[2] = {rank, data.size()};
    blocks.insert(blocks.end(), reinterpret_cast<const char*>(header),
                  reinterpret_cast<const char*>(header) + sizeof header);
    blocks.insert(blocks.end(), data.begin(), data.end());
  };
  frame(static_cast<std::uint64_t>(c.rank), mine);
  for (int mask = 1; mask < c.size; mask <<= 1) {
    if ((c.rank & mask) != 0) {
      const std::uint64_t n = blocks.size();
      PMPI_Send(&n, 1, MPI_UINT64_T, c.rank - mask, 0, MPI_COMM_WORLD);
      PMPI_Send(blocks.data(), static_cast<int>(n), MPI_CHAR, c.rank - mask, 1, MPI_COMM_WORLD);
      return {};
    }
    if (c.rank + mask < c.size) {
      std::uint64_t n = 0;
      PMPI_Recv(&n, 1, MPI_UINT64_T, c.rank + mask, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const std::size_t at = blocks.size();
      blocks.resize(at + n);
      PMPI_Recv(blocks.data() + at, static_cast<int>(n), MPI_CHAR, c.rank + mask, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  std::vector<std::vector<std::string>> by_rank(static_cast<std::size_t>(c.size));
  for (std::size_t at = 0; at + 2 * sizeof(std::uint64_t) <= blocks.size();) {
    std::uint64_t header[2];
    std::memcpy(header, blocks.data() + at, sizeof header);
    at += sizeof header;
    by_rank.at(header[0]) = unpack(blocks.data() + at, header[1]);
    at += header[1];
  }
  return by_rank;
}

void finish_collecting() {
  Collector& c = *g_collector;
  if (c.settings.timing) PMPI_Barrier(MPI_COMM_WORLD);  // time the transport, not the ranks' arrival
  const double start = PMPI_Wtime();
  const std::vector<char> mine = pack(c.phases);
  const auto by_rank = c.settings.tree ? tree_to_root(c, mine) : gather_to_root(c, mine);
  if (c.rank != 0) return;
  const double gathered = PMPI_Wtime();
  try {
    write_file(c, by_rank);
    std::fprintf(stderr, "mpimon-collect: %zu phase(s) of %d process(es) written to %s\n", c.phases.size(), c.size,
                 c.settings.output.c_str());
    if (c.settings.timing) {
      std::size_t bytes = 0;
      for (const auto& phases : by_rank) {
        for (const auto& text : phases) bytes += text.size();
      }
      std::fprintf(stderr, "mpimon-collect: timing: transport %s %.6f s for %zu bytes, write %.6f s\n",
                   c.settings.tree ? "tree" : "gather", gathered - start, bytes, PMPI_Wtime() - gathered);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpimon-collect: no file written: %s\n", e.what());
  }
}

void stop_collecting() {
  if (!g_collector) return;
  try {
    close_phase(true);
    finish_collecting();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpimon-collect: rank %d: %s\n", g_collector->rank, e.what());
  }
  g_collector->source.reset();  // frees the MPI_T handles and removes this process's directory
  // MPI_T_finalize after MPI_Finalize crashes Open MPI 4.1.4: before it
  // (docs/open-mpi-versions.md#mpi_t_finalize-comes-before-mpi_finalize).
  if (g_collector->mpit_initialised) MPI_T_finalize();
  delete g_collector;
  g_collector = nullptr;
}

// ---- The intercepted calls --------------------------------------------------------------------

template <typename F>
F next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

int init_thread(int* argc, char*** argv, int required, int* provided) {
  static auto real = next<int (*)(int*, char***, int, int*)>("PMPI_Init_thread");
  const bool outer = !g_inside;
  g_inside = true;
  int rc = real(argc, argv, required, provided);
  if (outer && rc == MPI_SUCCESS) start_collecting();
  g_inside = !outer;
  return rc;
}

int init(int* argc, char*** argv) {
  static auto real = next<int (*)(int*, char***)>("PMPI_Init");
  const bool outer = !g_inside;
  g_inside = true;
  int rc = real(argc, argv);
  if (outer && rc == MPI_SUCCESS) start_collecting();
  g_inside = !outer;
  return rc;
}

int pcontrol(int level) {
  static auto real = next<int (*)(int, ...)>("PMPI_Pcontrol");
  if (!g_inside && g_collector) {
    g_inside = true;
    try {
      close_phase(false);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "mpimon-collect: rank %d: %s\n", g_collector->rank, e.what());
    }
    g_inside = false;
  }
  return real(level);
}

int finalize() {
  static auto real = next<int (*)()>("PMPI_Finalize");
  if (!g_inside) {
    g_inside = true;
    stop_collecting();
    g_inside = false;
  }
  return real();
}

}  // namespace

extern "C" {
int MPI_Init(int* argc, char*** argv) { return init(argc, argv); }
int PMPI_Init(int* argc, char*** argv) { return init(argc, argv); }
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return init_thread(argc, argv, required, provided);
}
int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  return init_thread(argc, argv, required, provided);
}
int MPI_Pcontrol(const int level, ...) { return pcontrol(level); }
int PMPI_Pcontrol(const int level, ...) { return pcontrol(level); }
int MPI_Finalize() { return finalize(); }
int PMPI_Finalize() { return finalize(); }
}
