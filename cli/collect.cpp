#include <algorithm>
#include <cstdio>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/harness/collect.hpp"
#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon::cli {

namespace {

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out.empty() ? "none" : out;
}

void print_written(const std::string& path) {
  MatrixFile file(path);
  const auto dumps = file.dumps();
  std::printf("wrote %s: %zu phase%s (%s)\n", path.c_str(), dumps.size(), dumps.size() == 1 ? "" : "s",
              joined(dumps).c_str());
  std::printf("collected: %s\nnot collected (this MPI library cannot deliver them): %s\n",
              joined(file.root_strings("collected_classes")).c_str(),
              joined(file.root_strings("missing_classes")).c_str());
}

}  // namespace

int collect_command(const std::string& name, const std::vector<std::string>& all_args) {
  Command cmd{name,
              "-o OUT.h5 [--np N] [--launcher CMD] [--mca KEY=VALUE]... [--mode 1|2] [--missing label|refuse] "
              "-- COMMAND ARGS...",
              "Runs an unmodified MPI application with Open MPI's monitoring on and libmpimon-collect.so\n"
              "preloaded, and writes ONE HDF5 file of matrices (docs/matrices-format.md) straight from the\n"
              "running processes: one group per phase (phase_1, phase_2, ...), a phase ending at every\n"
              "MPI_Pcontrol call and at MPI_Finalize. No .prof file is left anywhere. Where the MPI library\n"
              "cannot deliver a class through MPI_T (Open MPI 4.1: point-to-point, histograms, communicators\n"
              "other than MPI_COMM_WORLD), the file lists the collected and missing classes (--missing label,\n"
              "the default) or nothing runs (--missing refuse). The application's output is printed after\n"
              "it ends. docs/collect.md."};
  auto dashes = std::find(all_args.begin(), all_args.end(), "--");
  const std::vector<std::string> args(all_args.begin(), dashes);
  harness::CollectSettings s;
  if (dashes != all_args.end()) s.command.assign(dashes + 1, all_args.end());
  return run_command(cmd, [&] {
    std::string missing;
    po::options_description options("Options");
    options.add_options()("output,o", po::value(&s.output), "the HDF5 file to write (required)")(
        "np", po::value(&s.np)->default_value(2)->notifier(in_range<std::uint32_t>("np", 1)), "number of processes")(
        "launcher", po::value(&s.launcher)->default_value("mpirun"), "MPI launcher")(
        "mca", po::value(&s.mca)->composing(), "MCA parameter KEY=VALUE (repeatable)")(
        "mode", po::value(&s.mode)->default_value(1)->notifier(in_range<std::uint32_t>("mode", 1, 2)),
        "pml_monitoring_enable: 1 all point-to-point as external, 2 internal traffic apart")(
        "missing", po::value(&missing)->default_value("label"),
        "when a class cannot be collected: label (collect the rest, listed in the file) or refuse");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    if (missing != "label" && missing != "refuse") {
      throw po::error("--missing takes label or refuse, not '" + missing + "'");
    }
    s.refuse_missing = missing == "refuse";
    harness::CollectResult r = harness::run_collect(s);
    std::fputs(r.launch.output.c_str(), stdout);
    if (r.launch.exit_code != 0) {
      std::fprintf(stderr, "%s: error: the application failed (exit code %d); no file written\n  %s\n", name.c_str(),
                   r.launch.exit_code, r.command_line.c_str());
      return kExitFailure;
    }
    if (!r.written) {
      std::fprintf(stderr, "%s: error: the collector wrote no file (see its messages above)\n  %s\n", name.c_str(),
                   r.command_line.c_str());
      return kExitFailure;
    }
    print_written(s.output);
    return kExitOk;
  });
}

}  // namespace mpimon::cli
