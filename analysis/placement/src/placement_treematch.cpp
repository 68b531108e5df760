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
#include "mpimon/placement/placement.hpp"

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

// In the child: load the library, compute, write sigma to `out_fd`, and _exit.
[[noreturn]] void compute_in_child(const std::string& library, const std::string& tgt, const AffinityGraph& graph,
                                   int out_fd, int err_fd) {
  dup2(err_fd, STDERR_FILENO);
  dup2(err_fd, STDOUT_FILENO);  // TreeMatch prints progress on stdout
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) _exit(3);
  symbol<SetUnsigned>(handle, "tm_set_verbose_level")(0);
  symbol<SetUnsigned>(handle, "tm_set_max_nb_threads")(1);
  std::vector<char> tgt_path(tgt.begin(), tgt.end());
  tgt_path.push_back('\0');
  void* topology = symbol<LoadTopology>(handle, "tm_load_topology")(tgt_path.data(), kTmFileTypeTgt);
  // TreeMatch reads a dense matrix (it does not copy it); it lives until _exit.
  const std::size_t n = graph.order;
  auto* rows = new double*[n];
  for (std::size_t i = 0; i < n; ++i) rows[i] = new double[n]();
  for (const auto& e : graph.edges) rows[e.a][e.b] = rows[e.b][e.a] = static_cast<double>(e.weight);
  void* affinity = symbol<BuildAffinityMat>(handle, "tm_build_affinity_mat")(rows, static_cast<int>(n));
  void* tree = symbol<BuildTree>(handle, "tm_build_tree_from_topology")(topology, affinity, nullptr, nullptr);
  TmSolution* solution = symbol<ComputeMapping>(handle, "tm_compute_mapping")(topology, tree);
  if (solution == nullptr || solution->sigma_length < n) _exit(4);
  std::vector<int> sigma(solution->sigma, solution->sigma + n);
  const auto* bytes = reinterpret_cast<const char*>(sigma.data());
  std::size_t left = sigma.size() * sizeof(int);
  while (left > 0) {
    const ssize_t w = write(out_fd, bytes, left);
    if (w <= 0) _exit(5);
    bytes += w;
    left -= static_cast<std::size_t>(w);
  }
  _exit(0);
}

std::string read_all(int fd) {
  std::string text;
  char buffer[4096];
  for (ssize_t r; (r = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(r));
  return text;
}

}  // namespace

Mapping treematch_mapping(const AffinityGraph& graph, const TreeTopology& topo) {
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
  int pipe_fds[2];
  if (!written || err_fd < 0 || pipe(pipe_fds) != 0) {
    if (err_fd >= 0) close(err_fd);
    raise_error(Error::Kind::system, "treematch", "cannot prepare the TreeMatch run");
  }
  std::fflush(nullptr);
  // In a process group of its own, which Ctrl-C stops first (scratch.hpp), as for a launch.
  StopGroupOnInterrupt stop_on_interrupt;
  const pid_t child = fork();
  if (child == 0) {
    stop_on_interrupt.track(0);
    setpgid(0, 0);
    close(pipe_fds[0]);
    compute_in_child(lib.path, tgt.path(), graph, pipe_fds[1], err_fd);
  }
  if (child > 0) {
    setpgid(child, child);
    stop_on_interrupt.track(child);
  }
  close(pipe_fds[1]);
  const std::string out = child > 0 ? read_all(pipe_fds[0]) : std::string();
  close(pipe_fds[0]);
  int status = 0;
  while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  StopGroupOnInterrupt::exit_if_interrupted();
  lseek(err_fd, 0, SEEK_SET);
  std::string messages = read_all(err_fd);
  close(err_fd);
  if (child < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.size() != graph.order * sizeof(int)) {
    while (!messages.empty() && (messages.back() == '\n' || messages.back() == ' ')) messages.pop_back();
    std::string why = child < 0             ? "fork failed"
                      : WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                            : "exit status " + std::to_string(WEXITSTATUS(status));
    raise_error(Error::Kind::system, "treematch (" + lib.path + ")",
                "TreeMatch failed: " + why + (messages.empty() ? "" : ": " + messages));
  }
  Mapping mapping(graph.order);
  for (std::size_t r = 0; r < graph.order; ++r) {
    int leaf;
    std::memcpy(&leaf, out.data() + r * sizeof(int), sizeof(int));
    if (leaf < 0)
      raise_error(Error::Kind::system, "treematch", "TreeMatch left rank " + std::to_string(r) + " unmapped");
    mapping[r] = static_cast<std::uint64_t>(leaf);
  }
  check_mapping(mapping, graph.order, topo);
  return mapping;
}

}  // namespace mpimon
