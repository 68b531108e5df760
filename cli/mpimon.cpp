// mpimon: the suite's command-line front-end. Each subcommand is a thin layer over the analysis
// library; see docs/cli.md.

#include <iostream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/version.hpp"

namespace {

struct Subcommand {
  const char* name;
  int (*run)(const std::string&, const std::vector<std::string>&);
  const char* summary;
};

constexpr Subcommand kSubcommands[] = {
    {"merge", mpimon::cli::merge_command, "merge per-rank .prof files into one HDF5 file of matrices"},
    {"show", mpimon::cli::show_command, "summarise a merged HDF5 file"},
    {"export", mpimon::cli::export_command, "export matrices for TreeMatch or as profile2mat .mat files"},
    {"validate", mpimon::cli::validate_dispatch, "check the monitoring's matrices against ground truth under mpirun"},
    {"bench", mpimon::cli::bench_command, "measure the overhead of monitoring (pairs of launches, paired statistics)"},
    {"gate", mpimon::cli::gate_command, "overhead regression gate for CI: instructions (callgrind) and timing vs a baseline"},
    {"pvars", mpimon::cli::pvars_command, "list the MPI_T performance variables of the MPI library"},
    {"model", mpimon::cli::model_command, "predict the point-to-point traffic of a forced collective algorithm"},
    {"plot", mpimon::cli::plot_command, "draw the overhead figures, or a forced collective's pattern"},
    {"stats", mpimon::cli::stats_command, "paired t-test and Wilcoxon test of off/on timings (a CSV of pairs)"},
};

void print_usage(std::ostream& out) {
  out << "Usage: mpimon COMMAND [options]   ('mpimon COMMAND --help' for details)\n\nCommands:\n";
  for (const auto& s : kSubcommands) out << "  " << s.name << std::string(10 - std::string(s.name).size(), ' ') << s.summary << "\n";
  out << "\nAlso installed: mpimon-merge (same as 'mpimon merge').\n";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_usage(std::cerr);
    return mpimon::cli::kExitUsage;
  }
  const std::string& command = args[0];
  if (command == "--help" || command == "-h" || command == "help") {
    print_usage(std::cout);
    return mpimon::cli::kExitOk;
  }
  if (command == "--version") {
    std::cout << "mpimon " << mpimon::kVersion << "\n";
    return mpimon::cli::kExitOk;
  }
  for (const auto& s : kSubcommands) {
    if (command == s.name) return s.run(std::string("mpimon ") + s.name, {args.begin() + 1, args.end()});
  }
  std::cerr << "mpimon: error: unknown command '" << command << "'\n";
  print_usage(std::cerr);
  return mpimon::cli::kExitUsage;
}
