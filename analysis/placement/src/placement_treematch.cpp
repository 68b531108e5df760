// The real TreeMatch, as Open MPI 4.1's topo/treematch component exports it, loaded at run time
// (mpimon does not link MPI). The library calls exit() on bad input, so it runs in a child process.
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/placement/mappers.hpp"
#include "placement_internal.hpp"

namespace mpimon {

namespace {

// The parts of TreeMatch's public API (treematch.h of Open MPI 4.1) that mpimon calls.
constexpr int kTmFileTypeTgt = 2;
struct TmSolution {
  int* sigma;
  std::size_t sigma_length;
  int** k;
  std::size_t k_length;
  int oversub_fact;
};
using LoadTopology = void* (*)(char*, int);
using BuildAffinityMat = void* (*)(double**, int);
using BuildTree = void* (*)(void*, void*, double*, double*);
using ComputeMapping = TmSolution* (*)(void*, void*);
using SetUnsigned = void (*)(unsigned);

constexpr const char* kSymbols[] = {"tm_load_topology",   "tm_build_affinity_mat", "tm_build_tree_from_topology",
                                    "tm_compute_mapping", "tm_set_verbose_level",  "tm_set_max_nb_threads"};

#ifndef MPIMON_LIBRARY_ARCHITECTURE
#define MPIMON_LIBRARY_ARCHITECTURE ""
#endif

std::vector<std::string> candidates() {
  std::vector<std::string> paths;
  if (const char* env = std::getenv("MPIMON_TREEMATCH_LIB"); env != nullptr && *env != '\0') return {env};
  const std::string arch = MPIMON_LIBRARY_ARCHITECTURE;
  for (const std::string& libdir : {"/usr/lib/" + arch, std::string("/usr/lib64"), std::string("/usr/lib")}) {
    for (const char* component : {"/openmpi/lib/openmpi3/mca_topo_treematch.so",
                                  "/openmpi/lib/openmpi/mca_topo_treematch.so", "/openmpi/mca_topo_treematch.so"}) {
      paths.push_back(libdir + component);
    }
  }
  return paths;
}

const char* const kWhere =
    "TreeMatch is exported by Open MPI 4.1's topo/treematch component (mca_topo_treematch.so, e.g. Debian 12's "
    "openmpi-bin 4.1.4); Open MPI 5 hides these symbols. Set MPIMON_TREEMATCH_LIB to the component's path";

}  // namespace

TreeMatchLibrary find_treematch() {
  std::string tried;
  for (const auto& path : candidates()) {
    if (!std::filesystem::exists(path)) {
      tried += " " + path;
      continue;
    }
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) return {"", std::string("cannot load ") + path + ": " + dlerror() + ". " + kWhere};
    std::string missing;
    for (const char* symbol : kSymbols) {
      if (dlsym(handle, symbol) == nullptr) missing += std::string(" ") + symbol;
    }
    dlclose(handle);
    if (!missing.empty()) return {"", path + " does not export" + missing + ". " + kWhere};
    return {path, ""};
  }
  return {"", std::string("no TreeMatch library found (looked for") + tried + "). " + kWhere};
}

namespace {

template <typename F>
F symbol(void* handle, const char* name) {
  return reinterpret_cast<F>(dlsym(handle, name));
}

// In the child: load the library and compute (the affinity matrix lives until the child exits).
Mapping compute_with_library(const std::string& library, const std::string& tgt, const AffinityGraph& graph) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) raise_error(Error::Kind::system, library, "cannot load it in the child");
  symbol<SetUnsigned>(handle, "tm_set_verbose_level")(0);
  symbol<SetUnsigned>(handle, "tm_set_max_nb_threads")(1);
  std::vector<char> tgt_path(tgt.begin(), tgt.end());
  tgt_path.push_back('\0');
  void* topology = symbol<LoadTopology>(handle, "tm_load_topology")(tgt_path.data(), kTmFileTypeTgt);
  // TreeMatch reads a dense matrix (it does not copy it).
  const std::size_t n = graph.order;
  auto* rows = new double*[n];
  for (std::size_t i = 0; i < n; ++i) rows[i] = new double[n]();
  for (const auto& e : graph.edges) rows[e.a][e.b] = rows[e.b][e.a] = static_cast<double>(e.weight);
  void* affinity = symbol<BuildAffinityMat>(handle, "tm_build_affinity_mat")(rows, static_cast<int>(n));
  void* tree = symbol<BuildTree>(handle, "tm_build_tree_from_topology")(topology, affinity, nullptr, nullptr);
  TmSolution* solution = symbol<ComputeMapping>(handle, "tm_compute_mapping")(topology, tree);
  if (solution == nullptr || solution->sigma_length < n)
    raise_error(Error::Kind::system, "treematch", "no solution for every rank");
  Mapping mapping(n);
  for (std::size_t r = 0; r < n; ++r) {
    if (solution->sigma[r] < 0)
      raise_error(Error::Kind::system, "treematch", "TreeMatch left rank " + std::to_string(r) + " unmapped");
    mapping[r] = static_cast<std::uint64_t>(solution->sigma[r]);
  }
  return mapping;
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t r; (r = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(r));
  return text;
}

}  // namespace

Mapping treematch_mapping(const AffinityGraph& graph, const TreeTopology& topo, double seconds, bool* timed_out) {
  const TreeMatchLibrary lib = find_treematch();
  if (lib.path.empty()) raise_error(Error::Kind::system, "treematch", lib.problem);
  if (graph.order > topo.leaves()) {
    raise_error(Error::Kind::input, "--topology",
                std::to_string(graph.order) + " ranks do not fit on " + std::to_string(topo.leaves()) + " leaves");
  }
  // TreeMatch reads the tree from a .tgt file: one line, single spaces. Its messages go to a file.
  const TemporaryFile tgt("place"), err("place-err");
  const bool written = static_cast<bool>(std::ofstream(tgt.path()) << topo.tleaf() << "\n");
  const int err_fd = open(err.path().c_str(), O_RDWR);
  if (!written || err_fd < 0) {
    if (err_fd >= 0) close(err_fd);
    raise_error(Error::Kind::system, "treematch", "cannot prepare the TreeMatch run");
  }
  bool late = false;
  Mapping mapping;
  try {
    mapping = placement_detail::compute_in_child(
        "treematch (" + lib.path + ")", [&] { return compute_with_library(lib.path, tgt.path(), graph); }, graph.order,
        seconds, late, err_fd);
  } catch (const Error& e) {
    lseek(err_fd, 0, SEEK_SET);
    std::string messages = read_all(err_fd);
    close(err_fd);
    while (!messages.empty() && (messages.back() == '\n' || messages.back() == ' ')) messages.pop_back();
    raise_error(Error::Kind::system, "treematch (" + lib.path + ")",
                std::string("TreeMatch ") + e.what() + (messages.empty() ? "" : ": " + messages));
  }
  close(err_fd);
  if (timed_out != nullptr) *timed_out = late;
  if (late) return {};
  TreeTopology whole = topo;  // TreeMatch knows no excluded leaves: place() repairs its mapping
  whole.excluded.clear();
  check_mapping(mapping, graph.order, whole);
  return mapping;
}

}  // namespace mpimon
