// The validation suite's runner: launches a case's program (and its control and unmonitored runs),
// reads what the runs wrote (dumps, ledgers, a self-checking program's report, flushed phases)
// and hands it to the judge (validation_judge.cpp).

#include "mpimon/harness/validation_suite.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/matrices/merge.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

namespace {

// The runs a crash or refusal defect's case makes at most, with monitoring and without: which
// ranks crash follows address-space randomisation, and a run can fail otherwise first.
constexpr int kPinnedFailureRuns = 5;

// The findings a self-checking program printed.
std::vector<std::string> reported_lines(const std::string& output, bool& checked) {
  std::vector<std::string> lines;
  std::istringstream in(output);
  checked = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("MISMATCH ") || line.starts_with("UNSUPPORTED ")) lines.push_back(line);
    checked |= line.starts_with("CHECKED ") || line.starts_with("UNSUPPORTED ");
  }
  return lines;
}

std::string tail(const std::string& text, std::size_t lines) {
  if (text.empty()) return text;  // a launcher that printed nothing
  std::size_t pos = text.size();
  for (std::size_t n = 0; n <= lines && pos != std::string::npos && pos > 0; ++n) pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

struct RunPaths {
  std::string prof_prefix, ledger_prefix;
};

// Launches the case's program once under monitoring; returns "" on success, else what went wrong.
// mode 0: without monitoring at all (no monitoring component in any framework the case does not
// set itself), to tell a failure of the monitoring from one of the MPI library.
std::string launch(const ValidationCase& c, int np, int mode, bool control, const RunPaths& paths,
                   const SuiteOptions& options, std::string* output = nullptr) {
  MpiLaunch l(options.launcher, static_cast<std::uint32_t>(np));
  l.oversubscribe();
  if (mode == 0) {
    for (const char* framework : {"pml", "osc", "coll"}) {
      const bool set = std::any_of(c.mca.begin(), c.mca.end(), [&](const auto& kv) { return kv.first == framework; });
      if (!set) l.mca(framework, "^monitoring");
    }
  } else {
    l.mca("pml_monitoring_enable", std::to_string(mode));
    l.mca("pml_monitoring_enable_output", "3");
    l.mca("pml_monitoring_filename", paths.prof_prefix);
  }
  for (const auto& [k, v] : c.mca) l.mca(k, v);
  std::vector<std::string> args;
  if (c.ledger_option.empty()) {
    args.push_back(paths.ledger_prefix);
  } else {
    args = {c.ledger_option, paths.ledger_prefix};
  }
  args.insert(args.end(), c.args.begin(), c.args.end());
  if (control) args.push_back("--control");
  l.program((fs::path(options.programs_dir) / c.program).string(), args);
  fs::create_directories(fs::path(paths.prof_prefix).parent_path());
  LaunchResult r = l.run(std::chrono::seconds(options.timeout_seconds));
  if (output) *output = r.output;
  // Enough of the end to hold every rank's backtrace, which a crash model searches.
  constexpr std::size_t kFailureLines = 200;
  if (r.timed_out)
    return "killed after " + std::to_string(options.timeout_seconds) + " s\n" + tail(r.output, kFailureLines);
  if (r.exit_code != 0) return "exit code " + std::to_string(r.exit_code) + "\n" + tail(r.output, kFailureLines);
  return "";
}

std::vector<std::string> dump_files(const std::string& prefix, int np, std::string& missing) {
  std::vector<std::string> files;
  for (int r = 0; r < np; ++r) {
    std::string f = prefix + "." + std::to_string(r) + ".prof";
    if (!fs::exists(f)) {
      missing = f;
      return {};
    }
    files.push_back(f);
  }
  return files;
}

RecordedTraffic read_run(const std::vector<std::string>& files, const std::string& merged) {
  merge_prof_files(files, merged, {});
  MatrixFile file(merged);
  return RecordedTraffic::read(file, file.default_dump());
}

// "procs: 0,3,5" names ranks; the record of a freed communicator, flushed again by Open MPI 5.0.7,
// says "procs: (null)" (docs/defects.md#flush-after-comm-free).
bool lists_ranks(const std::string& members) {
  static const std::regex ranks(R"( ?[0-9]+(,[0-9]+)*)");
  return members.empty() || std::regex_match(members, ranks);
}

}  // namespace

std::string without_unranked_records(const std::string& file, const fs::path& dir, const std::string& where,
                                     std::vector<std::string>& report) {
  std::ifstream in(file);
  std::ostringstream kept;
  bool dropped = false, in_dropped_block = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("D\t", 0) == 0) {
      const std::size_t name_end = line.rfind('\t'), procs = line.find("procs:", name_end);
      const std::string members = procs == std::string::npos ? "" : line.substr(procs + 6);
      in_dropped_block = name_end > 2 && procs != std::string::npos && !lists_ranks(members);
      if (in_dropped_block) {
        report.push_back(where + " flushed a record of communicator " + line.substr(2, name_end - 2) +
                         " whose members are not ranks:" + members);
        dropped = true;
        continue;
      }
    } else if (in_dropped_block &&
               (line.rfind("O2A\t", 0) == 0 || line.rfind("A2O\t", 0) == 0 || line.rfind("A2A\t", 0) == 0)) {
      continue;
    } else {
      in_dropped_block = false;
    }
    kept << line << '\n';
  }
  if (!dropped) return file;
  fs::create_directories(dir);
  const std::string copy = (dir / fs::path(file).filename()).string();
  std::ofstream(copy) << kept.str();
  return copy;
}

namespace {

// The phases a program flushed (PREFIX.phase_K.RANK.prof and .ledger), merged by mpimon-merge
// into one file: one group per phase, whose matrices and histograms must equal that phase's ledger.
std::vector<std::string> check_flushed_phases(const ValidationCase& c, int np, const std::string& prefix,
                                              const fs::path& dir, const SuiteOptions& options) {
  std::vector<std::string> report, files;
  for (int phase = 1; phase <= c.flushed_phases; ++phase) {
    std::string missing;
    auto phase_files = dump_files(prefix + ".phase_" + std::to_string(phase), np, missing);
    if (phase_files.empty()) return {"phase " + std::to_string(phase) + ": " + missing + " not written"};
    for (int rank = 0; rank < np; ++rank) {
      const std::string where = "phase " + std::to_string(phase) + ": rank " + std::to_string(rank);
      files.push_back(
          without_unranked_records(phase_files[static_cast<std::size_t>(rank)], dir / "readable", where, report));
    }
  }
  const std::string merged = (dir / "phases.h5").string();
  std::vector<std::string> argv{(executable_directory() / "mpimon-merge").string(), "-o", merged};
  argv.insert(argv.end(), files.begin(), files.end());
  LaunchResult r = run_process(argv, {}, std::chrono::seconds(options.timeout_seconds));
  if (r.exit_code != 0) raise_error(Error::Kind::input, merged, "mpimon-merge failed:\n" + tail(r.output, 10));
  MatrixFile file(merged);
  const auto groups = file.dumps();
  if (groups.size() != static_cast<std::size_t>(c.flushed_phases)) {
    report.push_back("mpimon-merge made " + std::to_string(groups.size()) + " groups of " +
                     std::to_string(c.flushed_phases) + " phases");
  }
  LedgerCheck check = point_to_point_check();
  for (int phase = 1; phase <= c.flushed_phases; ++phase) {
    const std::string name = fs::path(prefix).filename().string() + ".phase_" + std::to_string(phase);
    if (std::find(groups.begin(), groups.end(), name) == groups.end()) {
      report.push_back("phase " + std::to_string(phase) + ": no group " + name + " in the merged file");
      continue;
    }
    std::vector<Ledger> ledgers;
    for (int rank = 0; rank < np; ++rank) {
      ledgers.push_back(
          Ledger::read(prefix + ".phase_" + std::to_string(phase) + "." + std::to_string(rank) + ".ledger"));
    }
    RecordedTraffic recorded = RecordedTraffic::read(file, name);
    for (const auto& m : histogram_consistency(recorded))
      report.push_back("phase " + std::to_string(phase) + ": " + m.what);
    for (const auto& m : compare_with_ledgers(recorded, ledgers, check)) {
      report.push_back("phase " + std::to_string(phase) + ": " + m.what);
    }
  }
  return report;
}

std::vector<std::string> self_checked_report(const ValidationCase& c, int np, const std::string& output,
                                             const RunPaths& run, const fs::path& dir, const SuiteOptions& options) {
  bool checked = false;
  std::vector<std::string> report = reported_lines(output, checked);
  if (!checked) raise_error(Error::Kind::input, c.program, "printed no CHECKED line:\n" + tail(output, 20));
  const bool unsupported = output.find("UNSUPPORTED ") != std::string::npos;
  if (c.flushed_phases > 0 && !unsupported) {
    for (auto& line : check_flushed_phases(c, np, run.ledger_prefix, dir, options)) report.push_back(line);
  }
  return report;
}

// The dumps of a run that ended well, against the ledgers (and the defect's model of them).
Verdict judge_recorded(const ValidationCase& c, int np, const RunPaths& run, const RunPaths& control,
                       const fs::path& dir, const std::string& series) {
  int written = 0;
  for (int r = 0; r < np; ++r) written += fs::exists(run.prof_prefix + "." + std::to_string(r) + ".prof") ? 1 : 0;
  if (!c.defect.empty() && known_defect(c.defect).rule == DefectRule::no_dump) {
    return judge_no_dump(known_defect(c.defect), c, written, np, series);
  }
  std::string missing;
  auto files = dump_files(run.prof_prefix, np, missing);
  if (files.empty()) return judge_report(c, {missing + ": missing; the monitoring wrote no dump"}, series);
  RecordedTraffic recorded = read_run(files, (dir / "run.h5").string());
  if (c.control) {
    auto control_files = dump_files(control.prof_prefix, np, missing);
    if (control_files.empty()) raise_error(Error::Kind::input, missing, "control run wrote no dump");
    recorded = recorded.minus(read_run(control_files, (dir / "control.h5").string()), c.check);
  }
  std::vector<Ledger> ledgers;
  for (int r = 0; r < np; ++r) ledgers.push_back(Ledger::read(run.ledger_prefix + "." + std::to_string(r) + ".ledger"));
  return judge_recording(c, series, recorded, ledgers);
}

// The run without monitoring of a crash or refusal defect's case, again until its signature
// answers (unmonitored_answer: ending well, the library's own refusal recorded for this series, a
// crash elsewhere or the defect's failure itself; a rank killed, a timeout or an error not recorded
// say nothing about the defect), at most kPinnedFailureRuns times, as the crash is tried. Returns the last run's
// failure ("" when it ended well); `answered` is false when no run answered.
std::string run_unmonitored(const ValidationCase& c, int np, const fs::path& dir, const SuiteOptions& options,
                            const KnownDefect& d, bool& answered) {
  const RunPaths plain{(dir / "unmonitored" / "prof" / "run").string(),
                       (dir / "unmonitored" / "ledger" / "run").string()};
  std::string failure;
  for (int runs = 0; runs < kPinnedFailureRuns; ++runs) {
    failure = launch(c, np, 0, false, plain, options);
    answered = unmonitored_answer(d, options.mpi_series, failure) != UnmonitoredAnswer::none;
    if (answered) break;
  }
  return failure;
}

}  // namespace

CaseResult run_case(const ValidationCase& c, int np, int mode, const SuiteOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CaseResult result{c.name, np, mode, Outcome::error, "", {}, c.defect, 0};
  const fs::path dir =
      fs::path(options.work_dir) / (c.name + ".mode" + std::to_string(mode) + ".np" + std::to_string(np));
  fs::remove_all(dir);
  const RunPaths run{(dir / "prof" / "run").string(), (dir / "ledger" / "run").string()};
  const RunPaths control{(dir / "control" / "prof" / "control").string(),
                         (dir / "control" / "ledger" / "control").string()};
  try {
    std::string output;
    std::string failure = c.control ? launch(c, np, mode, true, control, options) : "";
    std::string unmonitored_failure;
    const KnownDefect* failing = nullptr;  // a failing run is the defect's model (crash or refused)
    if (!c.defect.empty() && fails_when_present(known_defect(c.defect))) failing = &known_defect(c.defect);
    bool unmonitored_answered = true;
    if (failing != nullptr && failure.empty())
      unmonitored_failure = run_unmonitored(c, np, dir, options, *failing, unmonitored_answered);
    // A pinned crash hits only the ranks where the misread value is bad, and a rank failing
    // otherwise first (5.0.7's MPI_ERR_ARG) can end the job before any crash: up to five runs
    // until one shows the failure as modelled.
    const auto shows_modelled_failure = [&] {
      return !failure.empty() && differences_from_failure(*failing, failure, unmonitored_failure).empty();
    };
    // None after a failed control run, nor when the run without monitoring could not answer.
    const int max_runs = !failure.empty() || !unmonitored_answered ? 0 : (failing != nullptr ? kPinnedFailureRuns : 1);
    int refused_first = 0;  // monitored runs the library's own refusal ended before any crash
    for (int runs = 0; runs < max_runs; ++runs) {
      output.clear();
      failure = launch(c, np, mode, false, run, options, &output);
      if (failing == nullptr || shows_modelled_failure()) break;
      if (failure.empty() && failing->rule == DefectRule::crash_or_report) break;  // the other symptom
      if (refused_before_the_crash(*failing, options.mpi_series, failure)) ++refused_first;
    }
    Verdict v;
    if (!unmonitored_answered) {
      v = judge_undecided(*failing,
                          "the run without monitoring gave no answer in " + std::to_string(kPinnedFailureRuns) +
                              " runs (it neither ended well, nor refused the call as recorded for Open MPI " +
                              options.mpi_series + ", nor crashed)",
                          {unmonitored_failure});
    } else if (refused_first == max_runs && max_runs > 1) {
      v = judge_undecided(*failing,
                          "the library's own refusal of the call (recorded for Open MPI " + options.mpi_series +
                              ") ended all " + std::to_string(max_runs) + " runs with monitoring before any crash",
                          {failure});
    } else if (!failure.empty()) {
      v = judge_failed_run(c, failure, unmonitored_failure, options.mpi_series);
    } else if (c.self_checking && failing != nullptr) {
      v = judge_survived(*failing, c, self_checked_report(c, np, output, run, dir, options), options.mpi_series, np);
    } else if (c.self_checking) {
      v = judge_report(c, self_checked_report(c, np, output, run, dir, options), options.mpi_series, np);
    } else {
      v = judge_recorded(c, np, run, control, dir, options.mpi_series);
    }
    result.outcome = v.outcome;
    result.summary = v.summary;
    result.details = v.details;
  } catch (const Error& e) {
    result.outcome = Outcome::error;
    result.summary = e.what();
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace mpimon::harness
