// mpimon-workload: application workloads with the communication signatures of MiniGhost and NAS
// CG, LU and BT (docs/workloads.md), for `mpimon bench app` and `mpimon validate`.
//
// Rank 0 prints one line, "mpimon-workload: " and a JSON object (times, traffic, check); the exit
// code is 0 when the workload's own check passes, 1 when it fails, 2 for bad options.

#include <boost/program_options.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "mpimon/models/workloads.hpp"
#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/workloads/app_workloads.hpp"

namespace po = boost::program_options;

namespace {

std::string usage() {
  std::string names;
  for (const auto& w : mpimon::kWorkloadKinds) names += (names.empty() ? "" : "|") + std::string(w.name);
  return "Usage: mpirun -np N mpimon-workload --workload " + names +
         " [options]\n"
         "Runs an application-like workload, checks its result, and prints on rank 0 one line:\n"
         "  mpimon-workload: {\"workload\":...,\"seconds\":...,\"comm_share\":...,\"passed\":true,...}\n"
         "Exit code 0 when the check passes, 1 when it fails, 2 for bad options.\n\n";
}

mpimon::Vec3 parse_grid(const std::string& text) {
  mpimon::Vec3 grid{};
  std::istringstream in(text);
  std::string item;
  std::size_t d = 0;
  for (; std::getline(in, item, ','); ++d) {
    std::size_t used = 0;
    int value = 0;
    try {
      value = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (d >= 3 || used != item.size() || value <= 0) {
      throw po::error("--grid must be three positive integers NX,NY,NZ, not '" + text + "'");
    }
    grid[d] = value;
  }
  if (d != 3) throw po::error("--grid must be three positive integers NX,NY,NZ, not '" + text + "'");
  return grid;
}

// The face neighbours of `rank` in a periodic 3-D grid of `dims` (row-major, the last dimension
// fastest, as MPI_Cart_create numbers it): one step down and up each dimension, itself left out;
// each weighted by the area of the face it exchanges, in points of `grid` (the global grid).
struct Neighbours {
  std::vector<int> ranks, weights;
};
Neighbours face_neighbours(int rank, const int dims[3], const mpimon::Vec3& grid) {
  const int c[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
  Neighbours out;
  for (int d = 0; d < 3; ++d) {
    const int a = (d + 1) % 3, b = (d + 2) % 3;
    const int area = std::max(1, grid[static_cast<std::size_t>(a)] / dims[a]) *
                     std::max(1, grid[static_cast<std::size_t>(b)] / dims[b]);
    for (int step : {-1, 1}) {
      int n[3] = {c[0], c[1], c[2]};
      n[d] = (n[d] + step + dims[d]) % dims[d];
      const int r = (n[0] * dims[1] + n[1]) * dims[2] + n[2];
      if (r == rank) continue;
      out.ranks.push_back(r);
      out.weights.push_back(area);
    }
  }
  return out;
}

struct Command {
  mpimon::workloads::WorkloadOptions options;
  std::string ledger;
  std::string topology_reorder;  ///< "", cart or dist-graph
  bool help = false;
};

Command parse(int argc, char** argv, po::options_description& desc) {
  Command c;
  std::string grid;
  auto& o = c.options;
  static const std::string workloads = mpimon::workload_help();
  desc.add_options()("help,h", "this help")("workload", po::value(&o.workload)->required(), workloads.c_str())(
      "class", po::value(&o.problem_class)->default_value("small"), "problem class: small, medium, large")(
      "iterations", po::value(&o.iterations)->default_value(0), "iterations (0: the class's; cg: from the bound)")(
      "ledger", po::value(&c.ledger), "write each rank's ledger to PREFIX.RANK.ledger")(
      "grid", po::value(&grid), "global grid NX,NY,NZ (default: the class's)")(
      "vars", po::value(&o.vars)->default_value(0), "variables per point, stencil, lu, bt (0: the class's)")(
      "points", po::value(&o.points)->default_value(7), "stencil: 7 (faces) or 27 (faces, edges, corners)")(
      "compute", po::value(&o.compute)->default_value(0.0),
      "extra floating-point operations per point, variable and iteration (the compute knob)")(
      "block", po::value(&o.block)->default_value(1), "lu: z planes per pipelined message")(
      "scramble", po::value(&o.scramble)->default_value(0),
      "stencil: give the ranks shuffled places in the process grid (seed S > 0), as an application's own rank "
      "order may not follow the machine; 0: MPI_Cart_create's order")(
      "topology-reorder", po::value(&c.topology_reorder),
      "stencil: run on a communicator whose ranks the MPI library (or libmpimon-reorder, preloaded by mpimon run "
      "--reorder) may renumber to fit the machine (docs/reorder.md): cart, MPI_Cart_create(MPI_COMM_WORLD, 3, "
      "MPI_Dims_create's dims, periodic, reorder=1), every neighbour of weight 1 (MPI has no weights for it); "
      "dist-graph, MPI_Dist_graph_create_adjacent of the same grid's face neighbours, each weighted by the area of "
      "its face, reorder=1; not with --scramble or --ledger")(
      "inject-error", po::bool_switch(&o.inject_error),
      "corrupt one message of rank 0 (adds 1 to its values): the check must fail");
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(desc).run(), vm);
  if (vm.count("help")) {
    c.help = true;
    return c;
  }
  po::notify(vm);
  if (!grid.empty()) o.grid = parse_grid(grid);
  o.renumbered = !c.topology_reorder.empty();
  if (!c.topology_reorder.empty() && c.topology_reorder != "cart" && c.topology_reorder != "dist-graph") {
    throw po::error("--topology-reorder takes cart or dist-graph, not '" + c.topology_reorder + "'");
  }
  if (!c.topology_reorder.empty() && (o.workload != "stencil" || o.scramble != 0 || !c.ledger.empty())) {
    throw po::error("--topology-reorder runs the stencil alone, without --scramble or --ledger");
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session session(argc, argv);
  const bool root = session.rank() == 0;
  po::options_description desc("Options");
  Command command;
  try {
    command = parse(argc, argv, desc);
  } catch (const po::error& e) {
    // Every rank parses the same command line, so all leave here together.
    if (root) std::cerr << "mpimon-workload: error: " << e.what() << "\n" << usage() << desc;
    return 2;
  }
  if (command.help) {
    if (root) std::cout << usage() << desc;
    return 0;
  }
  // --topology-reorder: the communicator of a topology constructor with reorder=1, made before
  // anything else (its time reported). Rank r of it plays grid position r (row-major, as MPI's).
  MPI_Comm comm = MPI_COMM_WORLD;
  double reorder_seconds = 0;
  if (!command.topology_reorder.empty()) {
    int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1};
    mpimon::mpi::check(MPI_Dims_create(session.size(), 3, dims), "MPI_Dims_create");
    const double start = MPI_Wtime();
    if (command.topology_reorder == "cart") {
      mpimon::mpi::check(MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &comm), "MPI_Cart_create");
    } else {
      // The faces' areas on the stencil's own grid weigh the edges.
      const auto nb = face_neighbours(session.rank(), dims, mpimon::workloads::stencil_grid(command.options));
      const int n = static_cast<int>(nb.ranks.size());
      mpimon::mpi::check(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, n, nb.ranks.data(), nb.weights.data(), n,
                                                        nb.ranks.data(), nb.weights.data(), MPI_INFO_NULL, 1, &comm),
                         "MPI_Dist_graph_create_adjacent");
    }
    reorder_seconds = MPI_Wtime() - start;
  }
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const bool reporter = rank == 0;  // the report is complete on rank 0 of the workload's communicator
  mpimon::Ledger ledger(static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(session.size()));
  mpimon::workloads::WorkloadReport report;
  try {
    report = mpimon::workloads::run_workload(comm, command.options, ledger);
  } catch (const std::invalid_argument& e) {
    // Options are checked before any message, identically on every rank.
    if (reporter) std::cerr << "mpimon-workload: error: " << e.what() << "\n";
    return 2;
  }
  if (!command.topology_reorder.empty()) {
    double slowest = 0;
    MPI_Reduce(&reorder_seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    report.details.push_back({"topology_reorder", command.topology_reorder});
    report.details.push_back({"topology_create_seconds", slowest});
    MPI_Comm_free(&comm);
  }
  if (!command.ledger.empty()) {
    mpimon::mpi::make_directories(std::filesystem::path(command.ledger).parent_path().string());
    ledger.write(command.ledger);
  }
  if (!reporter) return 0;
  std::printf("mpimon-workload: %s\n", mpimon::workloads::report_json(report).c_str());
  std::fflush(stdout);
  if (!report.passed) {
    if (report.failure.empty()) {
      std::fprintf(stderr, "mpimon-workload: error: %s check failed: %s %.3g above the tolerance %.3g\n",
                   report.workload.c_str(), report.check.c_str(), report.check_value, report.tolerance);
    } else {
      std::fprintf(stderr, "mpimon-workload: error: %s check failed: %s\n", report.workload.c_str(),
                   report.failure.c_str());
    }
    return 1;
  }
  return 0;
}
