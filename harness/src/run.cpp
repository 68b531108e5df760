#include "mpimon/harness/run.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

std::string find_reorder_library() { return own_library("libmpimon-reorder.so", "MPIMON_REORDER_LIBRARY"); }

namespace {

std::string existing(const std::string& path, const std::string& option) {
  if (!fs::exists(path)) raise_error(Error::Kind::input, option + " " + path, "no such file");
  return fs::absolute(path).string();
}

}  // namespace

PreparedRun prepare_run(const RunSettings& s) {
  if (s.command.empty())
    throw Error(Error::Kind::usage, "no command to run: give it after --, e.g. -- mpirun -np 4 ./app");
  if (!s.reorder && (s.verbose || !s.stats.empty() || !s.topology.empty() || s.time_limit > 0 || !s.plan.empty())) {
    throw Error(Error::Kind::usage,
                "--verbose, --stats, --topology, --time-limit and --plan set up the reordering: add --reorder");
  }
  PreparedRun r;
  r.argv = s.command;
  if (!s.reorder) return r;
  std::vector<std::pair<std::string, std::string>> variables{
      {"LD_PRELOAD", s.library.empty() ? find_reorder_library() : existing(s.library, "--library")}};
  if (s.verbose) variables.emplace_back("MPIMON_REORDER_VERBOSE", "1");
  if (!s.stats.empty()) {
    check_output_path(s.stats);
    variables.emplace_back("MPIMON_REORDER_STATS", fs::absolute(s.stats).string());
  }
  if (!s.plan.empty()) {
    check_output_path(s.plan);
    variables.emplace_back("MPIMON_REORDER_PLAN", fs::absolute(s.plan).string());
  }
  if (!s.topology.empty()) variables.emplace_back("MPIMON_REORDER_TOPOLOGY", existing(s.topology, "--topology"));
  if (s.time_limit > 0) {
    std::ostringstream seconds;
    seconds << s.time_limit;
    variables.emplace_back("MPIMON_REORDER_TIME_LIMIT", seconds.str());
  }
  // The launcher table says how its kind passes variables to the ranks (never to itself).
  const std::string export_option = launcher_flags(s.command[0]).export_option;
  if (export_option == "-x") {
    std::vector<std::string> options;
    for (auto& [key, value] : variables) {
      // The user's own -x LD_PRELOAD=... keeps its libraries, after ours.
      if (key == "LD_PRELOAD") {
        for (std::size_t i = 1; i + 1 < r.argv.size(); ++i) {
          if (r.argv[i] == "-x" && r.argv[i + 1].rfind("LD_PRELOAD=", 0) == 0) {
            value += ":" + r.argv[i + 1].substr(std::strlen("LD_PRELOAD="));
            r.argv.erase(r.argv.begin() + static_cast<std::ptrdiff_t>(i),
                         r.argv.begin() + static_cast<std::ptrdiff_t>(i) + 2);
            break;
          }
        }
      }
      options.insert(options.end(), {"-x", key + "=" + value});
    }
    r.argv.insert(r.argv.begin() + 1, options.begin(), options.end());
  } else if (!export_option.empty()) {
    std::string exports = export_option;
    for (const auto& [key, value] : variables) exports += (exports == export_option ? "" : ",") + key + "=" + value;
    r.argv.insert(r.argv.begin() + 1, exports);
  } else {
    for (const auto& [key, value] : variables) r.environment[key] = value;
  }
  return r;
}

std::string PreparedRun::text() const {
  std::string line;
  for (const auto& [key, value] : environment) line += key + "=" + value + " ";
  for (const auto& word : argv) line += (word.find(' ') == std::string::npos ? word : "'" + word + "'") + " ";
  if (!line.empty()) line.pop_back();
  return line;
}

void exec_run(const PreparedRun& run) {
  for (const auto& [key, value] : run.environment) setenv(key.c_str(), value.c_str(), 1);
  std::vector<char*> argv;
  for (const auto& word : run.argv) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  raise_error(Error::Kind::system, run.argv[0], std::string("cannot run: ") + std::strerror(errno));
}

}  // namespace mpimon::harness
