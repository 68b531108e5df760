// `mpimon gate`: the overhead regression gate for CI (docs/gate.md). Two measures against a
// committed baseline: the instructions monitoring adds per operation (callgrind, deterministic)
// and the paired timing overhead (the overhead harness, judged on confidence intervals, Holm
// across cells, failing cells confirmed by a second run). Exit codes: 0 no confirmed regression,
// 1 error, 2 usage, 3 instruction regression, 4 timing regression, 5 both, 6 re-record (baseline
// from another build or CPU), 7 missing (an operation only in the baseline or only measured),
// 8 unstable (runs of the same build counted differently); 6 to 8 unless --accept names them.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/error.hpp"
#include "mpimon/gate.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/harness/overhead_sweep.hpp"
#include "mpimon/overhead.hpp"
#include "mpimon/version.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace fs = std::filesystem;

namespace {

constexpr int kExitRerecord = static_cast<int>(GateExit::rerecord);
constexpr int kExitMissing = static_cast<int>(GateExit::missing);
constexpr int kExitUnstable = static_cast<int>(GateExit::unstable);

struct GateOptions {
  std::string baseline = "results/gate/baseline.json", json = "gate-report.json", junit = "gate-report.xml";
  std::string measure = "both", launcher = "mpirun", valgrind = "valgrind", probe, work_dir;
  std::vector<std::string> mca, environment, on_environment;
  std::string accept;  ///< comma-separated: rerecord, missing, unstable
  bool update = false;
  int timeout = 900;
  std::uint32_t monitoring_mode = 1;
  // instructions
  std::string probe_ops = "send,put,get,bcast,allreduce,alltoall";
  std::uint32_t count = 100, size = 8, runs = 2;
  double tolerance = 0;  // counts are deterministic: the smallest added cost (2 instructions) must fail
  // timing
  Sweep sweep;
  double alpha = 0.05;
  TimingMargin margin;
  bool confirm = true;
};

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string joined(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : sep) + i;
  return out;
}

// ---- instructions ---------------------------------------------------------------------------

struct InstructionRun {
  std::vector<InstructionCount> counts;
  std::vector<std::string> objects;
};

std::vector<std::string> probe_args(const GateOptions& o) {
  return {"--ops", o.probe_ops, "--count", std::to_string(o.count), "--size", std::to_string(o.size)};
}

// Rank 0 under callgrind, rank 1 natively (an MPMD line): only rank 0's counts are read.
MpiLaunch probe_launch(const GateOptions& o, const fs::path& out_file) {
  MpiLaunch l(o.launcher, 1);
  l.mca("pml_monitoring_enable", std::to_string(o.monitoring_mode));
  for (const auto& kv : o.environment) l.option({"-x", kv});
  for (const auto& kv : o.on_environment) l.option({"-x", kv});
  for (const auto& kv : o.mca) l.mca(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
  std::vector<std::string> args{"--tool=callgrind",
                                "--collect-atstart=no",
                                "--compress-strings=no",
                                "--compress-pos=no",
                                "--callgrind-out-file=" + out_file.string(),
                                o.probe};
  const auto pa = probe_args(o);
  args.insert(args.end(), pa.begin(), pa.end());
  args.insert(args.end(), {":", "-np", "1", o.probe});
  args.insert(args.end(), pa.begin(), pa.end());
  return l.program(o.valgrind, args);
}

InstructionRun run_probe(const GateOptions& o, const fs::path& dir, std::uint32_t index) {
  const fs::path run_dir = dir / ("callgrind-" + std::to_string(index));
  fs::remove_all(run_dir);
  fs::create_directories(run_dir);
  MpiLaunch l = probe_launch(o, run_dir / "cg.out");
  std::fprintf(stderr, "[instructions %u/%u] %s\n", index, o.runs, l.text().c_str());
  const auto start = std::chrono::steady_clock::now();
  LaunchResult r = l.run(std::chrono::seconds(o.timeout));
  if (r.timed_out || r.exit_code != 0) {
    raise_error(Error::Kind::input, o.probe,
                "the callgrind run failed (" +
                    (r.timed_out ? std::string("timeout") : "exit code " + std::to_string(r.exit_code)) +
                    "): " + r.output.substr(r.output.size() > 600 ? r.output.size() - 600 : 0));
  }
  // cg.out.1, cg.out.2, ...: one per client-request dump, in the probe's order.
  std::vector<CallgrindDump> dumps;
  for (int k = 1; fs::exists(run_dir / ("cg.out." + std::to_string(k))); ++k) {
    dumps.push_back(read_callgrind_dump((run_dir / ("cg.out." + std::to_string(k))).string()));
  }
  if (dumps.empty())
    raise_error(Error::Kind::input, run_dir.string(), "callgrind wrote no dump (is valgrind working?)");
  InstructionRun run;
  for (const auto& d : dumps) run.objects.insert(run.objects.end(), d.objects.begin(), d.objects.end());
  run.counts = instructions_per_operation(dumps);
  std::fprintf(stderr, "[instructions %u/%u] done in %.0f s\n", index, o.runs,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return run;
}

struct InstructionMeasure {
  InstructionBaseline now;
  bool stable = true;
};

InstructionMeasure measure_instructions(const GateOptions& o, const fs::path& dir) {
  InstructionMeasure m;
  std::vector<InstructionRun> runs;
  for (std::uint32_t i = 1; i <= o.runs; ++i) runs.push_back(run_probe(o, dir, i));
  for (const auto& r : runs) {
    for (std::size_t k = 0; k < r.counts.size(); ++k) {
      m.stable = m.stable && k < runs[0].counts.size() && r.counts[k].at_n == runs[0].counts[k].at_n &&
                 r.counts[k].at_2n == runs[0].counts[k].at_2n;
    }
  }
  m.now.operations = runs[0].counts;
  m.now.build = {{"open_mpi", launcher_version_line(o.launcher)},
                 {"valgrind", launcher_version_line(o.valgrind)},
                 {"libraries", objects_fingerprint(runs[0].objects, o.probe)}};
  m.now.settings = {
      {"probe", "mpimon-gate-probe " + joined(probe_args(o), " ")},
      {"launch", "rank 0 under valgrind --tool=callgrind, rank 1 native (MPMD), pml_monitoring_enable " +
                     std::to_string(o.monitoring_mode) + (o.mca.empty() ? "" : ", " + joined(o.mca, " "))},
      {"runs", std::to_string(o.runs)},
      {"summary",
       "instructions of the monitoring's own code (calls into the monitoring objects from libmpi and "
       "components, minus the wrapped component calls), (cost of 2N operations - cost of N) / N; "
       "every run must give the same counts"}};
  return m;
}

// ---- timing -----------------------------------------------------------------------------------

std::vector<TimingCell> measure_timing(const std::string& name, Sweep s, const fs::path& output) {
  s.output = output.string();
  s.resume = false;
  run_sweep(name + " timing", s);
  OverheadResults results(s.output);
  const auto launches = results.launches();
  std::size_t ok = 0;
  for (const auto& l : launches) ok += l.status == "ok" ? 1 : 0;
  if (ok == 0) raise_error(Error::Kind::input, s.output, "every timing launch failed: " + launches.at(0).status);
  const auto cells = analyze_overhead(launches);
  results.write_analysis(cells);
  std::vector<TimingCell> out;
  for (const auto& c : cells) {
    if (c.arm != "on") continue;
    out.push_back({c.op, c.np, c.size, c.analysis.n, c.analysis.mean_off, c.analysis.mean_difference,
                   c.analysis.sd_difference.value_or(0)});
  }
  return out;
}

std::map<std::string, std::string> machine_of(const GateOptions& o) {
  return {{"cpu_model", cpu_model()},
          {"cpus", std::to_string(std::thread::hardware_concurrency())},
          {"open_mpi", launcher_version_line(o.launcher)}};
}

std::map<std::string, std::string> timing_settings(const GateOptions& o) {
  const Sweep& s = o.sweep;
  return {{"ops", s.ops},
          {"sizes", s.sizes},
          {"np", "2"},
          {"pairs", std::to_string(s.pairs)},
          {"iterations", std::to_string(s.iterations)},
          {"warmup", std::to_string(s.warmup)},
          {"seed", std::to_string(s.h.seed)},
          {"binding", "--bind-to core when np <= cpus, else --bind-to none --oversubscribe"},
          {"monitoring_mode", std::to_string(s.h.monitoring_mode)},
          {"summary",
           "per launch and benchmark: interquartile mean over iterations of the per-iteration maximum "
           "over ranks; per cell: mean and sd of the on - off differences over the pairs"}};
}

// Re-runs the regressed cells with fresh pairs (another seed); a cell stays a regression only if
// the second run, judged on its own (Holm over the re-run cells), says so too.
void confirm_timing(const std::string& name, const GateOptions& o, const TimingBaseline& baseline,
                    std::vector<TimingVerdict>& verdicts, const fs::path& dir) {
  std::set<std::string> ops;
  std::set<std::uint64_t> sizes;
  for (const auto& v : verdicts) {
    if (v.verdict != Verdict::regression) continue;
    ops.insert(v.op);
    sizes.insert(v.size);
  }
  if (ops.empty()) return;
  Sweep s = o.sweep;
  s.ops = joined({ops.begin(), ops.end()}, ",");
  std::vector<std::string> size_list;
  for (auto z : sizes) size_list.push_back(std::to_string(z));
  s.sizes = joined(size_list, ",");
  s.h.seed = o.sweep.h.seed + 1;
  std::fprintf(stderr, "%s: confirming %s at sizes %s with %u fresh pairs\n", name.c_str(), s.ops.c_str(),
               s.sizes.c_str(), s.pairs);
  std::vector<TimingCell> again;
  for (const auto& c : measure_timing(name + " (confirmation)", s, dir / "timing-confirm.h5")) {
    for (const auto& v : verdicts) {
      if (v.verdict == Verdict::regression && v.op == c.op && v.size == c.size && v.np == c.np) again.push_back(c);
    }
  }
  const auto second = judge_timing(again, baseline, o.margin, o.alpha);
  for (auto& v : verdicts) {
    if (v.verdict != Verdict::regression) continue;
    v.verdict = Verdict::inconclusive;
    v.note = "not confirmed by a second run";
    for (const auto& w : second) {
      if (w.op == v.op && w.size == v.size && w.np == v.np && w.verdict == Verdict::regression) {
        v.verdict = Verdict::regression;
        v.confirmed = true;
        char buf[96];
        std::snprintf(buf, sizeof buf, "confirmed by a second run (regression %.1f ns, low bound %.1f)",
                      w.regression_ns, w.low_ns.value_or(0));
        v.note = buf;
      }
    }
  }
}

// ---- output -------------------------------------------------------------------------------------

std::string fmt(const std::optional<double>& v, const char* format = "%.1f") {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

void print_report(const GateReport& r) {
  if (!r.instructions.empty()) {
    std::printf("\ninstructions the monitoring adds per operation (callgrind)\n");
    std::printf("%-10s %7s %12s %12s  %-15s %s\n", "op", "size", "baseline", "now", "verdict", "note");
    for (const auto& v : r.instructions) {
      std::printf("%-10s %7llu %12s %12s  %-15s %s\n", v.op.c_str(), static_cast<unsigned long long>(v.size),
                  fmt(v.baseline, "%.0f").c_str(), fmt(v.now, "%.0f").c_str(), verdict_name(v.verdict), v.note.c_str());
    }
  }
  if (!r.timing.empty()) {
    std::printf("\ntiming overhead per call (on - off, ns), regression = now - baseline, simultaneous bounds\n");
    std::printf("%-10s %7s %3s %10s %10s %22s %8s %8s  %-15s %s\n", "op", "size", "np", "baseline", "now",
                "regression [low, high]", "margin", "p Holm", "verdict", "note");
    for (const auto& v : r.timing) {
      const std::string reg = fmt(v.regression_ns) + " [" + fmt(v.low_ns) + ", " + fmt(v.high_ns) + "]";
      std::printf("%-10s %7llu %3u %10.1f %10.1f %22s %8.1f %8s  %-15s %s\n", v.op.c_str(),
                  static_cast<unsigned long long>(v.size), v.np, v.baseline_ns, v.now_ns, reg.c_str(), v.margin_ns,
                  fmt(v.p_holm, "%.3g").c_str(), verdict_name(v.verdict), v.note.c_str());
    }
  }
  for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
}

std::set<Verdict> accepted_verdicts(const GateOptions& o) {
  std::set<Verdict> out;
  std::stringstream list(o.accept);
  for (std::string item; std::getline(list, item, ',');) {
    if (item == "rerecord")
      out.insert(Verdict::rerecord);
    else if (item == "missing")
      out.insert(Verdict::missing);
    else if (item == "unstable")
      out.insert(Verdict::unstable);
    else
      throw po::error("--accept takes a comma-separated list of rerecord, missing and unstable, not '" + item + "'");
  }
  return out;
}

// What to do for each code that is not a regression (printed with the verdict).
std::string advice_for(int code) {
  switch (code) {
    case kExitRerecord:
      return "the baseline is from another Open MPI build, valgrind, libraries or CPU: re-record it on this "
             "machine with --update-baseline (or pass --accept rerecord to judge nothing of those rows)";
    case kExitMissing:
      return "an operation is in the baseline but was not measured, or measured but not in the baseline: "
             "measure the same operations (--probe-ops, --ops, --sizes) or re-record (or --accept missing)";
    case kExitUnstable:
      return "two runs of the same build counted different instructions: the count is not deterministic here "
             "(check ASLR, valgrind, the environment; more --runs) (or --accept unstable)";
    default:
      return "";
  }
}

std::map<std::string, std::string> provenance_of(const GateOptions& o) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return {{"date", utc_now()},
          {"generator", std::string("mpimon ") + kVersion},
          {"host", host},
          {"cpu_model", cpu_model()},
          {"cpus", std::to_string(std::thread::hardware_concurrency())},
          {"open_mpi", launcher_version_line(o.launcher)},
          {"monitoring_components",
           "pml, osc, coll monitoring (pml_monitoring_enable " + std::to_string(o.monitoring_mode) + ")"},
          {"launcher", o.launcher},
          {"mca", joined(o.mca, " ")},
          {"environment", joined(o.environment, " ") +
                              (o.on_environment.empty() ? "" : " | monitored: " + joined(o.on_environment, " "))},
          {"np", "2"},
          {"measure", o.measure}};
}

void add_options(po::options_description& options, GateOptions& o) {
  Sweep& s = o.sweep;
  options.add_options()("baseline", po::value(&o.baseline)->default_value(o.baseline), "baseline file (JSON)")(
      "update-baseline", "run the measures and record them as the new baseline (nothing is judged)")(
      "measure", po::value(&o.measure)->default_value("both"), "instructions, timing or both")(
      "json", po::value(&o.json)->default_value(o.json), "JSON report")(
      "junit", po::value(&o.junit)->default_value(o.junit), "JUnit XML report")(
      "launcher", po::value(&o.launcher)->default_value("mpirun"), "Open MPI's mpirun")(
      "mca", po::value(&o.mca)->composing(), "KEY=VALUE added to every launch (repeatable)")(
      "env", po::value(&o.environment)->composing(), "VAR=VALUE exported to every launch (mpirun -x)")(
      "on-env", po::value(&o.on_environment)->composing(), "VAR=VALUE exported to the monitored launches only")(
      "monitoring-mode", po::value(&o.monitoring_mode)->default_value(1), "pml_monitoring_enable")(
      "timeout", po::value(&o.timeout)->default_value(900), "seconds before a launch is killed")(
      "accept", po::value(&o.accept),
      "rows not judged that do not fail the gate: comma-separated rerecord, "
      "missing, unstable (default: none; each fails with its own exit code)")(
      "work-dir", po::value(&o.work_dir),
      "keep the callgrind dumps and timing results here (default: a "
      "temporary directory, removed)");
  po::options_description ins("Instructions (callgrind)");
  ins.add_options()("probe-ops", po::value(&o.probe_ops)->default_value(o.probe_ops),
                    "operations: send, put, get, bcast, allreduce, alltoall")(
      "count", po::value(&o.count)->default_value(100), "N: loops of N and 2N operations")(
      "size", po::value(&o.size)->default_value(8), "message size in bytes (multiple of 8)")(
      "runs", po::value(&o.runs)->default_value(2), "callgrind runs; their counts must agree")(
      "tolerance", po::value(&o.tolerance)->default_value(0, "0"), "fraction above the baseline tolerated")(
      "valgrind", po::value(&o.valgrind)->default_value("valgrind"), "valgrind executable")(
      "probe", po::value(&o.probe)->default_value(own_file("mpimon-gate-probe"), "mpimon's mpimon-gate-probe"),
      "the probe program");
  po::options_description tim("Timing (paired launches, np 2)");
  tim.add_options()("ops", po::value(&s.ops)->default_value("send,bcast,alltoall,put,get"), "operations")(
      "sizes", po::value(&s.sizes)->default_value("8,65536"), "message sizes in bytes")(
      "pairs", po::value(&s.pairs)->default_value(8), "launch pairs (and again for the confirmation)")(
      "iterations", po::value(&s.iterations)->default_value(300), "timed iterations per benchmark")(
      "warmup", po::value(&s.warmup)->default_value(30), "untimed iterations first")(
      "seed", po::value(&s.h.seed)->default_value(1), "seed of the arm and benchmark orders")(
      "alpha", po::value(&o.alpha)->default_value(0.05, "0.05"), "family-wise error rate (Holm across the cells)")(
      "margin-ns", po::value(&o.margin.absolute_ns)->default_value(50), "regression tolerated, ns per call")(
      "margin-relative", po::value(&o.margin.relative)->default_value(0.05, "0.05"),
      "or this fraction of the baseline's off time, whichever is larger")(
      "no-confirm", "do not re-run the regressed cells (report them unconfirmed)")(
      "program",
      po::value(&s.program)->default_value(own_file("mpimon-overhead-bench"), "mpimon's mpimon-overhead-bench"),
      "the benchmark program");
  options.add(ins).add(tim);
}

void check_options(const GateOptions& o) {
  if (o.measure != "instructions" && o.measure != "timing" && o.measure != "both") {
    throw po::error("--measure takes instructions, timing or both, not '" + o.measure + "'");
  }
  for (const auto* list : {&o.mca, &o.environment, &o.on_environment}) {
    for (const auto& kv : *list) {
      if (kv.find('=') == std::string::npos || kv.front() == '=')
        throw po::error("expected KEY=VALUE, not '" + kv + "'");
    }
  }
  if (o.runs < 1) throw po::error("--runs must be at least 1");
  if (o.count < 1) throw po::error("--count must be at least 1");
  if (o.size == 0 || o.size % 8 != 0) throw po::error("--size must be a positive multiple of 8");
  if (!(o.alpha > 0 && o.alpha < 1)) throw po::error("--alpha must be in (0, 1)");
  if (o.tolerance < 0) throw po::error("--tolerance must be >= 0");
  if (o.margin.absolute_ns < 0) throw po::error("--margin-ns must be >= 0");
  if (o.margin.relative < 0) throw po::error("--margin-relative must be >= 0");
  if (o.sweep.pairs < 2) throw po::error("--pairs must be at least 2");
  accepted_verdicts(o);
  if (!is_open_mpi_launcher(o.launcher))
    throw po::error("--launcher: the gate needs Open MPI's mpirun (MPMD line, -x)");
}

// A temporary directory removed at the end, unless --work-dir names one to keep.
struct WorkDir {
  fs::path path;
  bool keep;
  explicit WorkDir(const std::string& given)
      : path(given.empty() ? fs::temp_directory_path() / ("mpimon-gate-" + std::to_string(getpid())) : fs::path(given)),
        keep(!given.empty()) {
    fs::create_directories(path);
  }
  ~WorkDir() {
    std::error_code ignored;
    if (!keep) fs::remove_all(path, ignored);
  }
};

}  // namespace

int gate_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name,
              "[--baseline FILE] [--update-baseline] [--measure instructions|timing|both]\n"
              "       [--json FILE] [--junit FILE] [options]",
              "The overhead regression gate for CI. Counts, with valgrind's callgrind, the instructions Open MPI's\n"
              "monitoring adds per message, RMA operation and collective call (deterministic), and measures the\n"
              "paired on/off timing overhead on a small grid at np 2; compares both with the baseline. A timing\n"
              "cell fails only when the lower bound of its regression exceeds the margin (Holm across cells) and\n"
              "a second run confirms it; a too-wide interval is 'inconclusive'. Exit codes: 0 no confirmed\n"
              "regression, 1 error, 2 usage, 3 instruction regression, 4 timing regression, 5 both,\n"
              "6 re-record (baseline from another build or CPU), 7 missing (an operation in only one of\n"
              "baseline and run), 8 unstable (runs of one build disagree); 6 to 8 unless --accept names them\n"
              "(docs/gate.md)."};
  return run_command(cmd, [&] {
    GateOptions o;
    po::options_description options("Options");
    add_options(options, o);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    o.update = vm.count("update-baseline") > 0;
    o.confirm = vm.count("no-confirm") == 0;
    check_options(o);
    Sweep& s = o.sweep;
    s.h.launcher = o.launcher;
    s.nps = {2};
    s.transports = {"shared"};
    s.arms = {"off", "on"};
    s.h.mca = o.mca;
    s.environment = o.environment;
    s.on_environment = o.on_environment;
    s.h.monitoring_mode = o.monitoring_mode;
    s.h.timeout = o.timeout;
    const bool instructions = o.measure != "timing", timing = o.measure != "instructions";
    if (instructions && !fs::exists(o.probe))
      raise_error(Error::Kind::input, o.probe, "probe program not found (--probe)");
    if (timing && !fs::exists(s.program))
      raise_error(Error::Kind::input, s.program, "benchmark program not found (--program)");

    GateBaseline baseline;
    const bool have_baseline = fs::exists(o.baseline);
    if (have_baseline) baseline = read_gate_baseline(o.baseline);
    if (!o.update && !have_baseline) {
      raise_error(Error::Kind::input, o.baseline, "no baseline: record one with --update-baseline");
    }
    WorkDir work(o.work_dir);

    std::optional<InstructionMeasure> ins;
    if (instructions) ins = measure_instructions(o, work.path);
    std::vector<TimingCell> cells;
    if (timing) cells = measure_timing(name, s, work.path / "timing.h5");

    if (o.update) {
      GateBaseline b = baseline;
      b.provenance = provenance_of(o);
      if (ins) {
        if (!ins->stable) raise_error(Error::Kind::input, o.probe, "the callgrind runs disagree: not recorded");
        b.instructions = ins->now;
      }
      if (timing) b.timing = TimingBaseline{machine_of(o), timing_settings(o), cells};
      fs::create_directories(fs::absolute(o.baseline).parent_path());
      write_file_atomically(o.baseline, [&](std::ostream& out) { write_gate_baseline(b, out); });
      GateReport r;
      if (ins) r.instructions = judge_instructions(ins->now.operations, ins->now, 0, true, ins->stable, "");
      print_report(r);
      std::printf("baseline recorded: %s\n", o.baseline.c_str());
      return kExitOk;
    }

    GateReport report;
    report.provenance = provenance_of(o);
    report.baseline_path = o.baseline;
    if (ins) {
      if (!baseline.instructions) {
        report.notes.push_back("the baseline has no instruction counts: record them with --update-baseline");
        report.instructions =
            judge_instructions(ins->now.operations, InstructionBaseline{}, o.tolerance, true, ins->stable, "");
      } else {
        std::string differs;
        for (const auto& [k, v] : ins->now.build) {
          auto it = baseline.instructions->build.find(k);
          if (it == baseline.instructions->build.end() || it->second != v) {
            differs += (differs.empty() ? "" : "; ") + k + " '" +
                       (it == baseline.instructions->build.end() ? std::string("?") : it->second) + "' now '" + v + "'";
          }
        }
        report.instructions = judge_instructions(ins->now.operations, *baseline.instructions, o.tolerance,
                                                 differs.empty(), ins->stable, differs);
        if (!differs.empty())
          report.notes.push_back("instructions: baseline from another build: re-record (" + differs + ")");
      }
    }
    if (timing) {
      if (!baseline.timing) {
        report.notes.push_back("the baseline has no timing cells: record them with --update-baseline");
        report.timing = judge_timing(cells, TimingBaseline{}, o.margin, o.alpha);
      } else {
        const bool same_machine = baseline.timing->machine == machine_of(o);
        report.timing = judge_timing(cells, *baseline.timing, o.margin, o.alpha, same_machine);
        if (!same_machine) report.notes.push_back("timing: baseline from another machine or Open MPI build: re-record");
        if (o.confirm) {
          confirm_timing(name, o, *baseline.timing, report.timing, work.path);
        } else {
          for (auto& v : report.timing) {
            if (v.verdict != Verdict::regression) continue;
            v.verdict = Verdict::inconclusive;
            v.note = "regression found, not confirmed (--no-confirm): not a failure";
          }
        }
      }
    }
    report.exit_code = gate_exit_code(report, accepted_verdicts(o));
    const std::string advice = advice_for(report.exit_code);
    if (!advice.empty()) report.notes.push_back(advice);
    print_report(report);
    write_file_atomically(o.json, [&](std::ostream& out) { write_gate_json(report, out); });
    write_file_atomically(o.junit, [&](std::ostream& out) { write_gate_junit(report, out); });
    const char* verdict = report.exit_code == kExitOk         ? "no confirmed regression"
                          : report.exit_code == kExitRerecord ? "NOT JUDGED: re-record"
                          : report.exit_code == kExitMissing  ? "NOT JUDGED: missing"
                          : report.exit_code == kExitUnstable ? "NOT JUDGED: unstable"
                                                              : "REGRESSION";
    std::printf("reports: %s, %s\nverdict: %s\n", o.json.c_str(), o.junit.c_str(), verdict);
    if (!advice.empty()) std::fprintf(stderr, "%s: %s\n", name.c_str(), advice.c_str());
    return report.exit_code;
  });
}

}  // namespace mpimon::cli
