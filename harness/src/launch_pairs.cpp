#include "mpimon/harness/launch_pairs.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "mpimon/base/error.hpp"
#include "mpimon/harness/record.hpp"

#include "mpimon/base/version.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

void check_harness_settings(const HarnessSettings& s) {
  for (const auto& kv : s.mca) {
    if (kv.find('=') == std::string::npos) {
      throw Error(Error::Kind::usage, "--mca takes KEY=VALUE, not '" + kv + "'");
    }
  }
  if (s.bind != "auto" && s.bind != "core" && s.bind != "none" && s.bind != "launcher") {
    throw Error(Error::Kind::usage, "--bind takes auto, core, none or launcher, not '" + s.bind + "'");
  }
}

void bind_processes(MpiLaunch& l, std::uint32_t np, const std::string& bind) {
  if (bind == "launcher") return;
  // This machine's cores say nothing of the nodes srun allocates: auto is then Slurm's default.
  if (bind == "auto" && !l.open_mpi()) return;
  const bool fits = np <= std::thread::hardware_concurrency();
  l.bind(bind == "core" || (bind == "auto" && fits));
  if (!fits) l.oversubscribe();
}

void monitoring_off(MpiLaunch& l, const std::vector<std::string>& user_mca) {
  for (const char* framework : {"pml", "osc", "coll"}) {
    // Two values for one key would make mpirun fail; the user's choice of components wins.
    const bool chosen = std::any_of(user_mca.begin(), user_mca.end(),
                                    [&](const std::string& kv) { return kv.substr(0, kv.find('=')) == framework; });
    if (!chosen) l.mca(framework, "^monitoring");
  }
}

void monitoring_on(MpiLaunch& l, std::uint32_t mode, const std::string& dump_prefix) {
  l.mca("pml_monitoring_enable", std::to_string(mode));
  if (!dump_prefix.empty()) l.mca("pml_monitoring_enable_output", "3").mca("pml_monitoring_filename", dump_prefix);
}

void user_mca(MpiLaunch& l, const std::vector<std::string>& mca) {
  for (const auto& kv : mca) {
    auto eq = kv.find('=');
    l.mca(kv.substr(0, eq), kv.substr(eq + 1));
  }
}

std::vector<std::string> arm_order(const std::vector<std::string>& arms, std::mt19937_64& rng) {
  std::vector<std::string> order = arms;
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

std::string failure_status(const LaunchResult& r, int timeout) {
  if (r.timed_out) return "timeout after " + std::to_string(timeout) + " s";
  if (r.exit_code == 0) return "";
  // The last line that says something: mpirun ends its own messages with a line of dashes.
  std::string last, line;
  std::istringstream lines(r.output);
  while (std::getline(lines, line)) {
    if (line.find_first_not_of("- \t\r") != std::string::npos) last = line;
  }
  return "exit code " + std::to_string(r.exit_code) + ": " + last.substr(0, 200);
}

ScratchDirectory launch_directory(const std::string& tag) {
  ScratchDirectory dir(tag);
  fs::create_directory(dir.path() / "prof");
  return dir;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

std::map<std::string, std::string> harness_configuration(const HarnessSettings& s) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  const RunProvenance provenance = run_provenance(s.launcher, s.mca);
  return {{"generator", std::string("mpimon ") + kVersion},
          {"launcher", s.launcher},
          {"mca", join(s.mca, " ")},
          {"monitoring_mode", std::to_string(s.monitoring_mode)},
          {"seed", std::to_string(s.seed)},
          {"bind", s.bind},
          {"mpi_library", launcher_version_line(s.launcher)},
          {"open_mpi_version", provenance.open_mpi_version},
          // the monitored arm's; "" when the installation cannot tell
          {"monitoring_components", join(provenance.monitoring_components, ",")},
          {"host", host},
          {"cpus", std::to_string(std::thread::hardware_concurrency())}};
}

void FailedLaunches::add(const std::string& what, const std::string& command, const std::string& status,
                         const std::string& output) {
  fs::create_directories(directory_);
  std::string file = what;
  std::replace(file.begin(), file.end(), ' ', '-');
  std::ofstream log(fs::path(directory_) / (file + ".log"));
  log << "command: " << command << "\nstatus: " << status << "\n\n" << output;
  if (!log) raise_error(Error::Kind::system, directory_, "cannot write the log of a failed launch");
  if (count_++ == 0) first_ = what + ": " + status;
}

void FailedLaunches::raise_if_any(const std::string& note) const {
  if (count_ == 0) return;
  throw Error(Error::Kind::launch,
              std::to_string(count_) + " of " + std::to_string(launched_) + " launches run failed" +
                  (stopped ? " (the sweep stopped at it; --keep-going runs the rest)" : "") + ", the first: " + first_ +
                  "; their logs: " + directory_ + (note.empty() ? "; --resume retries them" : "; " + note));
}

std::string logs_directory(const std::string& results_file) { return results_file + ".logs"; }

void Progress::done(const std::string& what, const std::string& status, double seconds) {
  ++done_;
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "[%zu/%zu] %s %s (%.1f s; about %.0f s left)\n", done_, todo_, what.c_str(), status.c_str(),
               seconds, elapsed / static_cast<double>(done_) * static_cast<double>(todo_ - done_));
}

}  // namespace mpimon::harness
