// `mpimon validate collective`: runs one collective with a forced coll/tuned algorithm under
// mpirun with monitoring, subtracts a control run that does everything but the collective, and
// compares what the monitoring recorded with the model, edge by edge (docs/collectives.md).

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/validation_suite.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace fs = std::filesystem;

namespace {

// ---- A scratch directory that is gone afterwards, even after Ctrl-C. ----

// Paths the signal handler unlinks (files first, then directories): fixed before any handler
// can run, so the handler only reads them and calls unlink() and rmdir().
std::vector<std::string> g_scratch_paths;
volatile sig_atomic_t g_scratch_armed = 0;

extern "C" void remove_scratch_and_exit(int sig) {
  if (g_scratch_armed) {
    for (const auto& p : g_scratch_paths) {
      if (unlink(p.c_str()) != 0) rmdir(p.c_str());
    }
  }
  _exit(128 + sig);
}

class ScratchDirectory {
 public:
  /// Creates a fresh directory holding `prof/`, where the dumps of `dumps` x `nprocs` files go.
  ScratchDirectory(bool keep, const std::vector<std::string>& dumps, std::uint32_t nprocs) : keep_(keep) {
    std::string pattern = (fs::temp_directory_path() / "mpimon-collective-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) raise_error(Error::Kind::system, pattern, "cannot create a directory");
    path_ = pattern;
    fs::create_directory(path_ / "prof");
    if (keep_) return;
    for (const auto& d : dumps) {
      for (std::uint32_t r = 0; r < nprocs; ++r) g_scratch_paths.push_back(dump_file(d, r));
    }
    g_scratch_paths.push_back((path_ / "prof").string());
    g_scratch_paths.push_back(path_.string());
    g_scratch_armed = 1;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, remove_scratch_and_exit);
  }
  ~ScratchDirectory() {
    if (keep_) return;
    g_scratch_armed = 0;
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  [[nodiscard]] const fs::path& path() const { return path_; }
  [[nodiscard]] std::string dump_prefix(const std::string& dump) const { return (path_ / "prof" / dump).string(); }
  [[nodiscard]] std::string dump_file(const std::string& dump, std::uint32_t rank) const {
    return dump_prefix(dump) + "." + std::to_string(rank) + ".prof";
  }

 private:
  bool keep_;
  fs::path path_;
};

// ---- Building the mpirun command. ----

struct RunOptions {
  std::string launcher = "mpirun";
  std::string program;
  int timeout_seconds = 120;
  bool force_oversubscribe = false;
  bool keep = false;
  bool verbose = false;
};

/// Physical cores (distinct package/core pairs), which is what Open MPI counts as slots.
unsigned physical_cores() {
  std::set<std::pair<std::string, std::string>> cores;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu", ec)) {
    const auto topology = entry.path() / "topology";
    std::ifstream package(topology / "physical_package_id"), core(topology / "core_id");
    std::string p, c;
    if (package >> p && core >> c) cores.insert({p, c});
  }
  if (!cores.empty()) return static_cast<unsigned>(cores.size());
  return std::max(1U, std::thread::hardware_concurrency());
}

bool found_in_path(const std::string& command) {
  if (command.find('/') != std::string::npos) return access(command.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && access((fs::path(dir) / command).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::vector<std::pair<std::string, std::string>> mca_parameters(const CollectiveSpec& spec, const std::string& dump) {
  const std::string op(op_name(spec.op));
  std::vector<std::pair<std::string, std::string>> mca = {
      {"pml_monitoring_enable", std::to_string(spec.monitoring_mode)},
      {"pml_monitoring_enable_output", "3"},
      {"pml_monitoring_filename", dump},
      {"coll_tuned_use_dynamic_rules", "1"},
      {"coll_tuned_" + op + "_algorithm", std::to_string(spec.algorithm)}};
  if (spec.op != CollectiveOp::barrier) {  // barrier has no segment or fan-out parameters
    mca.push_back({"coll_tuned_" + op + "_algorithm_segmentsize", std::to_string(spec.segment_size)});
    mca.push_back({"coll_tuned_" + op + "_algorithm_tree_fanout", std::to_string(spec.tree_fanout)});
    mca.push_back({"coll_tuned_" + op + "_algorithm_chain_fanout", std::to_string(spec.chain_fanout)});
  }
  // Global, so it also reaches a knomial bcast chosen by a fixed decision inside another collective.
  mca.push_back({"coll_tuned_bcast_algorithm_knomial_radix", std::to_string(spec.knomial_radix)});
  return mca;
}

MpiLaunch build_launch(const CollectiveSpec& spec, const RunOptions& run, const std::string& dump, bool control) {
  MpiLaunch l(run.launcher, spec.nprocs);
  if (l.open_mpi() && (run.force_oversubscribe || spec.nprocs > physical_cores())) l.option({"--oversubscribe"});
  for (const auto& [key, value] : mca_parameters(spec, dump)) l.mca(key, value);
  std::vector<std::string> args{"--op",        std::string(op_name(spec.op)),  "--count", std::to_string(spec.count),
                                "--type-size", std::to_string(spec.type_size), "--root",  std::to_string(spec.root)};
  if (control) args.push_back("--skip");
  return l.program(run.program, args);
}

std::string last_lines(const std::string& text, std::size_t lines) {
  std::size_t pos = text.size();
  while (lines-- > 0 && pos > 0) {
    pos = text.rfind('\n', pos > 1 ? pos - 2 : 0);
    if (pos == std::string::npos) return text;
  }
  return text.substr(pos + 1);
}

/// Runs one launch; throws with the launcher's last output when it fails.
void run_launch(const MpiLaunch& launch, const std::string& what, const RunOptions& run) {
  if (run.verbose) std::cerr << what << ": " << launch.text() << "\n";
  LaunchResult r = launch.run(std::chrono::seconds(run.timeout_seconds));
  if (r.timed_out) {
    raise_error(Error::Kind::system, launch.argv()[0],
                what + " run killed after " + std::to_string(run.timeout_seconds) + " s: " + launch.text());
  }
  if (r.exit_code != 0) {
    raise_error(Error::Kind::system, launch.argv()[0],
                what + " run failed with exit code " + std::to_string(r.exit_code) + ": " + launch.text() +
                    "\n--- last output ---\n" + last_lines(r.output, 15));
  }
}

/// The E and I lines of every rank's dump.
EdgeTraffic read_point_to_point(const ScratchDirectory& scratch, const std::string& dump, std::uint32_t nprocs) {
  EdgeTraffic traffic;
  for (std::uint32_t r = 0; r < nprocs; ++r) {
    const std::string path = scratch.dump_file(dump, r);
    if (!fs::exists(path)) {
      raise_error(Error::Kind::input, path,
                  "missing: the monitoring did not run (is Open MPI's pml/monitoring component installed, and "
                  "'monitoring' in any --mca pml list?)");
    }
    for (const PairRecord& p : read_prof_file(path, r).pairs) {
      if (p.traffic_class == TrafficClass::external || p.traffic_class == TrafficClass::internal) {
        traffic.add_totals(p.traffic_class, r, p.peer, {p.bytes, p.count});
      }
    }
  }
  return traffic;
}

std::string describe(const CollectiveSpec& s) {
  std::string text = std::string(op_name(s.op)) + " " + std::string(algorithm_name(s.op, s.algorithm)) + ", " +
                     std::to_string(s.nprocs) + " processes";
  if (has_root(s.op)) text += ", root " + std::to_string(s.root);
  if (s.op != CollectiveOp::barrier) {
    text += ", " + std::to_string(s.count) + " x " + std::to_string(s.type_size) + " B";
    if (s.segment_size > 0) text += ", segments of " + std::to_string(s.segment_size) + " B";
  }
  return text + ", mode " + std::to_string(s.monitoring_mode);
}

void print_differences(const std::vector<EdgeDifference>& differences) {
  std::printf("%-5s %5s %5s  %14s %10s  %14s %10s\n", "class", "src", "dst", "predicted B", "msgs", "recorded B",
              "msgs");
  for (const auto& d : differences) {
    std::printf(
        "%-5c %5u %5u  %14llu %10llu  %14llu %10llu\n", class_letter(d.edge.traffic_class), d.edge.src, d.edge.dst,
        static_cast<unsigned long long>(d.predicted.bytes), static_cast<unsigned long long>(d.predicted.messages),
        static_cast<unsigned long long>(d.recorded.bytes), static_cast<unsigned long long>(d.recorded.messages));
  }
}

std::string default_program() { return (fs::path(programs_directory()) / "mpimon-run-collective").string(); }

int compare_and_report(const CollectiveSpec& spec, const EdgeTraffic& recorded, const MpiLaunch& measured) {
  const EdgeTraffic predicted = predict_collective(spec);
  const auto differences = compare_traffic(predicted, recorded);
  const TrafficLoad total = predicted.total();
  if (differences.empty()) {
    std::printf("agree: %zu edges, %llu messages, %llu bytes (%s)\n", predicted.edges().size(),
                static_cast<unsigned long long>(total.messages), static_cast<unsigned long long>(total.bytes),
                describe(spec).c_str());
    return kExitOk;
  }
  std::printf("disagree: %zu edges differ, %zu predicted, %zu recorded (%s)\n", differences.size(),
              predicted.edges().size(), recorded.edges().size(), describe(spec).c_str());
  print_differences(differences);
  std::printf("reproduce: %s\n", measured.text().c_str());
  return kExitFailure;
}

std::vector<std::string> difference_lines(const std::vector<EdgeDifference>& differences) {
  std::vector<std::string> lines;
  for (const auto& d : differences) {
    lines.push_back(std::string(1, class_letter(d.edge.traffic_class)) + " " + std::to_string(d.edge.src) + "->" +
                    std::to_string(d.edge.dst) + ": predicted " + std::to_string(d.predicted.bytes) + " B in " +
                    std::to_string(d.predicted.messages) + " msgs, recorded " + std::to_string(d.recorded.bytes) +
                    " B in " + std::to_string(d.recorded.messages) + " msgs");
  }
  return lines;
}

// A check pinning a defect the model knows: the recorded traffic must equal the model with the
// defect exactly; equal to the model of a correct monitoring is DEFECT FIXED.
int judge_pinned_collective(const std::string& defect, CollectiveSpec spec, const EdgeTraffic& recorded,
                            const MpiLaunch& measured, const std::string& launcher) {
  const harness::KnownDefect& d = harness::known_defect(defect);
  if (d.rule != harness::DefectRule::collective_model) {
    throw po::error("--pinned-defect " + defect + ": not a defect of the collective model");
  }
  spec.ideal_monitoring = false;
  const auto against_defect = difference_lines(compare_traffic(predict_collective(spec), recorded));
  spec.ideal_monitoring = true;
  const auto against_ideal = difference_lines(compare_traffic(predict_collective(spec), recorded));
  const std::string release = harness::open_mpi_release(harness::launcher_version_line(launcher));
  const std::string series = release.empty() ? harness::established_series().back() : harness::release_series(release);
  const bool expected = std::find(d.series.begin(), d.series.end(), series) != d.series.end();
  const auto v = harness::judge_pinned(d, expected, series, against_ideal, against_defect);
  std::printf("%s: %s (%s)\n", harness::outcome_name(v.outcome), v.summary.c_str(), describe(spec).c_str());
  for (const auto& line : v.details) std::printf("    %s\n", line.c_str());
  if (harness::outcome_expected(v.outcome)) return kExitOk;
  std::printf("reproduce: %s\n", measured.text().c_str());
  return kExitFailure;
}

}  // namespace

int validate_collective_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "--op OP --algorithm ALG --np N [--root R] --count C [--type-size T] [--segsize S] ...",
              "Runs one MPI collective with Open MPI's coll/tuned algorithm ALG forced, under mpirun with\n"
              "monitoring, and a control run doing everything but the collective; subtracts the control's\n"
              "point-to-point traffic and compares the rest, edge by edge, with 'mpimon model collective'.\n"
              "Prints 'agree: N edges' (exit 0) or the edges that differ (exit 1). docs/collectives.md."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    CollectiveOptions values;
    RunOptions run;
    std::string pinned_defect;
    add_collective_options(options, values);
    options.add_options()("launcher", po::value(&run.launcher)->default_value("mpirun"),
                          "MPI launcher command (words split on spaces)")(
        "program", po::value(&run.program)->default_value(default_program(), "mpimon-run-collective of this build"),
        "the mpimon-run-collective program")("timeout", po::value(&run.timeout_seconds)->default_value(120),
                                             "seconds before a run is killed")(
        "oversubscribe", po::bool_switch(&run.force_oversubscribe),
        "always pass --oversubscribe (it is passed when N exceeds the cores)")(
        "keep", po::bool_switch(&run.keep), "keep the dumps (their directory is printed)")(
        "verbose,v", po::bool_switch(&run.verbose), "print the mpirun command lines")(
        "pinned-defect", po::value(&pinned_defect),
        "the check pins this defect (docs/defects.md): it passes only when the recording equals the model "
        "with the defect exactly, and reports DEFECT FIXED when it equals the model of a correct monitoring");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    const CollectiveSpec spec = collective_spec(values, vm);
    if (run.timeout_seconds <= 0) throw po::error("--timeout must be positive");
    const std::string launcher = split_words(run.launcher).at(0);
    if (!found_in_path(launcher)) {
      raise_error(Error::Kind::input, launcher,
                  "not found: install Open MPI (openmpi-bin) or name the launcher with --launcher");
    }
    if (access(run.program.c_str(), X_OK) != 0) {
      raise_error(Error::Kind::input, run.program, "not an executable; build mpimon-run-collective or give --program");
    }
    predict_collective(spec);  // a spec the model cannot predict fails before anything runs

    ScratchDirectory scratch(run.keep, {"control", "measured"}, spec.nprocs);
    if (run.keep) std::cerr << "dumps kept in " << scratch.path().string() << "\n";
    const MpiLaunch control = build_launch(spec, run, scratch.dump_prefix("control"), true);
    const MpiLaunch measured = build_launch(spec, run, scratch.dump_prefix("measured"), false);
    run_launch(control, "control", run);
    run_launch(measured, "measured", run);
    const EdgeTraffic recorded = subtract(read_point_to_point(scratch, "measured", spec.nprocs),
                                          read_point_to_point(scratch, "control", spec.nprocs));
    if (!pinned_defect.empty()) return judge_pinned_collective(pinned_defect, spec, recorded, measured, run.launcher);
    return compare_and_report(spec, recorded, measured);
  });
}

}  // namespace mpimon::cli
