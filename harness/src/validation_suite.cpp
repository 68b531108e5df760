#include "mpimon/harness/validation_suite.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/matrices/merge.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

namespace {

// Must match the operations of mpimon-coll-ledger (checked by the test cli.validate_lists).
const char* const kCollectives[] = {"allgather",
                                    "allgatherv",
                                    "allreduce",
                                    "alltoall",
                                    "alltoallv",
                                    "alltoallw",
                                    "barrier",
                                    "bcast",
                                    "bcast_on_freed_comm",
                                    "distgraph_neighbor_alltoall",
                                    "exscan",
                                    "gather",
                                    "gatherv",
                                    "iallgather",
                                    "iallgatherv",
                                    "iallreduce",
                                    "ialltoall",
                                    "ialltoallv",
                                    "ialltoallw",
                                    "ibarrier",
                                    "ibcast",
                                    "iexscan",
                                    "igather",
                                    "igatherv",
                                    "ineighbor_allgather",
                                    "ineighbor_allgatherv",
                                    "ineighbor_alltoall",
                                    "ineighbor_alltoallv",
                                    "ineighbor_alltoallw",
                                    "ireduce",
                                    "ireduce_scatter",
                                    "ireduce_scatter_block",
                                    "iscan",
                                    "iscatter",
                                    "iscatterv",
                                    "neighbor_allgather",
                                    "neighbor_allgatherv",
                                    "neighbor_alltoall",
                                    "neighbor_alltoallv",
                                    "neighbor_alltoallw",
                                    "reduce",
                                    "reduce_scatter",
                                    "reduce_scatter_block",
                                    "scan",
                                    "scatter",
                                    "scatterv"};

const char* const kRmaOps[] = {"put", "get", "accumulate", "get_accumulate", "fetch_and_op", "compare_and_swap"};
const char* const kRmaSyncs[] = {"fence", "lock", "pscw"};

// The defect a collective case pins: the known defect that names it (docs/defects.md).
std::string collective_defect(const std::string& op) {
  for (const auto& d : known_defects()) {
    if (std::find(d.pinned.begin(), d.pinned.end(), "coll." + op) != d.pinned.end()) return d.id;
  }
  return "";
}

LedgerCheck point_to_point_check() {
  LedgerCheck c;
  c.classes = {TrafficClass::external};
  c.must_be_empty = {TrafficClass::internal};  // the workload calls no collective
  return c;
}

LedgerCheck classes_only(std::vector<TrafficClass> classes, bool records) {
  LedgerCheck c;
  c.classes = std::move(classes);
  c.histograms = false;
  c.communicator_records = records;
  return c;
}

std::vector<ValidationCase> build_cases() {
  std::vector<ValidationCase> cases;
  cases.push_back({"p2p",
                   "every send mode, 0 B to 256 KiB, self-sends, MPI_PROC_NULL, a derived datatype: E and histograms "
                   "exact, I empty",
                   "mpimon-p2p-ledger",
                   {},
                   false,
                   false,
                   {1, 2, 3, 4},
                   {1, 2},
                   {},
                   point_to_point_check(),
                   ""});
  cases.push_back({"p2p.pml_ob1_monitoring",
                   "the same with --mca pml ob1,monitoring (the working way to pin a PML)",
                   "mpimon-p2p-ledger",
                   {},
                   false,
                   false,
                   {2},
                   {1},
                   {{"pml", "ob1,monitoring"}},
                   point_to_point_check(),
                   ""});
  // Communicator splitting sends internal messages (in E with mode 1): a control run removes them.
  cases.push_back(
      {"p2p.subcomm",
       "the same on two halves of the world, communicator ranks reversed: peers in MPI_COMM_WORLD numbering",
       "mpimon-p2p-ledger",
       {"--subcomm"},
       true,
       false,
       {3, 4},
       {1, 2},
       {},
       point_to_point_check(),
       ""});
  cases.push_back({"defect.persistent_send",
                   "persistent sends (MPI_Send_init + MPI_Start) are not counted",
                   "mpimon-p2p-ledger",
                   {"persistent"},
                   false,
                   false,
                   {2},
                   {1, 2},
                   {},
                   point_to_point_check(),
                   "persistent-send-uncounted"});
  cases.push_back({"defect.pml_list",
                   "--mca pml ob1 (no monitoring in the list) silently disables monitoring",
                   "mpimon-p2p-ledger",
                   {},
                   false,
                   false,
                   {2},
                   {1},
                   {{"pml", "ob1"}},
                   point_to_point_check(),
                   "pml-list-disables-monitoring"});
  // A missing pml/monitoring must not read as the defect: the case needs the component.
  cases.back().required_component = "pml:monitoring";
  // One-sided: the component is named, since what reaches the PML differs between them. rdma (and
  // sm) refuse a window on a single process (MPI_ERR_WIN, with or without monitoring), hence
  // np >= 2; osc monitoring's own refusal at np 1 is pinned below.
  const auto rma_check = classes_only({TrafficClass::osc_sent, TrafficClass::osc_recv}, false);
  for (const char* component : {"rdma", "pt2pt"}) {
    const bool default_component = std::string(component) == "rdma";
    for (const char* op : kRmaOps) {
      for (const char* sync : kRmaSyncs) {
        cases.push_back({std::string("rma.") + component + "." + op + "." + sync,
                         std::string("MPI_") + op + " from every rank to every rank in a " + sync + " epoch, osc/" +
                             component + ": osc_sent and osc_recv exact",
                         "mpimon-rma-ledger",
                         {op, sync},
                         true,
                         false,
                         default_component ? std::vector<int>{2, 3} : std::vector<int>{3},
                         {2},
                         {{"osc", std::string(component) + ",monitoring"}},
                         rma_check,
                         ""});
        cases.back().required_component = std::string("osc:") + component;
      }
    }
  }
  cases.push_back({"defect.osc_list",
                   "--mca osc rdma (no monitoring in the list) silently disables one-sided monitoring",
                   "mpimon-rma-ledger",
                   {"put", "fence"},
                   true,
                   false,
                   {2},
                   {2},
                   {{"osc", "rdma"}},
                   rma_check,
                   "osc-list-disables-monitoring"});
  cases.back().required_component = "osc:monitoring";
  cases.push_back({"defect.one_process_window",
                   "MPI_Win_create on one process with osc monitoring: the wrapped component refuses the window",
                   "mpimon-rma-ledger",
                   {"put", "fence"},
                   false,
                   false,
                   {1},
                   {2},
                   {},
                   rma_check,
                   "one-process-window-refused"});
  cases.push_back({"defect.coll_list_crash",
                   "--mca coll without monitoring in the list: segfault when a communicator is freed",
                   "mpimon-rma-ledger",
                   {"put", "fence"},
                   false,
                   false,
                   {2},
                   {2},
                   {{"coll", "tuned,self,libnbc,basic"}},
                   rma_check,
                   "coll-list-crash"});
  for (const char* op : kCollectives) {
    const std::string defect = collective_defect(op);
    cases.push_back({std::string("coll.") + op,
                     std::string("MPI_") + op +
                         " once on a named communicator: C matrix and O2A/A2O/A2A records as "
                         "RR-9038 documents them",
                     "mpimon-coll-ledger",
                     {op},
                     true,
                     false,
                     {4},
                     {2},
                     {},
                     classes_only({TrafficClass::coll}, true),
                     defect});
  }
  // MPI_T: the counters read in-process around known traffic.
  const LedgerCheck in_process = classes_only({}, false);
  cases.push_back({"mpit.coll_osc",
                   "coll_monitoring_messages_*, osc_monitoring_messages_* and coll_monitoring_a2a_count read through "
                   "MPI_T around known traffic: deltas = ledger",
                   "mpimon-mpit-ledger",
                   {"coll_osc"},
                   false,
                   true,
                   {2, 3},
                   {2},
                   {},
                   in_process,
                   ""});
  cases.push_back({"mpit.pml",
                   "pml_monitoring_messages_count/size read through MPI_T: deltas = ledger",
                   "mpimon-mpit-ledger",
                   {"pml"},
                   false,
                   true,
                   {2, 3},
                   {2},
                   {},
                   in_process,
                   "pml-mpit-invalid-after-init"});
  // The variables are pml/monitoring's: without the component, UNSUPPORTED is not the defect.
  cases.back().required_component = "pml:monitoring";
  cases.push_back({"mpit.stop",
                   "stopping one MPI_T handle must leave another counting",
                   "mpimon-mpit-ledger",
                   {"stop"},
                   false,
                   true,
                   {2},
                   {2},
                   {},
                   in_process,
                   "stopping-one-handle-stops-all"});
  cases.push_back({"mpit.flush",
                   "two phases flushed to files with pml_monitoring_flush, merged by mpimon-merge: one group per "
                   "phase, each = its ledger",
                   "mpimon-mpit-ledger",
                   {"flush"},
                   false,
                   true,
                   {2},
                   {2},
                   {},
                   in_process,
                   "pml-mpit-invalid-after-init"});
  cases.back().flushed_phases = 2;
  cases.back().required_component = "pml:monitoring";
  // On Open MPI 5.0.7 the use after free shows either as a crash or as a flush that writes the
  // freed record again (members "(null)"): the rule crash_or_report accepts exactly these two.
  cases.push_back({"mpit.flush_free",
                   "three phases flushed with pml_monitoring_flush around a communicator freed with no "
                   "collective on it: each phase = its ledger, and no run crashes",
                   "mpimon-mpit-ledger",
                   {"flush_free"},
                   false,
                   true,
                   {2},
                   {2},
                   {},
                   in_process,
                   "flush-after-comm-free"});
  cases.back().flushed_phases = 3;
  cases.back().required_component = "pml:monitoring";
  // The application workloads (docs/workloads.md), small class: everything they send is in their
  // ledger. The stencil, LU and BT call no collective (their reports travel by point-to-point),
  // so E and its histograms are exact and I is empty; CG's allreduces are compared as C entries
  // and MPI_COMM_WORLD's A2A record, and their decomposition fills I.
  // Without collectives, mode 1 (all point-to-point in E) must give the same E as mode 2.
  auto workload_case = [&](const std::string& name, const std::string& description, std::vector<std::string> args,
                           std::vector<int> nps, LedgerCheck check) {
    const bool collectives = check.must_be_empty.empty();
    ValidationCase c{"workload." + name,
                     description,
                     "mpimon-workload",
                     std::move(args),
                     false,
                     false,
                     std::move(nps),
                     collectives ? std::vector<int>{2} : std::vector<int>{1, 2},
                     {},
                     std::move(check),
                     ""};
    c.ledger_option = "--ledger";
    cases.push_back(std::move(c));
  };
  workload_case("stencil",
                "MiniGhost-like 7-point halo exchange on a periodic 3-D grid: E and histograms exact, I empty",
                {"--workload", "stencil", "--points", "7"}, {2, 4}, point_to_point_check());
  workload_case("stencil27", "the same with 27 points (faces, edges, corners; 26 messages per rank and iteration)",
                {"--workload", "stencil", "--points", "27"}, {2, 4}, point_to_point_check());
  workload_case("cg", "conjugate gradient: face exchanges and two 8-byte MPI_Allreduce per iteration: E and C exact",
                {"--workload", "cg"}, {4}, classes_only({TrafficClass::external, TrafficClass::coll}, true));
  workload_case("lu", "pipelined wavefront sweeps over a 2-D process grid: E and histograms exact, I empty",
                {"--workload", "lu"}, {4}, point_to_point_check());
  workload_case("bt", "multi-partition line solves along x, y and z: E and histograms exact, I empty",
                {"--workload", "bt"}, {4}, point_to_point_check());
  for (auto& c : cases) {
    if (!c.defect.empty()) c.defect_present_on = known_defect(c.defect).series;
  }
  return cases;
}

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
  if (l.open_mpi()) l.option({"--oversubscribe"});
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

// Defects whose model includes a failed run (the retries and the unmonitored run are for them).
bool fails_when_present(const KnownDefect& d) {
  return d.rule == DefectRule::crash || d.rule == DefectRule::refused || d.rule == DefectRule::crash_or_report;
}

bool is_segmentation_fault(const std::string& output) {
  return output.find("signal 11") != std::string::npos || output.find("Segmentation fault") != std::string::npos;
}

// The verdict of a case that pins no defect.
Verdict judge_plain(const std::vector<std::string>& report) {
  if (report.empty()) return {Outcome::holds, "exact", {}};
  return {Outcome::fails, std::to_string(report.size()) + " differences, first: " + report.front(), report};
}

// A run that ended with an error: the evidence of crash and refused defects, else an error.
Verdict judge_failed_run(const ValidationCase& c, const std::string& failure, const std::string& control_failure,
                         const std::string& series) {
  const std::string first = "the run failed: " + failure.substr(0, failure.find('\n'));
  if (c.defect.empty()) return {Outcome::error, first, {failure}};
  const KnownDefect& d = known_defect(c.defect);
  if (!fails_when_present(d)) return {Outcome::error, first, {failure}};
  std::vector<std::string> ideal{first};
  if (!control_failure.empty()) {
    ideal.push_back("the run without monitoring failed too: " + control_failure.substr(0, control_failure.find('\n')));
  }
  Verdict v =
      judge_pinned(d, defect_expected(c, series), series, ideal, differences_from_failure(d, failure, control_failure));
  v.details.push_back(failure);
  return v;
}

// A self-checking run pinned to a crash or refusal that ended well. When the program could not
// reach what the defect needs (an UNSUPPORTED variable: the MPI_T flush on Open MPI 4.1), the
// defect cannot occur on this library: expected there only if recorded as absent.
Verdict judge_survived(const KnownDefect& d, const ValidationCase& c, const std::vector<std::string>& report,
                       const std::string& series, int np) {
  const bool expected_here = defect_expected(c, series);
  const auto unsupported = std::find_if(report.begin(), report.end(),
                                        [](const std::string& line) { return line.rfind("UNSUPPORTED ", 0) == 0; });
  if (unsupported != report.end()) {
    if (expected_here) return {Outcome::fails, d.id + " cannot be reached here: " + *unsupported, report};
    return {
        Outcome::unreachable,
        "not checked: " + d.id + " cannot be reached on Open MPI " + series + " (" + *unsupported + "), as recorded",
        report};
  }
  if (d.rule == DefectRule::crash_or_report) {
    return judge_pinned(d, expected_here, series, report, differences_from_expected_lines(d, report, np));
  }
  return judge_pinned(d, expected_here, series, report, {"the run succeeded"});
}

// A report of differences from the ideal behaviour: the plain verdict, or, for a pinned defect,
// the verdict against the lines its rule expects.
Verdict judge_report(const ValidationCase& c, const std::vector<std::string>& report, const std::string& series,
                     int np = 0) {
  if (c.defect.empty()) return judge_plain(report);
  const KnownDefect& d = known_defect(c.defect);
  if (d.rule != DefectRule::exact_report) {
    raise_error(Error::Kind::input, c.name, "pins " + d.id + ", whose rule does not judge a report");
  }
  return judge_pinned(d, defect_expected(c, series), series, report, differences_from_expected_lines(d, report, np));
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

std::vector<std::string> compare(const RecordedTraffic& recorded, const std::vector<Ledger>& ledgers,
                                 const LedgerCheck& check) {
  std::vector<std::string> report;
  for (const auto& m : histogram_consistency(recorded)) report.push_back(m.what);
  for (const auto& m : compare_with_ledgers(recorded, ledgers, check)) report.push_back(m.what);
  return report;
}

// The dumps of a run that ended well, against the ledgers (and the defect's model of them).
Verdict judge_recorded(const ValidationCase& c, int np, const RunPaths& run, const RunPaths& control,
                       const fs::path& dir, const std::string& series) {
  int written = 0;
  for (int r = 0; r < np; ++r) written += fs::exists(run.prof_prefix + "." + std::to_string(r) + ".prof") ? 1 : 0;
  const KnownDefect* d = c.defect.empty() ? nullptr : &known_defect(c.defect);
  if (d && d->rule == DefectRule::no_dump) {
    std::vector<std::string> ideal, model;
    if (written < np)
      ideal.push_back(std::to_string(np - written) + " of " + std::to_string(np) + " ranks wrote no dump");
    if (written > 0) model.push_back(std::to_string(written) + " of " + std::to_string(np) + " ranks wrote a dump");
    return judge_pinned(*d, defect_expected(c, series), series, ideal, model);
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

}  // namespace

Verdict judge_recording(const ValidationCase& c, const std::string& series, const RecordedTraffic& recorded,
                        const std::vector<Ledger>& ledgers) {
  const KnownDefect* d = c.defect.empty() ? nullptr : &known_defect(c.defect);
  const std::vector<std::string> against_ideal = compare(recorded, ledgers, c.check);
  if (d && fails_when_present(*d)) {
    // Every run succeeded: the failure modelled did not happen (fixed, if the data is exact).
    return judge_pinned(*d, defect_expected(c, series), series, against_ideal, {"the run succeeded"});
  }
  if (!d || d->rule != DefectRule::ledger_transform) return judge_report(c, against_ideal, series);
  return judge_pinned(*d, defect_expected(c, series), series, against_ideal,
                      compare(recorded, apply_defect(d->id, ledgers), c.check));
}

std::vector<std::string> differences_from_failure(const KnownDefect& d, const std::string& failure,
                                                  const std::string& control_failure) {
  // Only what monitoring adds is the defect: the same call failing without monitoring (Open MPI
  // 5.0.7 refuses the dist-graph call with MPI_ERR_ARG) is not.
  std::vector<std::string> out;
  if (d.rule == DefectRule::crash || d.rule == DefectRule::crash_or_report) {
    if (!is_segmentation_fault(failure)) out.push_back("no segmentation fault");
    if (is_segmentation_fault(control_failure)) out.push_back("the run without monitoring crashes too");
  } else {
    if (failure.empty()) out.push_back("the run succeeded");
    if (!control_failure.empty()) out.push_back("the run without monitoring fails too");
  }
  for (const auto& e : d.expected_lines) {
    if (!std::regex_search(failure, std::regex(e))) out.push_back("the failure's output does not show " + e);
  }
  return out;
}

std::vector<std::string> expected_lines_at(const KnownDefect& d, int np) {
  std::vector<std::string> out;
  for (const auto& e : d.rule == DefectRule::crash_or_report ? d.survived_lines : d.expected_lines) {
    const bool per_rank = e.find("{rank}") != std::string::npos, per_peer = e.find("{peer}") != std::string::npos;
    if (!per_rank && !per_peer) {
      out.push_back(e);
      continue;
    }
    if (np <= 0) raise_error(Error::Kind::input, d.id, "expected lines per rank need the process count");
    for (int r = 0; r < (per_rank ? np : 1); ++r) {
      for (int p = 0; p < (per_peer ? np : 1); ++p) {
        std::string line = std::regex_replace(e, std::regex(R"(\{rank\})"), std::to_string(r));
        out.push_back(std::regex_replace(line, std::regex(R"(\{peer\})"), std::to_string(p)));
      }
    }
  }
  return out;
}

std::vector<std::string> differences_from_expected_lines(const KnownDefect& d, const std::vector<std::string>& report,
                                                         int np) {
  std::vector<std::string> out;
  const std::vector<std::string> lines = expected_lines_at(d, np);
  std::vector<std::regex> expected;
  for (const auto& e : lines) expected.emplace_back(e);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const bool found = std::any_of(report.begin(), report.end(),
                                   [&](const std::string& line) { return std::regex_match(line, expected[i]); });
    if (!found) out.push_back("missing: a line matching " + lines[i]);
  }
  for (const auto& line : report) {
    const bool known =
        std::any_of(expected.begin(), expected.end(), [&](const std::regex& e) { return std::regex_match(line, e); });
    if (!known) out.push_back("unexpected: " + line);
  }
  return out;
}

Verdict judge_pinned(const KnownDefect& d, bool expected_here, const std::string& series,
                     const std::vector<std::string>& against_ideal, const std::vector<std::string>& against_defect) {
  const auto both = [&] {
    std::vector<std::string> details;
    for (const auto& m : against_defect) details.push_back("against the model of " + d.id + ": " + m);
    for (const auto& m : against_ideal) details.push_back("against the ideal ledger: " + m);
    return details;
  };
  if (!expected_here) {
    // Recorded as absent on this series: the case must hold like any other.
    if (against_ideal.empty())
      return {Outcome::holds, "exact (defect " + d.id + " absent on Open MPI " + series + ", as recorded)", {}};
    if (against_defect.empty()) {
      return {Outcome::fails, "defect " + d.id + " present on Open MPI " + series + ", where it was recorded as absent",
              against_ideal};
    }
    return {Outcome::fails, std::to_string(against_ideal.size()) + " differences, first: " + against_ideal.front(),
            both()};
  }
  if (against_ideal.empty()) {
    return {Outcome::defect_fixed,
            "DEFECT FIXED: " + d.id + " no longer shows, the run equals the ideal ledger; update docs/defects.md",
            {}};
  }
  if (against_defect.empty()) {
    return {Outcome::defect_present, "defect " + d.id + " present, exactly as modelled (" + d.rule_text + ")",
            against_ideal};
  }
  return {Outcome::fails,
          "differs from the model of " + d.id + " (" + std::to_string(against_defect.size()) +
              " differences), first: " + against_defect.front(),
          both()};
}

const std::vector<ValidationCase>& validation_cases() {
  static const std::vector<ValidationCase> cases = build_cases();
  return cases;
}

const std::vector<std::string>& established_series() {
  static const std::vector<std::string> series = {"4.1", "5.0"};
  return series;
}

bool defect_expected(const ValidationCase& c, const std::string& series) {
  if (c.defect.empty()) return false;
  const auto& known = established_series();
  const std::string& as = std::find(known.begin(), known.end(), series) != known.end() ? series : known.back();
  return std::find(c.defect_present_on.begin(), c.defect_present_on.end(), as) != c.defect_present_on.end();
}

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::holds:
      return "holds";
    case Outcome::fails:
      return "FAILS";
    case Outcome::defect_present:
      return "defect present";
    case Outcome::defect_fixed:
      return "DEFECT FIXED";
    case Outcome::error:
      return "ERROR";
    case Outcome::unreachable:
      return "not reachable";
  }
  return "?";
}

bool outcome_expected(Outcome o) {
  return o == Outcome::holds || o == Outcome::defect_present || o == Outcome::unreachable;
}

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
    if (failing != nullptr && failure.empty()) {
      const RunPaths plain{(dir / "unmonitored" / "prof" / "run").string(),
                           (dir / "unmonitored" / "ledger" / "run").string()};
      unmonitored_failure = launch(c, np, 0, false, plain, options);
    }
    // A pinned crash hits only the ranks where the misread value is bad, and a rank failing
    // otherwise first (5.0.7's MPI_ERR_ARG) can end the job before any crash: up to five runs
    // until one shows the failure as modelled.
    const auto shows_modelled_failure = [&] {
      return !failure.empty() && differences_from_failure(*failing, failure, unmonitored_failure).empty();
    };
    const int max_runs = failure.empty() ? (failing != nullptr ? 5 : 1) : 0;  // none after a failed control
    for (int runs = 0; runs < max_runs; ++runs) {
      output.clear();
      failure = launch(c, np, mode, false, run, options, &output);
      if (failing == nullptr || shows_modelled_failure()) break;
      if (failure.empty() && failing->rule == DefectRule::crash_or_report) break;  // the other symptom
    }
    Verdict v;
    if (!failure.empty()) {
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
