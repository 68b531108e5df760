// `mpimon compact INPUT -o OUT.h5`: the compact results file kept next to committed figures
// (docs/plots.md, "Redrawn from results/"): per-launch summaries, no raw samples, no paths.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/arms.hpp"
#include "mpimon/results/overhead.hpp"
#include "mpimon/results/simulated.hpp"

namespace mpimon::cli {

namespace {

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_error(Error::Kind::input, path, "cannot read the file");
  std::string line;
  std::getline(in, line);
  return line;
}

/// Comma-separated values in order of first appearance.
template <typename Records, typename Field>
std::string distinct(const Records& launches, Field field) {
  std::vector<std::string> seen;
  for (const auto& l : launches) {
    const std::string v = field(l);
    if (std::find(seen.begin(), seen.end(), v) == seen.end()) seen.push_back(v);
  }
  std::string out;
  for (const auto& v : seen) out += (out.empty() ? "" : ",") + v;
  return out;
}

/// The arms as the sweeps write them: the baseline kArmOff first (readers take the first arm as the
/// baseline: apps.hpp's arms_of), the others in order of appearance.
std::string baseline_first(const std::string& arms) {
  std::vector<std::string> list;
  std::istringstream in(arms);
  for (std::string arm; std::getline(in, arm, ',');) list.push_back(arm);
  const auto off = std::find(list.begin(), list.end(), kArmOff);
  if (off != list.end()) std::rotate(list.begin(), off, off + 1);
  std::string out;
  for (const auto& arm : list) out += (out.empty() ? "" : ",") + arm;
  return out;
}

/// What a launches CSV says of its sweep (np, pairs, arms); the rest comes from --set.
template <typename Records>
std::map<std::string, std::string> derived_configuration(const Records& launches) {
  std::set<std::uint32_t> nps;
  std::uint32_t pairs = 0;
  for (const auto& l : launches) {
    nps.insert(l.key.np);
    pairs = std::max(pairs, l.key.pair);
  }
  std::string np;
  for (auto n : nps) np += (np.empty() ? "" : ",") + std::to_string(n);
  return {{"np", np},
          {"pairs", std::to_string(pairs)},
          {"arms", baseline_first(distinct(launches, [](const auto& l) { return l.key.arm; }))}};
}

std::map<std::string, std::string> parse_settings(const std::vector<std::string>& settings) {
  std::map<std::string, std::string> out;
  for (const auto& s : settings) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw po::error("--set expects KEY=VALUE, not '" + s + "'");
    out[s.substr(0, eq)] = s.substr(eq + 1);
  }
  return out;
}

void write_overhead(const std::string& path, const std::map<std::string, std::string>& configuration,
                    const std::vector<LaunchRecord>& launches) {
  OverheadResults::create(path, configuration);
  OverheadResults results(path);
  for (const auto& l : launches) results.append(compact(l));
  results.write_analysis(analyze_overhead(launches));
}

void write_apps(const std::string& path, const std::map<std::string, std::string>& configuration,
                const std::vector<AppLaunchRecord>& launches) {
  AppResults::create(path, configuration);
  AppResults results(path);
  for (const auto& l : launches) results.append(compact(l));
  if (is_simulated(configuration)) {  // mpimon simulate: one launch per mapping, no pairs
    write_simulated_mappings(path, simulated_mappings(configuration, launches));
    return;
  }
  // The configuration's arms: off,on of bench app, or A,B of bench placement.
  const ArmPair arms = arms_of(configuration);
  auto rows = analyze_apps(launches, 0.95, arms);
  order_rows(rows, configuration.count("apps") ? configuration.at("apps") : "");
  results.write_analysis(rows, app_pairs(launches, arms), arms);
}

}  // namespace

int compact_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "INPUT -o OUT.h5 [--set KEY=VALUE]...",
              "Writes a compact results file: the same format as INPUT's results (mpimon bench overhead or\n"
              "app), with each launch's summaries and the analysis, but no raw samples, command lines,\n"
              "benchmark JSON or workload reports (about 1 MB where the full file has tens of MB and\n"
              "this machine's paths). mpimon plot, show and report read it as the full file.\n"
              "INPUT is a results file (.h5), or the launches CSV of mpimon show --launches-csv: then the\n"
              "configuration holds np, pairs and arms (and the transports or apps, in order) from the CSV, and\n"
              "what the figures' provenance needs (mpi_library, host, cpus, iterations) is given by --set."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string input, output;
    std::vector<std::string> settings;
    options.add_options()("output,o", po::value(&output)->required(), "the compact results file to write")(
        "set", po::value(&settings)->composing(), "KEY=VALUE: a configuration attribute (added or replaced)")(
        "input", po::value(&input)->required(), "results file (.h5) or launches CSV");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    const auto set = parse_settings(settings);
    const std::string header = first_line(input);
    AtomicOutput out(output);
    std::filesystem::remove(out.temporary());  // HDF5 creates it
    std::string kind;
    if (header.rfind("launch,transport,", 0) == 0 || header.rfind("launch,app,", 0) == 0) {
      if (header.rfind("launch,transport,", 0) == 0) {
        auto launches = read_launches_csv(input);
        auto config = derived_configuration(launches);
        config["transports"] = distinct(launches, [](const LaunchRecord& l) { return l.key.transport; });
        for (const auto& [k, v] : set) config[k] = v;
        write_overhead(out.temporary(), config, launches);
        kind = "overhead";
      } else {
        auto launches = read_app_launches_csv(input);
        auto config = derived_configuration(launches);
        config["apps"] = distinct(launches, [](const AppLaunchRecord& l) { return l.key.app; });
        for (const auto& [k, v] : set) config[k] = v;
        write_apps(out.temporary(), config, launches);
        kind = "application";
      }
    } else {
      const std::string format = hdf5_format_of(input);
      if (format == kOverheadFormat) {
        OverheadResults results(input);
        auto config = results.configuration();
        for (const auto& [k, v] : set) config[k] = v;
        write_overhead(out.temporary(), config, results.launches());
        kind = "overhead";
      } else if (format == kAppsFormat) {
        AppResults results(input);
        auto config = results.configuration();
        for (const auto& [k, v] : set) config[k] = v;
        write_apps(out.temporary(), config, results.launches());
        kind = "application";
      } else {
        raise_error(Error::Kind::input, input,
                    "not an overhead or application results file, nor the launches CSV of mpimon show --launches-csv");
      }
    }
    mark_compact_results(out.temporary());
    out.commit();
    std::cout << output << ": compact " << kind << " results (" << std::filesystem::file_size(output) << " bytes)\n";
    return kExitOk;
  });
}

}  // namespace mpimon::cli
