// `mpimon show`: the summary of a matrices, overhead or application results file.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <numeric>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/checks/recorded_facts.hpp"
#include "mpimon/matrices/dump_summary.hpp"
#include "mpimon/matrices/export.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/matrices/matrix_view.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/overhead.hpp"
#include "mpimon/results/simulated.hpp"
#include "show.hpp"

namespace mpimon::cli {

namespace {

uint128 sum(const SparseMatrix& m) {
  return std::accumulate(m.values.begin(), m.values.end(), static_cast<uint128>(0));
}

// The known defects of the run's Open MPI that what this dump holds can show, one line each.
void print_defect_warnings(const MatrixFile& file, const std::string& dump, const CommunicatorTable& comms,
                           bool internal_distinguished) {
  const auto facts = recorded_facts(file, dump, comms, internal_distinguished);
  const auto warnings = defects_affecting(facts);
  if (warnings.empty()) return;
  const std::string release = file.root_string("open_mpi_version");
  std::printf(
      "  known defects its content can show (%s; docs/defects.md#ID):\n",
      release.empty() ? "Open MPI version not recorded: those of every series" : ("Open MPI " + release).c_str());
  for (const auto& w : warnings) {
    std::printf("    %s: %s\n", w.id.c_str(), known_defect(w.id).meaning.c_str());
  }
}

void show_dump(const MatrixFile& file, const std::string& dump, std::size_t top) {
  DumpInfo info = file.info(dump);
  std::printf("dump %s\n", dump.c_str());
  std::printf("  processes: %u (%zu rank files present)\n", info.nprocs, info.ranks_present.size());
  if (info.ranks_present.size() < info.nprocs) {
    std::printf("  warning: ranks without a dump: %s (their traffic is missing from every matrix)\n",
                missing_ranks(info).c_str());
  }
  std::printf("  internal/external distinguished: %s\n", info.internal_distinguished ? "yes" : "no");
  std::printf("  layout: %s\n", info.layout.c_str());
  std::printf("  %-9s %20s %22s %10s\n", "class", "messages", "bytes", "pairs");
  for (TrafficClass c : kAllTrafficClasses) {
    SparseMatrix count = file.matrix(dump, c, Metric::count);
    SparseMatrix bytes = file.matrix(dump, c, Metric::bytes);
    std::printf("  %-9s %20s %22s %10zu\n", std::string(class_name(c)).c_str(), to_decimal(sum(count)).c_str(),
                to_decimal(sum(bytes)).c_str(), std::max(count.stored(), bytes.stored()));
  }
  CommunicatorTable comms = file.communicators(dump);
  std::printf("  histograms: %zu pairs; communicators: %zu\n", file.histogram_count(dump), comms.names.size());
  auto talkers = top_talkers(file, dump, top);
  if (!talkers.empty()) {
    std::printf("  top point-to-point talkers (external + internal):\n");
    std::printf("  %6s %6s %22s %20s\n", "from", "to", "bytes", "messages");
  }
  for (const auto& t : talkers) {
    std::printf("  %6u %6u %22llu %20llu\n", t.from, t.to, static_cast<unsigned long long>(t.bytes),
                static_cast<unsigned long long>(t.messages));
  }
  print_defect_warnings(file, dump, comms, info.internal_distinguished);
}

// "Open MPI 4.1.4, monitoring components coll, osc, pml": what the file says ran.
std::string run_provenance_text(const MatrixFile& file) {
  const std::string release = file.root_string("open_mpi_version");
  std::string components;
  for (const auto& c : file.root_strings("monitoring_components")) components += (components.empty() ? "" : ", ") + c;
  return (release.empty() ? "Open MPI version not recorded" : "Open MPI " + release) +
         ", monitoring components: " + (components.empty() ? "not recorded" : components);
}

// The configuration of a launch-pair sweep, its launch count and the launches that failed.
template <typename Launch, typename Name>
void print_sweep(const std::string& input, const char* kind, const std::map<std::string, std::string>& configuration,
                 const std::vector<Launch>& launches, Name name_of) {
  std::printf("%s: %s\n", input.c_str(), kind);
  for (const auto& [k, v] : configuration) std::printf("  %-22s %s\n", k.c_str(), v.c_str());
  std::size_t ok = 0;
  for (const auto& l : launches) ok += l.status == "ok" ? 1 : 0;
  std::printf("  launches: %zu, %zu ok\n", launches.size(), ok);
  for (const auto& l : launches) {
    if (l.status != "ok") {
      std::printf("    failed: %s np %u pair %u %s: %s\n", name_of(l.key).c_str(), l.key.np, l.key.pair,
                  l.key.arm.c_str(), l.status.c_str());
    }
  }
}

}  // namespace

void show_matrices(const std::string& input, const std::string& dump, std::size_t top) {
  MatrixFile file(input);
  std::printf("%s: %s\n  %s\n", input.c_str(), file.generator().c_str(), run_provenance_text(file).c_str());
  std::vector<std::string> dumps = dump.empty() ? file.dumps() : std::vector<std::string>{dump};
  for (const auto& d : dumps) show_dump(file, d, top);
}

// An mpimon-overhead results file: its configuration, its launches, and the paired analysis.
void show_overhead(const std::string& input, const std::string& csv, const std::string& launches_csv) {
  OverheadResults results(input);
  auto launches = results.launches();
  print_sweep(input, "overhead results", results.configuration(), launches,
              [](const LaunchKey& k) { return k.transport; });
  // Which clock timed the iterations (docs/benchmarks.md, "The clock").
  for (const auto& [clock, n] : launch_clocks(launches)) std::printf("  clock: %s, %zu launches\n", clock.c_str(), n);
  auto cells = analyze_overhead(launches);
  write_analysis_table(cells, std::cout);
  const auto config = results.configuration();
  write_interleaving(launches, config.count("design") ? config.at("design") : "pairs", std::cout);
  if (!csv.empty()) write_file_atomically(csv, [&](std::ostream& o) { write_analysis_csv(cells, o); });
  if (!launches_csv.empty()) {
    write_file_atomically(launches_csv, [&](std::ostream& o) { write_launches_csv(launches, o); });
  }
}

// An mpimon-apps results file (mpimon bench app, or bench placement's arms A and B): its
// configuration, launches and table.
void show_apps(const std::string& input, const std::string& csv, const std::string& launches_csv) {
  AppResults results(input);
  auto launches = results.launches();
  if (is_simulated(results.configuration())) {
    const auto config = results.configuration();
    print_sweep(input, "simulated placements (mpimon simulate)", config, launches,
                [](const AppLaunchKey& k) { return k.app; });
    const auto rows = simulated_mappings(config, launches);
    write_simulated_table(rows, config.count("apps") ? config.at("apps") : "",
                          launches.empty() ? 0 : launches[0].key.np, std::cout);
    if (!csv.empty()) write_file_atomically(csv, [&](std::ostream& o) { write_simulated_csv(rows, o); });
    if (!launches_csv.empty()) {
      write_file_atomically(launches_csv, [&](std::ostream& o) { write_app_launches_csv(launches, o); });
    }
    return;
  }
  const ArmPair arms = arms_of(results.configuration());
  const bool overhead = is_overhead(arms);
  print_sweep(input, overhead ? "application overhead results" : "application results (two arms)",
              results.configuration(), launches, [](const AppLaunchKey& k) { return k.app; });
  auto rows = analyze_apps(launches, 0.95, arms);
  order_rows(rows, results.configuration()["apps"]);
  write_app_table(rows, overhead ? AppTable::overhead : AppTable::placements, arms, 0.05, std::cout);
  if (!csv.empty()) write_file_atomically(csv, [&](std::ostream& o) { write_app_csv(rows, o, arms); });
  if (!launches_csv.empty()) {
    write_file_atomically(launches_csv, [&](std::ostream& o) { write_app_launches_csv(launches, o); });
  }
}

int show_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.h5 [--dump NAME] [--top N] [--csv OUT.csv] [--launches-csv OUT.csv]",
              "Prints a readable summary of an mpimon HDF5 file. For merged matrices: the dumps, the totals\n"
              "of each traffic class, and the pairs that exchange the most point-to-point bytes. For overhead\n"
              "results: the sweep, its launches and the paired analysis (also as CSV with --csv)."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string input, dump;
    std::size_t top = 0;
    std::string csv, launches_csv;
    options.add_options()("dump", po::value(&dump), "show only this dump")("top", po::value(&top)->default_value(10),
                                                                           "how many top talkers to list")(
        "csv", po::value(&csv), "overhead or application results: write the analysis table as CSV")(
        "launches-csv", po::value(&launches_csv), "overhead or application results: write one line per launch as CSV")(
        "input", po::value(&input)->required(), "merged HDF5 file or overhead results");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    if (hdf5_format_of(input) == kAppsFormat) {
      show_apps(input, csv, launches_csv);
      return kExitOk;
    }
    if (hdf5_format_of(input) == kOverheadFormat) {
      show_overhead(input, csv, launches_csv);
      return kExitOk;
    }
    show_matrices(input, dump, top);
    return kExitOk;
  });
}

}  // namespace mpimon::cli
