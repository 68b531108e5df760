// The launches and the decision flow of `mpimon gate` (gate_run.hpp).

#include "mpimon/harness/gate_run.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "mpimon/base/error.hpp"
#include "mpimon/base/output.hpp"
#include "mpimon/base/scratch.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/results/arms.hpp"
#include "mpimon/results/overhead.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

namespace {

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

std::vector<std::string> probe_args(const GateSettings& g) {
  return {"--ops", g.probe_ops, "--count", std::to_string(g.count), "--size", std::to_string(g.size)};
}

struct InstructionRun {
  std::vector<InstructionCount> counts;
  std::vector<std::string> objects;
};

InstructionRun run_probe(const GateSettings& g, const fs::path& dir, std::uint32_t index) {
  const fs::path run_dir = dir / ("callgrind-" + std::to_string(index));
  fs::remove_all(run_dir);
  fs::create_directories(run_dir);
  MpiLaunch l = probe_launch(g, run_dir / "cg.out");
  std::fprintf(stderr, "[instructions %u/%u] %s\n", index, g.runs, l.text().c_str());
  const auto start = std::chrono::steady_clock::now();
  LaunchResult r = l.run(std::chrono::seconds(g.timeout));
  if (r.timed_out || r.exit_code != 0) {
    raise_error(Error::Kind::input, g.probe,
                "the callgrind run failed (" +
                    (r.timed_out ? std::string("timeout") : "exit code " + std::to_string(r.exit_code)) +
                    "): " + r.output.substr(r.output.size() > 600 ? r.output.size() - 600 : 0));
  }
  // cg.out.1, cg.out.2, ...: one per client-request dump, in the probe's order.
  std::vector<CallgrindDump> dumps;
  for (int k = 1; fs::exists(run_dir / ("cg.out." + std::to_string(k))); ++k) {
    dumps.push_back(read_callgrind_dump((run_dir / ("cg.out." + std::to_string(k))).string()));
  }
  if (dumps.empty()) {
    raise_error(Error::Kind::input, run_dir.string(), "callgrind wrote no dump (is valgrind working?)");
  }
  InstructionRun run;
  for (const auto& d : dumps) run.objects.insert(run.objects.end(), d.objects.begin(), d.objects.end());
  run.counts = instructions_per_operation(dumps);
  std::fprintf(stderr, "[instructions %u/%u] done in %.0f s\n", index, g.runs,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return run;
}

/// --work-dir DIR, kept; else a scratch directory, gone at the end and on Ctrl-C.
struct WorkDir {
  std::optional<ScratchDirectory> scratch;
  fs::path path;
  explicit WorkDir(const std::string& given) {
    if (given.empty()) {
      path = scratch.emplace("gate").path();
    } else {
      fs::create_directories(given);
      path = given;
    }
  }
};

std::vector<InstructionVerdict> judge_instruction_measure(const GateSettings& g, const InstructionMeasure& ins,
                                                          const GateBaseline& baseline, GateReport& report) {
  if (!baseline.instructions) {
    report.notes.push_back("the baseline has no instruction counts: record them with --update-baseline");
    return judge_instructions(ins.now.operations, InstructionBaseline{}, g.tolerance, true, ins.stable, "");
  }
  const std::string differs = build_differences(baseline.instructions->build, ins.now.build);
  if (!differs.empty())
    report.notes.push_back("instructions: baseline from another build: re-record (" + differs + ")");
  return judge_instructions(ins.now.operations, *baseline.instructions, g.tolerance, differs.empty(), ins.stable,
                            differs);
}

std::vector<TimingVerdict> judge_timing_measure(const std::string& name, const GateSettings& g,
                                                const std::vector<TimingCell>& cells, const GateBaseline& baseline,
                                                const fs::path& dir, GateReport& report) {
  if (!baseline.timing) {
    report.notes.push_back("the baseline has no timing cells: record them with --update-baseline");
    return judge_timing(cells, TimingBaseline{}, g.margin, g.alpha);
  }
  const bool same_machine = baseline.timing->machine == gate_machine(g);
  auto verdicts = judge_timing(cells, *baseline.timing, g.margin, g.alpha, same_machine);
  if (!same_machine) report.notes.push_back("timing: baseline from another machine or Open MPI build: re-record");
  if (!g.confirm) {
    for (auto& v : verdicts) {
      if (v.verdict != mpimon::Verdict::regression) continue;
      v.verdict = mpimon::Verdict::inconclusive;
      v.note = "regression found, not confirmed (--no-confirm): not a failure";
    }
    return verdicts;
  }
  const auto again = confirmation_sweep(g.sweep, verdicts);
  if (!again) return verdicts;
  std::fprintf(stderr, "%s: confirming %s at sizes %s with %u fresh pairs\n", name.c_str(), again->ops.c_str(),
               again->sizes.c_str(), again->pairs);
  std::vector<TimingCell> rerun;
  for (const auto& c : measure_timing(name + " (confirmation)", *again, dir / "timing-confirm.h5")) {
    for (const auto& v : verdicts) {
      if (v.verdict == mpimon::Verdict::regression && v.op == c.op && v.size == c.size && v.np == c.np)
        rerun.push_back(c);
    }
  }
  apply_confirmation(verdicts, judge_timing(rerun, *baseline.timing, g.margin, g.alpha));
  return verdicts;
}

}  // namespace

void check_gate_settings(const GateSettings& g) {
  const auto usage = [](const std::string& what) { throw Error(Error::Kind::usage, what); };
  if (g.measure != "instructions" && g.measure != "timing" && g.measure != "both") {
    usage("--measure takes instructions, timing or both, not '" + g.measure + "'");
  }
  for (const auto* list : {&g.mca, &g.environment, &g.on_environment}) {
    for (const auto& kv : *list) {
      if (kv.find('=') == std::string::npos || kv.front() == '=') usage("expected KEY=VALUE, not '" + kv + "'");
    }
  }
  if (g.runs < 1) usage("--runs must be at least 1");
  if (g.count < 1) usage("--count must be at least 1");
  if (g.size == 0 || g.size % 8 != 0) usage("--size must be a positive multiple of 8");
  if (!(g.alpha > 0 && g.alpha < 1)) usage("--alpha must be in (0, 1)");
  if (g.tolerance < 0) usage("--tolerance must be >= 0");
  if (g.margin.absolute_ns < 0) usage("--margin-ns must be >= 0");
  if (g.margin.relative < 0) usage("--margin-relative must be >= 0");
  if (g.sweep.pairs < 2) usage("--pairs must be at least 2");
  accepted_verdicts(g.accept);
  if (!is_open_mpi_launcher(g.launcher)) usage("--launcher: the gate needs Open MPI's mpirun (MPMD line, -x)");
}

std::set<mpimon::Verdict> accepted_verdicts(const std::string& list) {
  std::set<mpimon::Verdict> out;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    if (item == "rerecord") {
      out.insert(mpimon::Verdict::rerecord);
    } else if (item == "missing") {
      out.insert(mpimon::Verdict::missing);
    } else if (item == "unstable") {
      out.insert(mpimon::Verdict::unstable);
    } else {
      throw Error(Error::Kind::usage,
                  "--accept takes a comma-separated list of rerecord, missing and unstable, not '" + item + "'");
    }
  }
  return out;
}

std::string advice_for(int code) {
  switch (static_cast<GateExit>(code)) {
    case GateExit::rerecord:
      return "the baseline is from another Open MPI build, valgrind, libraries or CPU: re-record it on this "
             "machine with --update-baseline (or pass --accept rerecord to judge nothing of those rows)";
    case GateExit::missing:
      return "an operation is in the baseline but was not measured, or measured but not in the baseline: "
             "measure the same operations (--probe-ops, --ops, --sizes) or re-record (or --accept missing)";
    case GateExit::unstable:
      return "two runs of the same build counted different instructions: the count is not deterministic here "
             "(check ASLR, valgrind, the environment; more --runs) (or --accept unstable)";
    default:
      return "";
  }
}

// Rank 0 under callgrind, rank 1 natively (an MPMD line): only rank 0's counts are read.
MpiLaunch probe_launch(const GateSettings& g, const fs::path& out_file) {
  MpiLaunch l(g.launcher, 1);
  l.mca("pml_monitoring_enable", std::to_string(g.monitoring_mode));
  for (const auto& kv : g.environment) l.option({"-x", kv});
  for (const auto& kv : g.on_environment) l.option({"-x", kv});
  for (const auto& kv : g.mca) l.mca(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
  std::vector<std::string> args{"--tool=callgrind",
                                "--collect-atstart=no",
                                "--compress-strings=no",
                                "--compress-pos=no",
                                "--callgrind-out-file=" + out_file.string(),
                                g.probe};
  const auto pa = probe_args(g);
  args.insert(args.end(), pa.begin(), pa.end());
  args.insert(args.end(), {":", "-np", "1", g.probe});
  args.insert(args.end(), pa.begin(), pa.end());
  return l.program(g.valgrind, args);
}

InstructionMeasure measure_instructions(const GateSettings& g, const fs::path& dir) {
  InstructionMeasure m;
  std::vector<InstructionRun> runs;
  for (std::uint32_t i = 1; i <= g.runs; ++i) runs.push_back(run_probe(g, dir, i));
  for (const auto& r : runs) {
    for (std::size_t k = 0; k < r.counts.size(); ++k) {
      m.stable = m.stable && k < runs[0].counts.size() && r.counts[k].at_n == runs[0].counts[k].at_n &&
                 r.counts[k].at_2n == runs[0].counts[k].at_2n;
    }
  }
  m.now.operations = runs[0].counts;
  m.now.build = {{"open_mpi", launcher_version_line(g.launcher)},
                 {"valgrind", launcher_version_line(g.valgrind)},
                 {"libraries", objects_fingerprint(runs[0].objects, g.probe)}};
  m.now.settings = {{"probe", "mpimon-gate-probe " + join(probe_args(g), " ")},
                    {"launch", "rank 0 under valgrind --tool=callgrind, rank 1 native (MPMD), pml_monitoring_enable " +
                                   std::to_string(g.monitoring_mode) + (g.mca.empty() ? "" : ", " + join(g.mca, " "))},
                    {"runs", std::to_string(g.runs)},
                    {"summary",
                     "instructions of the monitoring's own code (calls into the monitoring objects from libmpi and "
                     "components, minus the wrapped component calls), (cost of 2N operations - cost of N) / N; "
                     "every run must give the same counts"}};
  return m;
}

std::vector<TimingCell> measure_timing(const std::string& name, Sweep s, const fs::path& output) {
  s.output = output.string();
  s.resume = false;
  // A timing cell short of pairs is not judged on fewer: a failed launch ends the gate (exit 9).
  s.keep_going = false;
  run_sweep(name + " timing", s).raise_if_any();
  OverheadResults results(s.output);
  const auto launches = results.launches();
  const auto cells = analyze_overhead(launches);
  results.write_analysis(cells);
  std::vector<TimingCell> out;
  for (const auto& c : cells) {
    if (c.arm != kArmOn) continue;
    out.push_back({c.op, c.np, c.size, c.analysis.n, c.analysis.mean_off, c.analysis.mean_difference,
                   c.analysis.sd_difference.value_or(0)});
  }
  return out;
}

std::map<std::string, std::string> gate_machine(const GateSettings& g) {
  return {{"cpu_model", cpu_model()},
          {"cpus", std::to_string(std::thread::hardware_concurrency())},
          {"open_mpi", launcher_version_line(g.launcher)}};
}

std::map<std::string, std::string> gate_timing_settings(const GateSettings& g) {
  const Sweep& s = g.sweep;
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

std::map<std::string, std::string> gate_provenance(const GateSettings& g) {
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  return {{"date", utc_now()},
          {"generator", std::string("mpimon ") + kVersion},
          {"host", host},
          {"cpu_model", cpu_model()},
          {"cpus", std::to_string(std::thread::hardware_concurrency())},
          {"open_mpi", launcher_version_line(g.launcher)},
          {"monitoring_components",
           "pml, osc, coll monitoring (pml_monitoring_enable " + std::to_string(g.monitoring_mode) + ")"},
          {"launcher", g.launcher},
          {"mca", join(g.mca, " ")},
          {"environment",
           join(g.environment, " ") + (g.on_environment.empty() ? "" : " | monitored: " + join(g.on_environment, " "))},
          {"np", "2"},
          {"measure", g.measure}};
}

std::string build_differences(const std::map<std::string, std::string>& baseline,
                              const std::map<std::string, std::string>& now) {
  std::string differs;
  for (const auto& [k, v] : now) {
    auto it = baseline.find(k);
    if (it == baseline.end() || it->second != v) {
      differs += (differs.empty() ? "" : "; ") + k + " '" + (it == baseline.end() ? std::string("?") : it->second) +
                 "' now '" + v + "'";
    }
  }
  return differs;
}

void apply_confirmation(std::vector<TimingVerdict>& first, const std::vector<TimingVerdict>& second) {
  for (auto& v : first) {
    if (v.verdict != mpimon::Verdict::regression) continue;
    v.verdict = mpimon::Verdict::inconclusive;
    v.note = "not confirmed by a second run";
    for (const auto& w : second) {
      if (w.op == v.op && w.size == v.size && w.np == v.np && w.verdict == mpimon::Verdict::regression) {
        v.verdict = mpimon::Verdict::regression;
        v.confirmed = true;
        char buf[96];
        std::snprintf(buf, sizeof buf, "confirmed by a second run (regression %.1f ns, low bound %.1f)",
                      w.regression_ns, w.low_ns.value_or(0));
        v.note = buf;
      }
    }
  }
}

std::optional<Sweep> confirmation_sweep(const Sweep& s, const std::vector<TimingVerdict>& verdicts) {
  std::set<std::string> ops;
  std::set<std::uint64_t> sizes;
  for (const auto& v : verdicts) {
    if (v.verdict != mpimon::Verdict::regression) continue;
    ops.insert(v.op);
    sizes.insert(v.size);
  }
  if (ops.empty()) return std::nullopt;
  Sweep again = s;
  again.ops = join({ops.begin(), ops.end()}, ",");
  std::vector<std::string> size_list;
  for (auto z : sizes) size_list.push_back(std::to_string(z));
  again.sizes = join(size_list, ",");
  again.h.seed = s.h.seed + 1;
  return again;
}

GateReport run_gate(const std::string& name, const GateSettings& g) {
  const bool instructions = g.measure != "timing", timing = g.measure != "instructions";
  if (instructions && !fs::exists(g.probe))
    raise_error(Error::Kind::input, g.probe, "probe program not found (--probe)");
  if (timing && !fs::exists(g.sweep.program)) {
    raise_error(Error::Kind::input, g.sweep.program, "benchmark program not found (--program)");
  }
  GateBaseline baseline;
  const bool have_baseline = fs::exists(g.baseline);
  if (have_baseline) baseline = read_gate_baseline(g.baseline);
  if (!g.update && !have_baseline) {
    raise_error(Error::Kind::input, g.baseline, "no baseline: record one with --update-baseline");
  }
  const WorkDir work(g.work_dir);
  std::optional<InstructionMeasure> ins;
  if (instructions) ins = measure_instructions(g, work.path);
  std::vector<TimingCell> cells;
  if (timing) cells = measure_timing(name, g.sweep, work.path / "timing.h5");

  GateReport report;
  report.provenance = gate_provenance(g);
  report.baseline_path = g.baseline;
  if (g.update) {
    GateBaseline b = baseline;
    b.provenance = report.provenance;
    if (ins) {
      if (!ins->stable) raise_error(Error::Kind::input, g.probe, "the callgrind runs disagree: not recorded");
      b.instructions = ins->now;
      report.instructions = judge_instructions(ins->now.operations, ins->now, 0, true, ins->stable, "");
    }
    if (timing) b.timing = TimingBaseline{gate_machine(g), gate_timing_settings(g), cells};
    fs::create_directories(fs::absolute(g.baseline).parent_path());
    write_file_atomically(g.baseline, [&](std::ostream& out) { write_gate_baseline(b, out); });
    return report;
  }
  if (ins) report.instructions = judge_instruction_measure(g, *ins, baseline, report);
  if (timing) report.timing = judge_timing_measure(name, g, cells, baseline, work.path, report);
  report.exit_code = gate_exit_code(report, accepted_verdicts(g.accept));
  const std::string advice = advice_for(report.exit_code);
  if (!advice.empty()) report.notes.push_back(advice);
  return report;
}

}  // namespace mpimon::harness
