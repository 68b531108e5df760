// mpimon: the suite's command-line front-end. One table maps command lines ("bench app") onto the
// commands; each is a thin layer over the harness and analysis libraries (docs/cli.md).

#include <iomanip>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/version.hpp"

namespace {

using Run = int (*)(const std::string&, const std::vector<std::string>&);

struct Entry {
  std::string_view path;  ///< "show", or a group and its sub-command: "bench app"
  Run run;
  std::string_view summary;
};

// A group's own entry ("plot", "validate") takes the arguments that name none of its sub-commands.
constexpr Entry kCommands[] = {
    {"record", mpimon::cli::record_command, "run an MPI application with monitoring on and merge its dumps"},
    {"merge", mpimon::cli::merge_command, "merge per-rank .prof files into one HDF5 file of matrices"},
    {"show", mpimon::cli::show_command, "summarise a merged HDF5 file"},
    {"export treematch", mpimon::cli::export_treematch_command, "symmetric affinity matrix for TreeMatch"},
    {"export mat", mpimon::cli::export_mat_command, "the .mat files of Open MPI's profile2mat"},
    {"export scotch", mpimon::cli::export_scotch_command, "symmetric weighted communication graph for Scotch (.grf)"},
    {"export metis", mpimon::cli::export_metis_command, "symmetric weighted communication graph for METIS (gpmetis)"},
    {"export pairs", mpimon::cli::export_pairs_command, "every directed pair's bytes and messages as CSV"},
    {"validate", mpimon::cli::validate_command, "check the monitoring's matrices against ground truth under mpirun"},
    {"validate collective", mpimon::cli::validate_collective_command,
     "check the collective model against Open MPI's monitoring"},
    {"bench overhead", mpimon::cli::bench_overhead_command,
     "measure the overhead of monitoring (pairs of launches, paired statistics)"},
    {"bench app", mpimon::cli::bench_app_command, "measure what monitoring costs an application (RR-9038's Table 1)"},
    {"bench placement", mpimon::cli::bench_placement_command,
     "time an application under two rankfiles (pairs of launches, paired statistics)"},
    {"gate", mpimon::cli::gate_command,
     "overhead regression gate for CI: instructions (callgrind) and timing vs a baseline"},
    {"collect", mpimon::cli::collect_command, "run an MPI application and collect its monitoring into one HDF5 file"},
    {"run", mpimon::cli::run_command_line,
     "run an MPI command line with reorder=1 of its topology constructors honoured (no rankfile)"},
    {"pvars", mpimon::cli::pvars_command, "list the MPI_T performance variables of the MPI library"},
    {"model collective", mpimon::cli::model_collective_command,
     "predict the point-to-point traffic of a forced collective algorithm"},
    {"plot", mpimon::cli::plot_results_command,
     "draw the heatmaps of a matrices file, or the overhead or application figures of a results file"},
    {"compact", mpimon::cli::compact_command,
     "a results file without raw samples, to commit next to its figures (from a results file or launches CSV)"},
    {"plot collective", mpimon::cli::plot_collective_command, "draw a forced collective's pattern and its PMPI view"},
    {"report", mpimon::cli::report_command,
     "one self-contained HTML report of matrices, results, validation and placement files"},
    {"place", mpimon::cli::place_command,
     "map the ranks onto a modelled cluster (TreeMatch, Scotch, ...) and cost the mappings"},
    {"simulate", mpimon::cli::simulate_command,
     "simulate an SMPI program under several rankfiles with SimGrid (simulated times, modelled costs)"},
    {"plot placement", mpimon::cli::plot_placement_command, "draw the modelled costs of mpimon place --json reports"},
    {"probe", mpimon::cli::probe_command,
     "measure the latency and bandwidth of each level's links (ping-pong, stream) for place's time model"},
    {"cluster up", mpimon::cli::cluster_up_command,
     "build an emulated cluster of network namespaces on this machine (root)"},
    {"cluster status", mpimon::cli::cluster_status_command, "the emulated cluster's nodes and what runs on them"},
    {"cluster launcher", mpimon::cli::cluster_launcher_command, "the emulated cluster's launcher, for --launcher"},
    {"cluster hostfile", mpimon::cli::cluster_hostfile_command,
     "the emulated cluster's hostfile, for place --hostfile"},
    {"cluster run", mpimon::cli::cluster_run_command, "run an mpirun or Slurm command line on the emulated cluster"},
    {"cluster down", mpimon::cli::cluster_down_command, "remove everything the emulated cluster made"},
    {"stats paired", mpimon::cli::stats_paired_command,
     "paired t-test and Wilcoxon test of off/on timings (a CSV of pairs)"},
};

std::string_view group_of(std::string_view path) { return path.substr(0, path.find(' ')); }

bool in_group(const Entry& e, std::string_view group) { return group_of(e.path) == group; }

const Entry* find(std::string_view path) {
  for (const auto& e : kCommands) {
    if (e.path == path) return &e;
  }
  return nullptr;
}

void print_usage(std::ostream& out) {
  out << "Usage: mpimon COMMAND [options]   ('mpimon COMMAND --help' for details)\n\nCommands:\n";
  for (const auto& e : kCommands) out << "  " << std::left << std::setw(20) << e.path << e.summary << "\n";
  out << "\nAlso installed: mpimon-merge (same as 'mpimon merge').\n";
}

void print_group_usage(std::ostream& out, std::string_view group) {
  out << "Usage: mpimon " << group << " COMMAND [options]   ('mpimon " << group << " COMMAND --help' for details)\n\n";
  for (const auto& e : kCommands) {
    if (in_group(e, group)) out << "  " << std::left << std::setw(20) << e.path << e.summary << "\n";
  }
}

// A group ("bench", "export") named alone, with --help, or with a word that is none of its sub-commands.
int run_group(std::string_view group, const std::vector<std::string>& args) {
  const Entry* own = find(group);
  if (!args.empty()) {
    if (const Entry* sub = find(std::string(group) + " " + args[0])) {
      return sub->run("mpimon " + std::string(sub->path), {args.begin() + 1, args.end()});
    }
  }
  if (own != nullptr) return own->run("mpimon " + std::string(group), args);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    print_group_usage(std::cout, group);
    return mpimon::kExitOk;
  }
  if (!args.empty()) std::cerr << "mpimon " << group << ": error: unknown sub-command '" << args[0] << "'\n";
  print_group_usage(std::cerr, group);
  return mpimon::kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_usage(std::cerr);
    return mpimon::kExitUsage;
  }
  const std::string& command = args[0];
  if (command == "--help" || command == "-h" || command == "help") {
    print_usage(std::cout);
    return mpimon::kExitOk;
  }
  if (command == "--version") {
    std::cout << "mpimon " << mpimon::kVersion << "\n";
    return mpimon::kExitOk;
  }
  for (const auto& e : kCommands) {
    if (in_group(e, command)) return run_group(command, {args.begin() + 1, args.end()});
  }
  std::cerr << "mpimon: error: unknown command '" << command << "'\n";
  print_usage(std::cerr);
  return mpimon::kExitUsage;
}
