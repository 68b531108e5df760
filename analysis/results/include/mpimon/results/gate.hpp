#pragma once
// The overhead regression gate (docs/gate.md): instructions the monitoring adds per
// operation, counted with callgrind, and the paired timing overhead compared with a baseline.
// No MPI here: the CLI runs the launches, this computes the measures, verdicts and reports.

#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "mpimon/base/exit_codes.hpp"
#include "mpimon/results/apps.hpp"
#include "mpimon/results/stats.hpp"

namespace mpimon {

// ---- Deterministic measure: callgrind -------------------------------------------------------

/// What one callgrind dump of mpimon-gate-probe says: its label ("mpimon-gate OP SIZE N") and the
/// instructions of the monitoring's own code collected in it.
struct CallgrindDump {
  std::string op;
  std::uint64_t size = 0;
  std::uint64_t count = 0;           ///< operations in the collected loop
  std::uint64_t monitoring = 0;      ///< instructions of the monitoring's own code (see below)
  std::vector<std::string> objects;  ///< every ELF object the dump names, in order of appearance
};

/// Whether an ELF object (a path) belongs to the monitoring: its file name contains "monitoring"
/// (mca_pml/osc/coll_monitoring.so, libmca_common_monitoring.so).
bool is_monitoring_object(const std::string& object);

/// Reads a dump written with --compress-strings=no --compress-pos=no. The monitoring's own cost
/// is the inclusive cost of every call into a monitoring object from libmpi or from another MCA
/// component (the calls that enter the monitoring layer), minus the inclusive cost of every call
/// from a monitoring object into another MCA component (the wrapped PML, coll or osc call). What
/// the monitoring code calls otherwise (hash tables, memcpy, anything interposed on its recording
/// functions) stays in; progress loops and waits of the wrapped layer, the only part whose count
/// depends on timing, cancel out. Errors name path:line.
CallgrindDump read_callgrind_dump(const std::string& path);
/// The same from a stream; `path` names it in errors.
CallgrindDump parse_callgrind_dump(std::istream& in, const std::string& path);

/// Instructions per operation: (cost of the 2N loop - cost of the N loop) / N, which removes any
/// one-off cost; `exact` says the division left no remainder.
struct InstructionCount {
  std::string op;
  std::uint64_t size = 0, count = 0;
  std::uint64_t at_n = 0, at_2n = 0;
  double per_op = 0;
  bool exact = true;
};
/// Pairs the dumps (N and 2N of each op and size). Throws when one of a pair is missing.
std::vector<InstructionCount> instructions_per_operation(const std::vector<CallgrindDump>& dumps);

/// A fingerprint of the ELF objects whose code is counted (size and FNV-1a of their contents,
/// file names only, sorted): equal fingerprints mean the same Open MPI build and libraries.
/// The probe program itself (`exclude`) is left out: its code is never counted.
std::string objects_fingerprint(const std::vector<std::string>& objects, const std::string& exclude);

// ---- Baseline ---------------------------------------------------------------------------------

struct InstructionBaseline {
  std::map<std::string, std::string> build;     ///< open_mpi, valgrind, objects_fingerprint, ...
  std::map<std::string, std::string> settings;  ///< probe command, count, size, runs, summary
  std::vector<InstructionCount> operations;
};

/// One timing cell's paired analysis (np, op, size): R pairs of launches, on minus off.
struct TimingCell {
  std::string op;
  std::uint32_t np = 0;
  std::uint64_t size = 0;
  std::size_t pairs = 0;
  double off_ns = 0;            ///< mean over pairs of the off launches' summaries
  double difference_ns = 0;     ///< mean of on - off: the overhead per call
  double sd_difference_ns = 0;  ///< sample sd of on - off (0 when undefined)
};

struct TimingBaseline {
  std::map<std::string, std::string> machine;   ///< cpu_model, cpus, open_mpi
  std::map<std::string, std::string> settings;  ///< sweep settings and how samples are summarised
  std::vector<TimingCell> cells;
};

struct GateBaseline {
  std::map<std::string, std::string> provenance;  ///< date, generator, host, launcher, mca, np, binding
  std::optional<InstructionBaseline> instructions;
  std::optional<TimingBaseline> timing;
};

inline constexpr const char* kGateBaselineFormat = "mpimon-gate-baseline";

/// Reads a baseline written by write_gate_baseline; errors name the file and what is wrong.
GateBaseline read_gate_baseline(const std::string& path);
/// The same from a stream; `path` names it in errors.
GateBaseline parse_gate_baseline(std::istream& in, const std::string& path);
void write_gate_baseline(const GateBaseline& baseline, std::ostream& out);

// ---- Verdicts ----------------------------------------------------------------------------------

/// How a check ended. `regression` fails the gate; `rerecord`, `unstable` and `missing` fail it
/// with their own exit codes unless accepted (`mpimon gate --accept`, docs/gate.md).
enum class Verdict { pass, regression, inconclusive, rerecord, unstable, missing };
const char* verdict_name(Verdict v);

struct InstructionVerdict {
  std::string op;
  std::uint64_t size = 0;
  std::optional<double> baseline, now;  ///< instructions per operation
  Verdict verdict = Verdict::pass;
  std::string note;
};

/// Compares with the baseline: a regression when now > baseline * (1 + tolerance) and by at least
/// one instruction. `same_build` false makes every row `rerecord`; `stable` false (two runs of the
/// same build disagreed) makes them `unstable`. Operations measured but absent from the baseline,
/// and operations of the baseline not measured, are `missing`.
std::vector<InstructionVerdict> judge_instructions(const std::vector<InstructionCount>& now,
                                                   const InstructionBaseline& baseline, double tolerance,
                                                   bool same_build, bool stable, const std::string& build_note);

struct TimingMargin {
  double absolute_ns = 50;  ///< a cell fails only if the regression exceeds
  double relative = 0.05;   ///< max(absolute_ns, relative x baseline off time)
};

struct TimingVerdict {
  std::string op;
  std::uint32_t np = 0;
  std::uint64_t size = 0;
  double baseline_ns = 0, now_ns = 0;     ///< overhead per call (on - off), baseline and now
  double regression_ns = 0;               ///< now - baseline
  std::optional<double> low_ns, high_ns;  ///< simultaneous one-sided bounds (Bonferroni, 1 - alpha/m each)
  double margin_ns = 0;
  std::optional<double> p, p_holm;  ///< one-sided test of "regression <= margin"
  Verdict verdict = Verdict::inconclusive;
  bool confirmed = false;  ///< a regression found again in the confirmation run
  std::string note;
};

/// Welch's comparison of each cell's overhead with the baseline's, one-sided test of
/// "regression <= margin", Holm across the cells: `regression` when Holm rejects at alpha,
/// `pass` when the simultaneous upper bound is below the margin, else `inconclusive`.
/// Cells absent from the baseline, and baseline cells not measured, are `missing`; with `same_machine` false (the
/// baseline was measured on another CPU model, CPU count or Open MPI) every cell is `rerecord`.
std::vector<TimingVerdict> judge_timing(const std::vector<TimingCell>& now, const TimingBaseline& baseline,
                                        const TimingMargin& margin, double alpha, bool same_machine = true);

// ---- Reports ---------------------------------------------------------------------------------

struct GateReport {
  std::map<std::string, std::string> provenance;
  std::string baseline_path;
  std::vector<InstructionVerdict> instructions;
  std::vector<TimingVerdict> timing;
  std::vector<std::string> notes;
  int exit_code = 0;
};

/// `mpimon gate`'s exit codes (docs/gate.md). A regression wins; then the rows that could not be
/// judged, each with its own code unless accepted; `ok` only when every row was judged (or accepted).
enum class GateExit {
  ok = kExitOk,
  instructions = kExitGateInstructions,
  timing = kExitGateTiming,
  both = kExitGateBoth,
  rerecord = kExitGateRerecord,
  missing = kExitGateMissing,
  unstable = kExitGateUnstable
};
/// The exit code of a report; a timing regression counts only once confirmed.
int gate_exit_code(const GateReport& report, const std::set<Verdict>& accepted);

void write_gate_json(const GateReport& report, std::ostream& out);

/// One JUnit test case: a <failure> when `fails`, else <skipped> when the verdict is not a pass.
struct JunitCase {
  std::string name, detail, note;
  Verdict verdict = Verdict::pass;
  bool fails = false;
};
/// <testsuites name=...> holding one <testsuite> per (name, cases).
void write_junit(const std::string& name, const std::vector<std::pair<std::string, std::vector<JunitCase>>>& suites,
                 std::ostream& out);

// ---- The gate for applications: `mpimon bench app --fail-above PCT` ---------------------------

/// Exit codes of `mpimon bench app --fail-above` (docs/gate.md), apart from the gate's 3 to 5.

/// One application at one process count, judged against the limit.
struct AppGateRow {
  std::string app;
  std::uint32_t np = 0;
  std::size_t pairs = 0;
  std::optional<double> overhead, low, high;    ///< relative (0.05 = 5 %), the 95 % CI
  CostVerdict cost = CostVerdict::no_interval;  ///< the interval against the limit
  Verdict verdict = Verdict::inconclusive;      ///< pass, regression (above) or inconclusive
  std::optional<std::size_t> pairs_needed;      ///< for +- half the limit, from the observed spread
  std::string note;
};

struct AppGateReport {
  std::map<std::string, std::string> provenance;  ///< the sweep's configuration
  double fail_above = 0.05;                       ///< relative
  bool allow_inconclusive = false;
  std::vector<AppGateRow> rows;
  int exit_code = 0;
};

/// Each row's relative overhead interval against `fail_above`: `pass` when the whole interval
/// lies below it; `regression` when the interval excludes no cost and reaches the limit (a cost
/// is established, and may exceed the limit); `inconclusive` when it spans both no cost and the
/// limit, or there is none (one pair). Exit code kExitAppGateAbove if any row is above, else
/// kExitAppGateInconclusive if any is inconclusive (0 with `allow_inconclusive`), else 0. The pairs
/// estimate is for a half-width of fail_above / 2, the widest that can never span both.
AppGateReport judge_app_overhead(const std::vector<AppRow>& rows, double fail_above, bool allow_inconclusive);
void write_app_gate_json(const AppGateReport& report, std::ostream& out);
void write_app_gate_junit(const AppGateReport& report, std::ostream& out);
/// JUnit XML (testsuites/testsuite/testcase), one test case per row: a regression is a
/// <failure>, inconclusive, re-record and unstable rows are <skipped> with the reason.
void write_gate_junit(const GateReport& report, std::ostream& out);

}  // namespace mpimon
