#include "app_options.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>

#include "mpimon/models/workloads.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace {

// A compute knob: a finite number >= 0 (std::stod refuses one too large for a double).
void check_compute_value(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  double value = -1;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
  }
  if (used != text.size() || !(value >= 0) || !std::isfinite(value)) {
    throw po::error("--" + option + ": '" + text + "' is not a number >= 0");
  }
}

void check_compute(const std::string& text) { check_compute_value(text, "compute"); }

void check_compute_sweep(const std::string& text) {
  for (const auto& f : split_list(text, "compute-sweep")) check_compute_value(f, "compute-sweep");
}

void check_grid(const std::string& text) {
  if (parse_number_list(text, "grid", 1, 1u << 20).size() != 3) {
    throw po::error("--grid: '" + text + "' is not three sizes NX,NY,NZ");
  }
}

void check_points(std::uint32_t points) {
  if (points != 7 && points != 27) throw po::error("--points: '" + std::to_string(points) + "' is not 7 or 27");
}

}  // namespace

std::pair<std::vector<std::string>, std::vector<std::string>> split_command(const std::vector<std::string>& args) {
  auto dashes = std::find(args.begin(), args.end(), "--");
  return {{args.begin(), dashes}, {dashes == args.end() ? dashes : dashes + 1, args.end()}};
}

void add_app_options(po::options_description& options, AppOptions& o, AppSweep& s, const std::string& default_output) {
  options.add_options()("workload", po::value(&o.workloads),
                        ("built-in workloads: " + mpimon::workload_list() + " (a list)").c_str())(
      "class", po::value(&o.classes)->default_value("small"),
      ("problem classes of the workloads: " + mpimon::workload_class_list() + " (a list)").c_str())(
      "iterations", po::value(&o.iterations)->notifier(in_range<std::uint32_t>("iterations", 1)),
      "workload iterations (default: the class's)")("grid", po::value(&o.grid)->notifier(check_grid),
                                                    "stencil: NX,NY,NZ")(
      "vars", po::value(&o.vars)->notifier(in_range<std::uint32_t>("vars", 1)), "stencil: variables per point")(
      "points", po::value(&o.points)->notifier(check_points), "stencil: 7 or 27")(
      "compute", po::value(&o.compute)->notifier(check_compute),
      "stencil: compute knob F >= 0 (larger: larger compute share)")(
      "compute-sweep", po::value(&o.computes)->notifier(check_compute_sweep),
      "stencil: one application per compute value, e.g. 0,1,4,16,64 (Fig. 3)")(
      "workload-program",
      po::value(&o.program)->default_value(default_workload_program(), "mpimon-workload of this build"),
      "the built-in workloads' program")("name", po::value(&o.name),
                                         "label of the command after -- (default: its file name)")(
      "workdir", po::value(&s.workdir), "working directory of the launches (default: the current one)")(
      "pairs", po::value(&s.pairs)->default_value(10)->notifier(in_range<std::uint32_t>("pairs", 1)),
      "launch pairs per application and process count")("seed", po::value(&s.h.seed)->default_value(1),
                                                        "seed of the arm order")(
      "launcher", po::value(&s.h.launcher)->default_value("mpirun"), "MPI launcher, e.g. srun")(
      "mca", po::value(&s.h.mca)->composing(), "KEY=VALUE added to every launch (repeatable)")(
      "timeout", po::value(&s.h.timeout)->default_value(600)->notifier(in_range("timeout", 1)),
      "seconds before a launch is killed")("output,o", po::value(&s.output)->default_value(default_output),
                                           "results file")("resume", "continue the sweep recorded in the results file")(
      "keep-going", "run every launch even when some fail (the exit code still says they failed: 9)")(
      "time-regex", po::value(&s.time_regex),
      "a command's own reported time: the last match in its output, the first group in seconds (default: the "
      "launch's wall time)");
}

void apply_app_options(AppOptions o, const po::variables_map& vm, const std::vector<std::string>& command, AppSweep& s,
                       const std::string& default_workloads) {
  s.resume = vm.count("resume") > 0;
  s.keep_going = vm.count("keep-going") > 0;
  if (!s.time_regex.empty()) {
    if (command.empty()) throw po::error("--time-regex reads a command's output: give the command after --");
    try {
      std::regex check(s.time_regex);
    } catch (const std::regex_error& e) {
      throw po::error("--time-regex '" + s.time_regex + "' is not a regular expression: " + e.what());
    }
  }
  check_harness_settings(s.h);
  if (o.workloads.empty() && command.empty()) o.workloads = default_workloads;
  if (o.workloads.empty() == command.empty()) {
    throw po::error("name either built-in workloads (--workload) or a command (after --), one of the two");
  }
  if (!command.empty()) {
    s.apps = {{o.name.empty() ? std::filesystem::path(command[0]).filename().string() : o.name, command, false}};
    return;
  }
  std::vector<std::string> common, stencil;
  if (o.iterations > 0) common = {"--iterations", std::to_string(o.iterations)};
  if (!o.grid.empty()) stencil.insert(stencil.end(), {"--grid", o.grid});
  if (o.vars > 0) stencil.insert(stencil.end(), {"--vars", std::to_string(o.vars)});
  if (o.points > 0) stencil.insert(stencil.end(), {"--points", std::to_string(o.points)});
  std::vector<std::string> sweep =
      o.computes.empty() ? std::vector<std::string>{} : split_list(o.computes, "compute-sweep");
  if (!o.compute.empty()) {
    if (!sweep.empty()) throw po::error("--compute and --compute-sweep exclude each other");
    sweep = {o.compute};
  }
  auto names = split_list(o.workloads, "workload");
  const bool shaped = std::any_of(names.begin(), names.end(), [](const std::string& n) {
    const auto* kind = find_workload(n);
    return kind && kind->shape_options;
  });
  if ((!stencil.empty() || !sweep.empty()) && !shaped) {
    throw po::error("--grid, --vars, --points and --compute(-sweep) are options of " +
                    workloads_with(&WorkloadKind::shape_options) + ": add it to --workload");
  }
  s.apps = workload_apps(o.program, names, split_list(o.classes, "class"), common, stencil, sweep);
}

}  // namespace mpimon::cli
