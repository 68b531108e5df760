// The gate's verdicts: instruction counts and timing against the baseline, and the exit code.

#include "mpimon/results/gate.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "gate_json.hpp"
#include "mpimon/base/names.hpp"
#include "mpimon/results/stats.hpp"

namespace mpimon {

using gate_detail::number;

constexpr std::array<Named<Verdict>, 6> kVerdictNames{{{Verdict::pass, "pass"},
                                                       {Verdict::regression, "REGRESSION"},
                                                       {Verdict::inconclusive, "inconclusive"},
                                                       {Verdict::rerecord, "re-record"},
                                                       {Verdict::unstable, "unstable"},
                                                       {Verdict::missing, "missing"}}};

const char* verdict_name(Verdict v) { return to_name(kVerdictNames, v); }

std::vector<InstructionVerdict> judge_instructions(const std::vector<InstructionCount>& now,
                                                   const InstructionBaseline& baseline, double tolerance,
                                                   bool same_build, bool stable, const std::string& build_note) {
  std::vector<InstructionVerdict> out;
  for (const auto& c : now) {
    InstructionVerdict v{c.op, c.size, std::nullopt, c.per_op, Verdict::pass, ""};
    for (const auto& b : baseline.operations) {
      if (b.op == c.op && b.size == c.size) v.baseline = b.per_op;
    }
    if (!stable) {
      v.verdict = Verdict::unstable;
      v.note = "two runs of the same build counted differently: the measure is not deterministic here";
    } else if (!same_build) {
      v.verdict = Verdict::rerecord;
      v.note = "baseline from another build: re-record (" + build_note + ")";
    } else if (!v.baseline) {
      v.verdict = Verdict::missing;
      v.note = "no baseline for this operation: re-record";
    } else if (c.per_op > *v.baseline * (1 + tolerance) && c.per_op - *v.baseline >= 1) {
      v.verdict = Verdict::regression;
      v.note = "+" + number(c.per_op - *v.baseline) + " instructions per operation";
    } else if (c.per_op != *v.baseline) {
      v.note = (c.per_op < *v.baseline ? "" : "+") + number(c.per_op - *v.baseline) + " (within tolerance)";
    }
    out.push_back(v);
  }
  // An operation of the baseline that this run did not measure is not a pass by omission.
  if (stable && same_build) {
    for (const auto& b : baseline.operations) {
      const bool measured = std::any_of(now.begin(), now.end(),
                                        [&](const InstructionCount& c) { return c.op == b.op && c.size == b.size; });
      if (!measured) {
        out.push_back({b.op, b.size, b.per_op, std::nullopt, Verdict::missing,
                       "in the baseline but not measured: measure it (--probe-ops) or re-record"});
      }
    }
  }
  return out;
}

std::vector<TimingVerdict> judge_timing(const std::vector<TimingCell>& now, const TimingBaseline& baseline,
                                        const TimingMargin& margin, double alpha, bool same_machine) {
  std::vector<TimingVerdict> out;
  std::vector<std::optional<WelchDifference>> tests;
  for (const auto& c : now) {
    TimingVerdict v;
    v.op = c.op;
    v.np = c.np;
    v.size = c.size;
    v.now_ns = c.difference_ns;
    const TimingCell* base = nullptr;
    for (const auto& b : baseline.cells) {
      if (b.op == c.op && b.np == c.np && b.size == c.size) base = &b;
    }
    std::optional<WelchDifference> w;
    if (!same_machine) {
      v.verdict = Verdict::rerecord;
      v.note = "baseline from another machine or Open MPI: re-record";
    } else if (!base) {
      v.verdict = Verdict::missing;
      v.note = "no baseline for this cell: re-record";
    } else {
      v.baseline_ns = base->difference_ns;
      v.regression_ns = c.difference_ns - base->difference_ns;
      v.margin_ns = std::max(margin.absolute_ns, margin.relative * base->off_ns);
      w = welch_difference(c.difference_ns, c.sd_difference_ns, c.pairs, base->difference_ns, base->sd_difference_ns,
                           base->pairs);
      if (w) {
        v.p = student_t_upper_tail((w->difference - v.margin_ns) / w->standard_error, w->df);
      } else {
        v.note = "no test: fewer than 2 pairs or no spread";
      }
    }
    tests.push_back(w);
    out.push_back(v);
  }
  // A baseline cell this run did not measure is not a pass by omission.
  for (const auto& b : baseline.cells) {
    if (!same_machine) break;
    const bool measured = std::any_of(
        now.begin(), now.end(), [&](const TimingCell& c) { return c.op == b.op && c.np == b.np && c.size == b.size; });
    if (measured) continue;
    TimingVerdict v;
    v.op = b.op;
    v.np = b.np;
    v.size = b.size;
    v.baseline_ns = b.difference_ns;
    v.verdict = Verdict::missing;
    v.note = "in the baseline but not measured: measure it (--ops, --sizes) or re-record";
    tests.emplace_back();
    out.push_back(v);
  }
  // Holm over the cells that have a test; simultaneous bounds at 1 - alpha/m each (Bonferroni).
  std::vector<double> p;
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].p) {
      p.push_back(*out[i].p);
      tested.push_back(i);
    }
  }
  const auto adjusted = holm(p);
  const double m = static_cast<double>(std::max<std::size_t>(tested.size(), 1));
  for (std::size_t k = 0; k < tested.size(); ++k) {
    TimingVerdict& v = out[tested[k]];
    const WelchDifference& w = *tests[tested[k]];
    const double t = student_t_quantile(1 - alpha / m, w.df);
    v.p_holm = adjusted[k];
    v.low_ns = w.difference - t * w.standard_error;
    v.high_ns = w.difference + t * w.standard_error;
    if (adjusted[k] < alpha) {
      v.verdict = Verdict::regression;
    } else if (*v.high_ns < v.margin_ns) {
      v.verdict = Verdict::pass;
    } else {
      v.verdict = Verdict::inconclusive;
      char buf[96];
      std::snprintf(buf, sizeof buf, "interval too wide to decide (upper bound %.1f ns > margin)", *v.high_ns);
      v.note = buf;
    }
  }
  return out;
}

int gate_exit_code(const GateReport& r, const std::set<Verdict>& accepted) {
  bool instructions = false, timing = false;
  std::set<Verdict> seen;
  for (const auto& v : r.instructions) {
    instructions = instructions || v.verdict == Verdict::regression;
    seen.insert(v.verdict);
  }
  for (const auto& v : r.timing) {
    timing = timing || (v.verdict == Verdict::regression && v.confirmed);
    seen.insert(v.verdict);
  }
  GateExit code = GateExit::ok;
  if (instructions && timing)
    code = GateExit::both;
  else if (instructions)
    code = GateExit::instructions;
  else if (timing)
    code = GateExit::timing;
  else if (seen.count(Verdict::rerecord) && !accepted.count(Verdict::rerecord))
    code = GateExit::rerecord;
  else if ((seen.count(Verdict::missing) || seen.empty()) && !accepted.count(Verdict::missing))
    code = GateExit::missing;
  else if (seen.count(Verdict::unstable) && !accepted.count(Verdict::unstable))
    code = GateExit::unstable;
  return static_cast<int>(code);
}

}  // namespace mpimon
