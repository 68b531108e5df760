#include <fnmatch.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/validation_suite.hpp"
#include "mpimon/json.hpp"
#include "mpimon/version.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace fs = std::filesystem;

namespace {

struct Selection {
  const ValidationCase* c;
  int np, mode;
};

// The components ompi_info lists: "framework:component" -> the component's version (empty if
// ompi_info cannot be run). Asked once: it takes a second or two.
const std::map<std::string, std::string>& installed_components() {
  static const std::map<std::string, std::string> found = [] {
    std::map<std::string, std::string> components;
    LaunchResult r = run_process({"ompi_info", "--parsable"}, {}, std::chrono::seconds(60));
    std::istringstream in(r.output);
    // e.g. mca:pml:monitoring:version:"component:4.1.4" (also "mca:..." and "api:..." lines)
    static const std::regex version(R"re(^mca:([a-z0-9_]+):([a-z0-9_]+):version:"([a-z]+):([^"]*)")re");
    std::smatch m;
    for (std::string line; std::getline(in, line);) {
      if (!std::regex_search(line, m, version)) continue;
      std::string& v = components[m[1].str() + ":" + m[2].str()];
      if (m[3] == "component") v = m[4].str();
    }
    return components;
  }();
  return found;
}

std::vector<Selection> select_cases(const std::vector<std::string>& patterns, const std::vector<int>& nps,
                                    const std::vector<int>& modes) {
  std::vector<Selection> out;
  std::set<std::string> absent;
  for (const auto& c : validation_cases()) {
    bool wanted = patterns.empty();
    for (const auto& p : patterns) wanted |= fnmatch(p.c_str(), c.name.c_str(), 0) == 0;
    if (!wanted) continue;
    if (!c.required_component.empty()) {
      const auto& components = installed_components();
      // Without ompi_info at all, run the case: its failure then says what is wrong.
      if (!components.empty() && !components.count(c.required_component)) {
        absent.insert(c.required_component);
        continue;
      }
    }
    for (int np : nps.empty() ? c.process_counts : nps) {
      for (int mode : modes.empty() ? c.modes : modes) out.push_back({&c, np, mode});
    }
  }
  for (const auto& a : absent) {
    std::fprintf(stderr, "note: cases that need %s are left out: ompi_info does not list it\n", a.c_str());
  }
  if (out.empty()) throw po::error("no validation case matches (see --list)");
  return out;
}

std::string test_name(const Selection& s) {
  return "validation." + s.c->name + ".mode" + std::to_string(s.mode) + ".np" + std::to_string(s.np);
}

// CTest reads this file at test time (TEST_INCLUDE_FILES): one test per case, np and mode.
void write_ctest_script(const std::string& path, const std::vector<Selection>& selection, const std::string& self,
                        const std::string& programs) {
  std::ofstream out(path, std::ios::trunc);
  for (const auto& s : selection) {
    std::string name = test_name(s);
    out << "add_test([=[" << name << "]=] [=[" << self << "]=] validate --case [=[" << s.c->name << "]=] --np " << s.np
        << " --mode " << s.mode << " --programs [=[" << programs << "]=])\n";
    out << "set_tests_properties([=[" << name << "]=] PROPERTIES LABELS [=[validation;mpi;suite"
        << (s.c->defect.empty() ? "" : ";defect") << "]=] PROCESSORS " << s.np << " TIMEOUT 300)\n";
  }
  if (!out.flush()) raise_error(Error::Kind::system, path, "write error");
}

// The monitoring components the library has, from ompi_info (empty if it cannot be run).
std::vector<std::string> monitoring_components() {
  std::vector<std::string> found;
  for (const char* framework : {"pml", "osc", "coll"}) {
    auto it = installed_components().find(std::string(framework) + ":monitoring");
    if (it != installed_components().end()) found.push_back(std::string(framework) + "/monitoring " + it->second);
  }
  return found;
}

std::string join_series(const std::vector<std::string>& series) {
  std::string out;
  for (const auto& s : series) out += (out.empty() ? "" : ",") + s;
  return out;
}

// The Open MPI series whose defects are expected: the launcher's, else the library's (ompi_info),
// else the newest established one.
std::string mpi_series_of(const std::string& launcher) {
  std::string release = open_mpi_release(launcher_version_line(launcher));
  if (release.empty()) {
    LaunchResult r = run_process({"ompi_info", "--version"}, {}, std::chrono::seconds(30));
    std::smatch m;
    if (std::regex_search(r.output, m, std::regex(R"(Open MPI v([0-9]+\.[0-9]+))"))) release = m[1].str();
  }
  return release.empty() ? established_series().back() : release_series(release);
}

void write_json(const std::string& path, const std::vector<std::pair<Selection, CaseResult>>& results,
                const SuiteOptions& options) {
  std::ofstream out(path, std::ios::trunc);
  const std::string library = launcher_version_line(options.launcher);
  out << "{\n  \"generator\": \"mpimon " << kVersion << "\",\n  \"mpi_library\": \"" << json_escape(library)
      << "\",\n  \"open_mpi_version\": \"" << json_escape(open_mpi_release(library))
      << "\",\n  \"defects_expected_as_on\": \"" << json_escape(options.mpi_series)
      << "\",\n  \"monitoring_components\": [";
  auto components = monitoring_components();
  for (std::size_t i = 0; i < components.size(); ++i)
    out << (i ? ", " : "") << "\"" << json_escape(components[i]) << "\"";
  out << "],\n  \"launcher\": \"" << json_escape(options.launcher) << "\",\n  \"cases\": [\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& [s, r] = results[i];
    out << "    {\"case\": \"" << json_escape(r.name) << "\", \"np\": " << r.np
        << ", \"pml_monitoring_enable\": " << r.mode << ", \"mca\": {";
    for (std::size_t k = 0; k < s.c->mca.size(); ++k) {
      out << (k ? ", " : "") << "\"" << json_escape(s.c->mca[k].first) << "\": \"" << json_escape(s.c->mca[k].second)
          << "\"";
    }
    out << "}, \"outcome\": \"" << outcome_name(r.outcome)
        << "\", \"expected\": " << (outcome_expected(r.outcome) ? "true" : "false") << ", \"defect\": \""
        << json_escape(r.defect)
        << "\", \"defect_expected\": " << (defect_expected(*s.c, options.mpi_series) ? "true" : "false")
        << ", \"defect_present_on\": \"" << json_escape(join_series(s.c->defect_present_on)) << "\", \"summary\": \""
        << json_escape(r.summary) << "\", \"seconds\": " << r.seconds << ", \"details\": [";
    for (std::size_t k = 0; k < r.details.size() && k < 50; ++k) {
      out << (k ? ", " : "") << "\"" << json_escape(r.details[k]) << "\"";
    }
    out << "]}" << (i + 1 < results.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
  if (!out.flush()) raise_error(Error::Kind::system, path, "write error");
}

// Under a run's row: what a defect means for the user's numbers, with its section, and the first
// difference lines of a defective or failing run (the rest are counted; --json has them all).
void print_case_lines(const CaseResult& r) {
  constexpr std::size_t kShown = 5;
  if (!r.defect.empty() && r.outcome != Outcome::holds) {
    std::printf("    defect %s: %s (%s)\n", r.defect.c_str(), known_defect(r.defect).meaning.c_str(),
                defect_link(r.defect).c_str());
  }
  if (r.outcome == Outcome::holds) return;
  for (std::size_t k = 0; k < r.details.size() && k < kShown; ++k) {
    std::string line = r.details[k].substr(0, r.details[k].find('\n'));
    std::printf("    %s\n", line.c_str());
  }
  if (r.details.size() > kShown)
    std::printf("    ... and %zu more difference lines (--json FILE has them all)\n", r.details.size() - kShown);
}

// The closing counts: exact runs, runs showing a known defect of the MPI library (by id), failing runs.
void print_counts(const std::vector<std::pair<Selection, CaseResult>>& results) {
  std::size_t exact = 0, failing = 0;
  std::map<std::string, std::size_t> defects;
  for (const auto& [s, r] : results) {
    if (r.outcome == Outcome::holds)
      ++exact;
    else if (r.outcome == Outcome::defect_present)
      ++defects[r.defect];
    else
      ++failing;
  }
  std::size_t defective = 0;
  std::string ids;
  for (const auto& [id, n] : defects) {
    defective += n;
    ids += (ids.empty() ? ": " : ", ") + id + " (" + std::to_string(n) + ")";
  }
  std::printf("%zu runs: %zu exact, %zu showing a known defect of the MPI library%s, %zu failing\n", results.size(),
              exact, defective, ids.c_str(), failing);
}

}  // namespace

int validate_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name,
              "[--case PATTERN]... [--np N]... [--mode 1|2]... [--json FILE] [--list]\n"
              "       (and: " +
                  name + " collective --help, the decomposition of one forced collective)",
              "Runs the validation suite: MPI programs that keep a ledger of what they send run under\n"
              "mpirun with Open MPI's monitoring on, and what the monitoring recorded must equal the ledger\n"
              "exactly. Prints what holds, what does not and why; known defects of the monitoring are\n"
              "reported as such, with what they mean for your numbers (docs/defects.md). Ends with the\n"
              "counts of runs exact, showing a known defect (by id) and failing. Exit code 0 when every\n"
              "case holds or shows its pinned defect exactly, 1 otherwise."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::vector<std::string> patterns;
    std::vector<int> nps, modes;
    SuiteOptions suite;
    std::string json, ctest_script, work_dir;
    options.add_options()("case", po::value(&patterns), "case name or glob (repeatable; default all)")(
        "np", po::value(&nps), "process count (repeatable; default: each case's own)")(
        "mode", po::value(&modes), "pml_monitoring_enable value (repeatable; default: each case's own)")(
        "launcher", po::value(&suite.launcher)->default_value("mpirun"), "MPI launcher command")(
        "programs", po::value(&suite.programs_dir)->default_value(programs_directory(), "mpimon's validation programs"),
        "directory of the validation programs")("work-dir", po::value(&work_dir),
                                                "keep runs (dumps, ledgers) here instead of a temporary directory")(
        "timeout", po::value(&suite.timeout_seconds)->default_value(120), "seconds before a run is killed")(
        "json", po::value(&json), "also write the results as JSON")("list", "list the cases and exit")(
        "ctest-script", po::value(&ctest_script), "write CTest registrations of the selected cases and exit");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    for (int m : modes) {
      if (m != 1 && m != 2) throw po::error("--mode must be 1 or 2");
    }
    if (vm.count("list")) {
      for (const auto& c : validation_cases()) std::printf("%-34s %s\n", c.name.c_str(), c.description.c_str());
      return kExitOk;
    }
    auto selection = select_cases(patterns, nps, modes);
    if (!ctest_script.empty()) {
      write_ctest_script(ctest_script, selection, fs::canonical("/proc/self/exe").string(), suite.programs_dir);
      return kExitOk;
    }

    const bool temporary = work_dir.empty();
    if (temporary) {
      std::string pattern = (fs::temp_directory_path() / "mpimon-validate-XXXXXX").string();
      if (mkdtemp(pattern.data()) == nullptr) raise_error(Error::Kind::system, pattern, "cannot create");
      work_dir = pattern;
    }
    suite.work_dir = work_dir;
    suite.mpi_series = mpi_series_of(suite.launcher);
    std::printf("Open MPI %s: %s\n", suite.mpi_series.c_str(), launcher_version_line(suite.launcher).c_str());
    std::vector<std::pair<Selection, CaseResult>> results;
    std::size_t unexpected = 0;
    std::printf("%-34s %3s %4s  %-15s %s\n", "case", "np", "mode", "result", "detail");
    for (std::size_t i = 0; i < selection.size(); ++i) {
      const Selection& s = selection[i];
      if (stderr_is_terminal()) std::fprintf(stderr, "\r[%zu/%zu] %s ", i + 1, selection.size(), s.c->name.c_str());
      CaseResult r = run_case(*s.c, s.np, s.mode, suite);
      if (stderr_is_terminal()) std::fprintf(stderr, "\r\033[K");
      std::printf("%-34s %3d %4d  %-15s %s\n", r.name.c_str(), r.np, r.mode, outcome_name(r.outcome),
                  r.summary.c_str());
      print_case_lines(r);
      if (!outcome_expected(r.outcome)) ++unexpected;
      std::fflush(stdout);
      results.emplace_back(s, std::move(r));
    }
    if (!json.empty()) write_json(json, results, suite);
    if (temporary) fs::remove_all(work_dir);
    print_counts(results);
    return unexpected == 0 ? kExitOk : kExitFailure;
  });
}

}  // namespace mpimon::cli
