// Launching SimGrid's SMPI (harness/include/mpimon/harness/simulate.hpp).

#include "mpimon/harness/simulate.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>

#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/launch_pairs.hpp"
#include "mpimon/matrices/merge.hpp"
#include "mpimon/matrices/prof.hpp"
#include "mpimon/results/apps.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

namespace {

std::string last_line(const std::string& text) {
  std::istringstream in(text);
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  }
  return last;
}

}  // namespace

PlatformInfo read_platform(const std::string& reader, const std::string& platform,
                           const std::vector<std::string>& used) {
  std::vector<std::string> argv = {reader, platform};
  std::vector<std::string> distinct;
  for (const auto& h : used) {
    if (std::find(distinct.begin(), distinct.end(), h) == distinct.end()) distinct.push_back(h);
  }
  argv.insert(argv.end(), distinct.begin(), distinct.end());
  LaunchResult r;
  try {
    r = run_process(argv, {}, std::chrono::seconds(300));
  } catch (const Error& e) {
    throw Error(Error::Kind::system,
                std::string("cannot read the platform with SimGrid: ") + e.what() +
                    " (mpimon-simgrid-platform is built where SimGrid is installed: libsimgrid-dev)");
  }
  if (r.exit_code != 0) {
    std::string why;  // the reader's "error: " line, else its last one
    std::istringstream lines(r.output);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("error: ", 0) == 0) why = line.substr(7);
    }
    if (why.empty()) why = last_line(r.output);
    raise_error(Error::Kind::input, platform,
                "SimGrid refuses this platform (--platform): " +
                    (why.empty() ? "exit code " + std::to_string(r.exit_code) : why));
  }
  PlatformInfo info;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string kind;
    words >> kind;
    if (kind == "simgrid") {
      words >> info.simgrid_version;
    } else if (kind == "host") {
      std::string name;
      std::uint32_t cores = 0;
      words >> name >> cores;
      info.hosts.push_back(name);
      info.cores[name] = cores;
    } else if (kind == "property") {
      std::string zone, key, value;
      words >> zone >> key;
      std::getline(words >> std::ws, value);
      info.properties[key] = value;
    }
  }
  if (info.hosts.empty()) raise_error(Error::Kind::input, platform, "the platform has no host (--platform)");
  return info;
}

std::vector<std::pair<std::string, std::string>> default_smpi_settings() {
  return {{"smpi/host-speed", "1000000000f"}, {"smpi/display-timing", "yes"}};
}

std::pair<std::string, std::string> parse_smpi_setting(const std::string& text) {
  static const std::regex form(R"(([A-Za-z0-9_./-]+)=(.+))");
  std::smatch m;
  if (!std::regex_match(text, m, form) || m[2].str().find_first_of(" \t\n") != std::string::npos) {
    throw Error(Error::Kind::usage,
                "--smpi takes KEY=VALUE, a SimGrid setting without blanks (e.g. "
                "smpi/reduce=ompi_binary), not '" +
                    text + "'");
  }
  return {m[1].str(), m[2].str()};
}

std::vector<std::string> parse_rank_map(const std::string& output, std::uint32_t np) {
  static const std::regex line(R"(\[rank ([0-9]+)\] -> (\S+))");
  std::vector<std::string> hosts(np);
  for (std::sregex_iterator it(output.begin(), output.end(), line), end; it != end; ++it) {
    const auto rank = std::stoull((*it)[1].str());
    if (rank < np) hosts[rank] = (*it)[2].str();
  }
  return hosts;
}

std::optional<double> parse_simulated_time(const std::string& output) {
  static const std::regex line(R"(Simulated time: ([0-9.eE+-]+) seconds)");
  std::smatch m;
  if (!std::regex_search(output, m, line)) return std::nullopt;
  try {
    return std::stod(m[1].str());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

SparseMatrix fold_onto_hosts(const SparseMatrix& traffic, const std::vector<std::string>& rank_hosts,
                             const std::vector<std::string>& hosts) {
  std::map<std::string, std::uint32_t> index;
  for (std::uint32_t h = 0; h < hosts.size(); ++h) index[hosts[h]] = h;
  auto host_of = [&](std::uint32_t rank) {
    const auto it = index.find(rank_hosts.at(rank));
    if (it == index.end()) throw Error(Error::Kind::input, "rank " + std::to_string(rank) + " is on an unknown host");
    return it->second;
  };
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> pairs;
  for_each_nonzero(traffic, [&](std::uint32_t i, std::uint32_t j, std::uint64_t v) {
    pairs[{host_of(i), host_of(j)}] += v;
  });
  const auto order = static_cast<std::uint32_t>(hosts.size());
  return SparseMatrix::from_pairs(order, order, pairs);
}

SimulationResult run_simulation(const Simulation& s) {
  const auto np = static_cast<std::uint32_t>(s.hosts.size());
  const ScratchDirectory scratch("simulate");
  const fs::path hostfile = scratch.path() / "hosts";
  const fs::path trace = scratch.path() / "traffic.trace";
  {
    std::ofstream out(hostfile);
    for (const auto& h : s.hosts) out << h << '\n';
  }
  std::vector<std::string> argv = {
      s.smpirun,          "-platform", fs::absolute(s.platform).string(), "-hostfile", hostfile.string(), "-np",
      std::to_string(np), "-map"};
  if (s.trace_traffic) {
    for (const char* cfg :
         {"tracing:yes", "tracing/smpi:yes", "tracing/smpi/internals:yes", "tracing/smpi/display-sizes:yes"}) {
      argv.push_back(std::string("--cfg=") + cfg);
    }
    argv.push_back("--cfg=tracing/filename:" + trace.string());
  }
  for (const auto& [key, value] : s.settings) argv.push_back("--cfg=" + key + ":" + value);
  if (!s.replay.empty()) argv.insert(argv.end(), {"-replay", fs::absolute(s.replay).string()});
  argv.insert(argv.end(), s.argv.begin(), s.argv.end());

  SimulationResult result;
  for (const auto& a : argv) result.command += (result.command.empty() ? "" : " ") + a;
  result.time_source = s.workload ? "workload" : !s.time_regex.empty() ? "reported" : "simulated";
  const auto began = std::chrono::steady_clock::now();
  // smpirun puts its temporary files (a copy of the program per rank under privatization) in TMPDIR.
  const LaunchResult r = run_process(argv, {{"TMPDIR", scratch.path().string()}}, s.timeout, scratch.path().string());
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  result.output = r.output;
  result.status = failure_status(r, static_cast<int>(s.timeout.count()));
  if (!result.status.empty()) return result;
  result.rank_hosts = parse_rank_map(r.output, np);
  for (std::uint32_t rank = 0; rank < np; ++rank) {
    if (result.rank_hosts[rank] != s.hosts[rank]) {
      result.status = "SMPI put rank " + std::to_string(rank) + " on '" + result.rank_hosts[rank] +
                      "', not on its host '" + s.hosts[rank] + "' (-map)";
      return result;
    }
  }
  const auto clock = parse_simulated_time(r.output);
  if (!clock) {
    result.status = "no 'Simulated time:' in SMPI's output (smpi/display-timing)";
    return result;
  }
  result.simulated_seconds = result.seconds = *clock;
  try {
    const std::string where = "the simulation";
    if (s.workload) {
      const auto report = find_workload_report(r.output, where);
      if (!report) {
        result.status = "no 'mpimon-workload:' line in the output (not the built-in workload program?)";
        return result;
      }
      result.report = report->json;
      result.seconds = report->seconds;
      if (!report->passed) result.status = "the workload's check failed: " + report->json;
    } else if (!s.time_regex.empty()) {
      const auto seconds = reported_time(r.output, std::regex(s.time_regex), where);
      if (!seconds) result.status = "no match of --time-regex '" + s.time_regex + "' in the output";
      if (seconds) result.seconds = *seconds;
    }
    if (result.status.empty() && s.trace_traffic) result.traffic = read_trace_traffic(trace.string(), np);
  } catch (const Error& e) {
    result.status = std::string("unreadable output: ") + e.what();
  }
  if (result.status.empty()) result.status = "ok";
  return result;
}

std::vector<SimulationResult> run_simulations(const std::vector<Simulation>& runs, unsigned jobs,
                                              const SimulationProgress& progress) {
  std::vector<SimulationResult> results(runs.size());
  std::atomic<std::size_t> next{0};
  std::mutex told;  // progress, and the first failure to launch
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i; (i = next++) < runs.size();) {
      if (progress.started) {
        const std::lock_guard lock(told);
        progress.started(i);
      }
      try {
        results[i] = run_simulation(runs[i]);
      } catch (...) {  // cannot launch at all (fork, pipe): the others end, then it is thrown
        const std::lock_guard lock(told);
        if (!failure) failure = std::current_exception();
        next = runs.size();
        return;
      }
      if (progress.ended) {
        const std::lock_guard lock(told);
        progress.ended(i, results[i]);
      }
    }
  };
  std::vector<std::thread> workers;
  for (unsigned j = 1; j < std::min<std::size_t>(std::max(jobs, 1U), runs.size()); ++j) workers.emplace_back(work);
  work();
  for (auto& w : workers) w.join();
  if (failure) std::rethrow_exception(failure);
  return results;
}

void write_traffic_matrices(const TraceTraffic& traffic, const std::string& output, const std::string& dump,
                            const std::string& generator) {
  const ScratchDirectory scratch("traffic");
  const std::uint32_t np = traffic.bytes.rows;
  std::vector<std::uint32_t> world(np);
  for (std::uint32_t r = 0; r < np; ++r) world[r] = r;
  std::vector<std::string> files;
  for (std::uint32_t r = 0; r < np; ++r) {
    RankProfile profile;
    profile.rank = r;
    for (auto k = traffic.bytes.indptr[r]; k < traffic.bytes.indptr[r + 1]; ++k) {
      const std::uint32_t peer = traffic.bytes.indices[k];
      profile.pairs.push_back({TrafficClass::external, peer, traffic.bytes.values[k], traffic.messages.at(r, peer), 0});
    }
    profile.communicators.push_back({"MPI_COMM_WORLD", world, {}, {}, {}, 0});
    files.push_back((scratch.path() / (dump + "." + std::to_string(r) + ".prof")).string());
    std::ofstream out(files.back());
    out << format_prof(profile);
    if (!out) raise_error(Error::Kind::system, files.back(), "cannot write the simulated dump");
  }
  MergeOptions options;
  options.generator = generator;
  merge_prof_files(files, output, options);
}

}  // namespace mpimon::harness
