// `mpimon gate`: the overhead regression gate for CI (docs/gate.md). Two measures against a
// committed baseline: the instructions monitoring adds per operation (callgrind, deterministic)
// and the paired timing overhead (the overhead harness, judged on confidence intervals, Holm
// across cells, failing cells confirmed by a second run). Exit codes: 0 no confirmed regression,
// 1 error, 2 usage, 3 instruction regression, 4 timing regression, 5 both, 6 re-record (baseline
// from another build or CPU), 7 missing (an operation only in the baseline or only measured),
// 8 unstable (runs of the same build counted differently); 6 to 8 unless --accept names them;
// 9 a timing launch failed (its log in JSON.logs/).

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/base/number_text.hpp"
#include "mpimon/harness/gate_run.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/results/gate.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

namespace {

constexpr int kExitRerecord = static_cast<int>(GateExit::rerecord);
constexpr int kExitMissing = static_cast<int>(GateExit::missing);
constexpr int kExitUnstable = static_cast<int>(GateExit::unstable);

void print_report(const GateReport& r) {
  if (!r.instructions.empty()) {
    std::printf("\ninstructions the monitoring adds per operation (callgrind)\n");
    std::printf("%-10s %7s %12s %12s  %-15s %s\n", "op", "size", "baseline", "now", "verdict", "note");
    for (const auto& v : r.instructions) {
      std::printf("%-10s %7llu %12s %12s  %-15s %s\n", v.op.c_str(), static_cast<unsigned long long>(v.size),
                  format_number(v.baseline, "%.0f").c_str(), format_number(v.now, "%.0f").c_str(),
                  verdict_name(v.verdict), v.note.c_str());
    }
  }
  if (!r.timing.empty()) {
    std::printf("\ntiming overhead per call (on - off, ns), regression = now - baseline, simultaneous bounds\n");
    std::printf("%-10s %7s %3s %10s %10s %22s %8s %8s  %-15s %s\n", "op", "size", "np", "baseline", "now",
                "regression [low, high]", "margin", "p Holm", "verdict", "note");
    for (const auto& v : r.timing) {
      const std::string reg = format_number(v.regression_ns, "%.1f") + " [" + format_number(v.low_ns, "%.1f") + ", " +
                              format_number(v.high_ns, "%.1f") + "]";
      std::printf("%-10s %7llu %3u %10.1f %10.1f %22s %8.1f %8s  %-15s %s\n", v.op.c_str(),
                  static_cast<unsigned long long>(v.size), v.np, v.baseline_ns, v.now_ns, reg.c_str(), v.margin_ns,
                  format_number(v.p_holm, "%.3g").c_str(), verdict_name(v.verdict), v.note.c_str());
    }
  }
  for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
}

void add_options(po::options_description& options, GateSettings& o) {
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
      "monitoring-mode",
      po::value(&o.monitoring_mode)->default_value(1)->notifier(in_range<std::uint32_t>("monitoring-mode", 1, 2)),
      "pml_monitoring_enable")("timeout", po::value(&o.timeout)->default_value(900)->notifier(in_range("timeout", 1)),
                               "seconds before a launch is killed")(
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
      "sizes",
      po::value(&s.sizes)->default_value("8,65536")->notifier([](const std::string& t) { check_sizes(t, "sizes"); }),
      "message sizes in bytes")("pairs", po::value(&s.pairs)->default_value(8),
                                "launch pairs (and again for the confirmation)")(
      "iterations", po::value(&s.iterations)->default_value(300)->notifier(in_range<std::uint32_t>("iterations", 1)),
      "timed iterations per benchmark")("warmup", po::value(&s.warmup)->default_value(30), "untimed iterations first")(
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
              "baseline and run), 8 unstable (runs of one build disagree); 6 to 8 unless --accept names them;\n"
              "9 a timing launch failed (docs/gate.md)."};
  return run_command(cmd, [&] {
    GateSettings o;
    po::options_description options("Options");
    add_options(options, o);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    o.update = vm.count("update-baseline") > 0;
    o.confirm = vm.count("no-confirm") == 0;
    check_gate_settings(o);
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
    s.logs = logs_directory(o.json);
    const GateReport report = run_gate(name, o);
    print_report(report);
    if (o.update) {
      std::printf("baseline recorded: %s\n", o.baseline.c_str());
      return kExitOk;
    }
    write_file_atomically(o.json, [&](std::ostream& out) { write_gate_json(report, out); });
    write_file_atomically(o.junit, [&](std::ostream& out) { write_gate_junit(report, out); });
    const char* verdict = report.exit_code == kExitOk         ? "no confirmed regression"
                          : report.exit_code == kExitRerecord ? "NOT JUDGED: re-record"
                          : report.exit_code == kExitMissing  ? "NOT JUDGED: missing"
                          : report.exit_code == kExitUnstable ? "NOT JUDGED: unstable"
                                                              : "REGRESSION";
    std::printf("reports: %s, %s\nverdict: %s\n", o.json.c_str(), o.junit.c_str(), verdict);
    const std::string advice = advice_for(report.exit_code);
    if (!advice.empty()) std::fprintf(stderr, "%s: %s\n", name.c_str(), advice.c_str());
    return report.exit_code;
  });
}

}  // namespace mpimon::cli
