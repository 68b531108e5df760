// `mpimon validate collective`: runs one collective with a forced coll/tuned algorithm under
// mpirun with monitoring, subtracts a control run that does everything but the collective, and
// compares what the monitoring recorded with the model, edge by edge (docs/collectives.md). The
// runs and the verdicts are the harness's (collective_run.hpp); this parses and prints.

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/collective_run.hpp"
#include "mpimon/harness/locations.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace fs = std::filesystem;

namespace {

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

// The control run alone: the program without its collective must send nothing through the PML,
// or every check run with --no-control would be off by what it sent.
int report_baseline(const CollectiveSpec& spec, const CollectiveRecording& control) {
  if (control.recorded.edges().empty()) {
    std::printf("baseline empty: the control run recorded no point-to-point traffic (%s)\n", describe(spec).c_str());
    return kExitOk;
  }
  std::printf("baseline not empty: the control run recorded %zu edges (%s)\n", control.recorded.edges().size(),
              describe(spec).c_str());
  print_differences(compare_traffic(EdgeTraffic{}, control.recorded));
  std::printf("reproduce: %s\n", control.measured.text().c_str());
  return kExitFailure;
}

/// The series to model: the launcher's when it is Open MPI (an explicit --open-mpi must agree),
/// else --open-mpi's.
std::string run_series(const CollectiveOptions& values, const po::variables_map& vm, const std::string& launcher) {
  const std::string release = open_mpi_release_of(launcher);
  if (release.empty()) return values.open_mpi;
  const std::string series(series_name(parse_series(release, launcher + " (Open MPI " + release + ")")));
  if (!vm["open-mpi"].defaulted() && std::string(series_name(parse_series(values.open_mpi))) != series) {
    throw po::error("--open-mpi " + values.open_mpi + ", but " + launcher + " runs Open MPI " + release);
  }
  return series;
}

}  // namespace

int validate_collective_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "--op OP --algorithm ALG --np N [--root R] --count C [--type-size T] [--segsize S] ...",
              "Runs one MPI collective with Open MPI's coll/tuned algorithm ALG forced, under mpirun with\n"
              "monitoring, and a control run doing everything but the collective; subtracts the control's\n"
              "point-to-point traffic and compares the rest, edge by edge, with 'mpimon model collective'.\n"
              "--baseline-only runs the control alone and requires it to be empty (then --no-control is safe).\n"
              "Prints 'agree: N edges' (exit 0) or the edges that differ (exit 1). docs/collectives.md."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    CollectiveOptions values;
    CollectiveRun run;
    std::string pinned_defect;
    bool no_control = false, baseline_only = false;
    add_collective_options(options, values);
    options.add_options()("launcher", po::value(&run.launcher)->default_value("mpirun"),
                          "MPI launcher command (words split on spaces)")(
        "program", po::value(&run.program)->default_value(default_program(), "mpimon-run-collective of this build"),
        "the mpimon-run-collective program")(
        "timeout", po::value(&run.timeout_seconds)->default_value(120)->notifier(in_range("timeout", 1)),
        "seconds before a run is killed")("oversubscribe", po::bool_switch(&run.force_oversubscribe),
                                          "always pass --oversubscribe (it is passed when N exceeds the cores)")(
        "keep", po::bool_switch(&run.keep), "keep the dumps (their directory is printed)")(
        "verbose,v", po::bool_switch(&run.verbose), "print the mpirun command lines")(
        "no-control", po::bool_switch(&no_control),
        "skip the control run and take its traffic as zero (the sweep does; --baseline-only checks it)")(
        "baseline-only", po::bool_switch(&baseline_only),
        "run only the control run and require it to record no point-to-point traffic (exit 1 otherwise)")(
        "pinned-defect", po::value(&pinned_defect),
        "the check pins this defect (docs/defects.md): it passes only when the recording equals the model "
        "with the defect exactly, and reports DEFECT FIXED when it equals the model of a correct monitoring");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    const std::string launcher = split_words(run.launcher).at(0);
    if (!found_in_path(launcher)) {
      raise_error(Error::Kind::input, launcher,
                  "not found: install Open MPI (openmpi-bin) or name the launcher with --launcher");
    }
    values.open_mpi = run_series(values, vm, run.launcher);
    {
      // An algorithm newer than the launcher's Open MPI: nothing to check here, said as a skip.
      CollectiveOptions latest = values;
      latest.open_mpi = series_name(OmpiSeries::v5_0);
      const CollectiveSpec any = collective_spec(latest, vm);
      if (!algorithm_available(any.op, any.algorithm, parse_series(values.open_mpi))) {
        std::printf("skipped: %s %s is not in Open MPI %s's coll/tuned\n", std::string(op_name(any.op)).c_str(),
                    std::string(algorithm_name(any.op, any.algorithm)).c_str(), values.open_mpi.c_str());
        return kExitNothingChecked;  // the algorithm is not in this Open MPI: a CTest skip
      }
    }
    if (no_control && baseline_only) throw po::error("--no-control and --baseline-only exclude each other");
    run.control = baseline_only ? ControlRun::only : no_control ? ControlRun::assume_empty : ControlRun::subtract;
    const CollectiveSpec spec = collective_spec(values, vm);
    const CollectiveRecording r = record_collective(spec, run);
    if (baseline_only) return report_baseline(spec, r);
    if (pinned_defect.empty()) return compare_and_report(spec, r.recorded, r.measured);
    const auto v = judge_pinned_collective(pinned_defect, spec, r.recorded, run.launcher);
    std::printf("%s: %s (%s)\n", outcome_name(v.outcome), v.summary.c_str(), describe(spec).c_str());
    for (const auto& line : v.details) std::printf("    %s\n", line.c_str());
    if (outcome_expected(v.outcome)) return kExitOk;
    std::printf("reproduce: %s\n", r.measured.text().c_str());
    return kExitFailure;
  });
}

}  // namespace mpimon::cli
