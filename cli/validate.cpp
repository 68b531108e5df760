// `mpimon validate`: the validation suite's options and its table; the selection, the runs and
// the reports are the harness's (validation_run.hpp, validation_suite.hpp).

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/validation_run.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace fs = std::filesystem;

namespace {

// Under a run's row: what a defect means for the user's numbers, with its section, and the first
// difference lines of a defective or failing run (the rest are counted; --json has them all).
void print_case_lines(const CaseResult& r) {
  constexpr std::size_t kShown = 5;
  if (!r.defect.empty() && r.outcome != Outcome::holds && !outcome_unchecked(r.outcome)) {
    std::printf("    defect %s: %s (%s)\n", r.defect.c_str(), known_defect(r.defect).meaning.c_str(),
                defect_link(r.defect).c_str());
  }
  if (r.outcome == Outcome::holds) return;
  // A run that could not run: the end of its output, where the reason is.
  if (r.outcome == Outcome::error && !r.details.empty()) {
    std::vector<std::string> lines;
    std::istringstream in(r.details[0]);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    for (std::size_t k = lines.size() > kShown ? lines.size() - kShown : 0; k < lines.size(); ++k)
      std::printf("    %s\n", lines[k].c_str());
    return;
  }
  for (std::size_t k = 0; k < r.details.size() && k < kShown; ++k) {
    std::string line = r.details[k].substr(0, r.details[k].find('\n'));
    std::printf("    %s\n", line.c_str());
  }
  if (r.details.size() > kShown)
    std::printf("    ... and %zu more difference lines (--json FILE has them all)\n", r.details.size() - kShown);
}

// The closing counts: exact runs, runs showing a known defect of the MPI library (by id), runs
// not checked (whose subject this MPI library cannot reach, or left out for a component ompi_info
// does not list; shown only when there are some), runs not decided (a pinned crash whose runs gave
// no answer; likewise), failing runs. Returns how many runs checked something.
std::size_t print_counts(const std::vector<std::pair<Selection, CaseResult>>& results) {
  std::size_t exact = 0, unreachable = 0, left_out = 0, undecided = 0, failing = 0;
  std::map<std::string, std::size_t> defects;
  for (const auto& [s, r] : results) {
    if (r.outcome == Outcome::holds)
      ++exact;
    else if (r.outcome == Outcome::defect_present)
      ++defects[r.defect];
    else if (r.outcome == Outcome::unreachable)
      ++unreachable;
    else if (r.outcome == Outcome::left_out)
      ++left_out;
    else if (r.outcome == Outcome::undecided)
      ++undecided;
    else
      ++failing;
  }
  const auto errors = static_cast<std::size_t>(std::count_if(
      results.begin(), results.end(), [](const auto& sr) { return sr.second.outcome == Outcome::error; }));
  if (errors > 0) {
    std::printf(
        "%zu of %zu runs could not run or be read (ERROR, counted as failing): the end of each one's output is "
        "above; --json FILE keeps its last 200 lines, --work-dir DIR every file of every run\n",
        errors, results.size());
  }
  std::size_t defective = 0;
  std::string ids;
  for (const auto& [id, n] : defects) {
    defective += n;
    ids += (ids.empty() ? ": " : ", ") + id + " (" + std::to_string(n) + ")";
  }
  std::string unchecked;
  if (unreachable + left_out > 0) {
    const std::string not_reachable = "not reachable on this MPI library",
                      not_installed = "needing a component ompi_info does not list";
    const std::string why = left_out == 0      ? not_reachable
                            : unreachable == 0 ? not_installed
                                               : std::to_string(unreachable) + " " + not_reachable + ", " +
                                                     std::to_string(left_out) + " " + not_installed;
    unchecked = ", " + std::to_string(unreachable + left_out) + " not checked (" + why + ")";
  }
  if (undecided > 0) {
    unchecked += ", " + std::to_string(undecided) +
                 " not decided (a defect's runs gave no answer in as many tries: " + "see their lines)";
  }
  std::printf("%zu runs: %zu exact, %zu showing a known defect of the MPI library%s%s, %zu failing\n", results.size(),
              exact, defective, ids.c_str(), unchecked.c_str(), failing);
  return results.size() - unreachable - left_out - undecided;
}

}  // namespace

int validate_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name,
              "[--case PATTERN]... [--np N]... [--mode 1|2]... [--json FILE] [--list | --list-runs]\n"
              "       (and: " +
                  name + " collective --help, the decomposition of one forced collective)",
              "Runs the validation suite: MPI programs that keep a ledger of what they send run under\n"
              "mpirun with Open MPI's monitoring on, and what the monitoring recorded must equal the ledger\n"
              "exactly. Prints what holds, what does not and why; known defects of the monitoring are\n"
              "reported as such, with what they mean for your numbers (docs/defects.md). A case needing a\n"
              "component ompi_info does not list is not run: reported \"not checked\" with the reason. Ends\n"
              "with the counts of runs exact, showing a known defect (by id), not checked and failing.\n"
              "A pinned crash whose runs give no answer in as many tries is reported \"not decided\".\n"
              "Exit code 0 when every run holds, shows its pinned defect exactly, is not checked or not\n"
              "decided, 1 otherwise, 77 when nothing was checked at all."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::vector<std::string> patterns;
    std::vector<int> nps, modes;
    SuiteOptions suite;
    std::string json, ctest_script, work_dir;
    options.add_options()("case", po::value(&patterns), "case name or glob (repeatable; default all)")(
        "np", po::value(&nps)->notifier(each_in_range("np", 1)),
        "process count (repeatable; default: each case's own)")(
        "mode", po::value(&modes), "pml_monitoring_enable value (repeatable; default: each case's own)")(
        "launcher", po::value(&suite.launcher)->default_value("mpirun"), "MPI launcher command")(
        "programs", po::value(&suite.programs_dir)->default_value(programs_directory(), "mpimon's validation programs"),
        "directory of the validation programs")("work-dir", po::value(&work_dir),
                                                "keep runs (dumps, ledgers) here instead of a temporary directory")(
        "timeout", po::value(&suite.timeout_seconds)->default_value(120)->notifier(in_range("timeout", 1)),
        "seconds before a run is killed")("json", po::value(&json), "also write the results as JSON")(
        "list", "list the cases and exit")(
        "list-runs", "list the runs the other options select (CASE NP MODE, one a line) and exit: what a run makes")(
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
    auto selection = select_cases(patterns, nps, modes, installed_components);
    if (vm.count("list-runs")) {
      for (const auto& s : selection) std::printf("%s %d %d\n", s.c->name.c_str(), s.np, s.mode);
      return kExitOk;
    }
    if (!ctest_script.empty()) {
      write_file_atomically(ctest_script, [&](std::ostream& out) {
        write_ctest_script(out, selection, fs::canonical("/proc/self/exe").string(), suite.programs_dir);
      });
      return kExitOk;
    }

    const std::optional<ScratchDirectory> scratch =
        work_dir.empty() ? std::optional<ScratchDirectory>(std::in_place, "validate") : std::nullopt;
    suite.work_dir = scratch ? scratch->path().string() : work_dir;
    suite.mpi_series = mpi_series_of(suite.launcher);
    std::printf("Open MPI %s: %s\n", suite.mpi_series.c_str(), launcher_version_line(suite.launcher).c_str());
    std::vector<std::pair<Selection, CaseResult>> results;
    std::size_t unexpected = 0;
    std::printf("%-34s %3s %4s  %-15s %s\n", "case", "np", "mode", "result", "detail");
    for (std::size_t i = 0; i < selection.size(); ++i) {
      const Selection& s = selection[i];
      if (stderr_is_terminal()) std::fprintf(stderr, "\r[%zu/%zu] %s ", i + 1, selection.size(), s.c->name.c_str());
      CaseResult r = s.left_out.empty()
                         ? run_case(*s.c, s.np, s.mode, suite)
                         : CaseResult{s.c->name, s.np, s.mode, Outcome::left_out, s.left_out, {}, s.c->defect, 0};
      if (stderr_is_terminal()) std::fprintf(stderr, "\r\033[K");
      std::printf("%-34s %3d %4d  %-15s %s\n", r.name.c_str(), r.np, r.mode, outcome_name(r.outcome),
                  r.summary.c_str());
      print_case_lines(r);
      if (!outcome_expected(r.outcome)) ++unexpected;
      std::fflush(stdout);
      results.emplace_back(s, std::move(r));
    }
    if (!json.empty()) {
      write_file_atomically(json, [&](std::ostream& out) {
        write_validation_json(out, results, suite, launcher_version_line(suite.launcher),
                              monitoring_components(installed_components()));
      });
    }
    const std::size_t checked = print_counts(results);
    if (unexpected != 0) return kExitFailure;
    // Nothing checked (every run not reachable here or left out): CTest's skip, not a pass.
    if (checked > 0 || results.empty()) return kExitOk;
    std::printf("skipped: %s\n", results.front().second.summary.c_str());
    return kExitNothingChecked;
  });
}

}  // namespace mpimon::cli
