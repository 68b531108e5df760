// The runs of `mpimon validate collective` (collective_run.hpp).

#include "mpimon/harness/collective_run.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/matrices/prof.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

namespace {

std::string last_lines(const std::string& text, std::size_t lines) {
  std::size_t pos = text.size();
  while (lines-- > 0 && pos > 0) {
    pos = text.rfind('\n', pos > 1 ? pos - 2 : 0);
    if (pos == std::string::npos) return text;
  }
  return text.substr(pos + 1);
}

/// Runs one launch; throws with the launcher's last output when it fails.
void run_launch(const MpiLaunch& launch, const std::string& what, const CollectiveRun& run) {
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

std::string dump_file(const std::string& prefix, std::uint32_t rank) {
  return prefix + "." + std::to_string(rank) + ".prof";
}

/// The E and I lines of every rank's dump.
EdgeTraffic read_point_to_point(const std::string& prefix, std::uint32_t nprocs) {
  EdgeTraffic traffic;
  for (std::uint32_t r = 0; r < nprocs; ++r) {
    const std::string path = dump_file(prefix, r);
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

}  // namespace

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

std::vector<std::pair<std::string, std::string>> collective_mca(const CollectiveSpec& spec, const std::string& dump) {
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

MpiLaunch collective_launch(const CollectiveSpec& spec, const CollectiveRun& run, const std::string& dump,
                            bool control) {
  MpiLaunch l(run.launcher, spec.nprocs);
  if (run.force_oversubscribe || spec.nprocs > physical_cores()) l.oversubscribe();
  for (const auto& [key, value] : collective_mca(spec, dump)) l.mca(key, value);
  std::vector<std::string> args{"--op",        std::string(op_name(spec.op)),  "--count", std::to_string(spec.count),
                                "--type-size", std::to_string(spec.type_size), "--root",  std::to_string(spec.root)};
  if (control) args.push_back("--skip");
  return l.program(run.program, args);
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

CollectiveRecording record_collective(const CollectiveSpec& spec, const CollectiveRun& run) {
  if (run.timeout_seconds <= 0) throw Error(Error::Kind::usage, "--timeout must be positive");
  const std::string launcher = split_words(run.launcher).at(0);
  if (!found_in_path(launcher)) {
    raise_error(Error::Kind::input, launcher,
                "not found: install Open MPI (openmpi-bin) or name the launcher with --launcher");
  }
  if (access(run.program.c_str(), X_OK) != 0) {
    raise_error(Error::Kind::input, run.program, "not an executable; build mpimon-run-collective or give --program");
  }
  predict_collective(spec);  // a spec the model cannot predict fails before anything runs

  ScratchDirectory scratch("collective");
  if (run.keep) scratch.keep();
  fs::create_directory(scratch.path() / "prof");
  const std::string control_dump = (scratch.path() / "prof" / "control").string();
  const std::string measured_dump = (scratch.path() / "prof" / "measured").string();
  const MpiLaunch control = collective_launch(spec, run, control_dump, true);
  const std::string kept = run.keep ? scratch.path().string() : "";
  if (run.keep) std::cerr << "dumps kept in " << kept << "\n";
  if (run.control == ControlRun::only) {
    run_launch(control, "control", run);
    return {read_point_to_point(control_dump, spec.nprocs), control, kept};
  }
  CollectiveRecording out{{}, collective_launch(spec, run, measured_dump, false), kept};
  if (run.control == ControlRun::subtract) run_launch(control, "control", run);
  run_launch(out.measured, "measured", run);
  out.recorded = read_point_to_point(measured_dump, spec.nprocs);
  if (run.control == ControlRun::subtract) {
    out.recorded = subtract(out.recorded, read_point_to_point(control_dump, spec.nprocs));
  }
  return out;
}

Verdict judge_pinned_collective(const std::string& defect, CollectiveSpec spec, const EdgeTraffic& recorded,
                                const std::string& launcher) {
  const KnownDefect& d = known_defect(defect);
  if (d.rule != DefectRule::collective_model) {
    throw Error(Error::Kind::usage, "--pinned-defect " + defect + ": not a defect of the collective model");
  }
  spec.ideal_monitoring = false;
  const auto against_defect = difference_lines(compare_traffic(predict_collective(spec), recorded));
  spec.ideal_monitoring = true;
  const auto against_ideal = difference_lines(compare_traffic(predict_collective(spec), recorded));
  const std::string release = open_mpi_release_of(launcher);
  const std::string series = release.empty() ? established_series().back() : release_series(release);
  const bool expected = std::find(d.series.begin(), d.series.end(), series) != d.series.end();
  return judge_pinned(d, expected, series, against_ideal, against_defect);
}

}  // namespace mpimon::harness
