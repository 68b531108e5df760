#include "overhead_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "mpimon/results/arms.hpp"

namespace mpimon::cli {

namespace {

std::string format_ns(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1000 ? "%.0f" : "%.1f", v);
  return buf;
}

}  // namespace

std::string cost_words(CostVerdict verdict, double threshold) {
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g %%", 100 * threshold);
  switch (verdict) {
    case CostVerdict::below:
      return std::string("< ") + limit;
    case CostVerdict::above:
      return std::string("> ") + limit;
    case CostVerdict::nonzero:
      return "> 0";
    case CostVerdict::inconclusive:
      return "inconclusive";
    case CostVerdict::no_interval:
      break;
  }
  return "-";
}

void print_undecided(const std::string& label, const PairedAnalysis& a, const std::string& spans,
                     std::optional<std::size_t> pairs_needed, double half_width, const std::string& base) {
  if (!a.relative || !a.relative->ci) return;
  std::printf("  %s: inconclusive: the 95 %% CI [%+.1f %%, %+.1f %%] spans %s", label.c_str(),
              100 * a.relative->ci->low, 100 * a.relative->ci->high, spans.c_str());
  if (pairs_needed && a.sd_difference) {
    std::printf("; about %zu pairs would narrow it to +-%g %% (from the observed spread, sd %.1f %% of the %s time)",
                *pairs_needed, 100 * half_width, 100 * *a.sd_difference / a.mean_off, base.c_str());
  }
  std::printf("\n");
}

void print_inconclusive(const std::string& label, const PairedAnalysis& a, double threshold) {
  const CostDecision d = decide_cost(a, threshold, threshold / 2);
  if (d.verdict != CostVerdict::inconclusive) return;
  char spans[64];
  std::snprintf(spans, sizeof spans, "both no cost and a %g %% cost", 100 * threshold);
  print_undecided(label, a, spans, d.pairs_needed, threshold / 2, "off");
}

void print_interleaving(const std::vector<LaunchRecord>& launches, const std::string& design) {
  std::size_t interleaved = 0, failed = 0;
  std::string reason;
  for (const auto& l : launches) {
    if (!is_interleaved_arm(l.key.arm)) continue;
    ++interleaved;
    if (l.status != "ok") {
      ++failed;
      reason = l.status;
    }
  }
  if (failed > 0) {
    std::printf("interleaved design: %zu of %zu launches failed (%s): MPI_T cannot switch the counting here%s\n",
                failed, interleaved, reason.c_str(),
                design.starts_with("both") ? "; the pairs design stands alone" : "");
  }
  for (const auto& p : interleaving_problems(launches)) std::printf("interleaved design: left out %s\n", p.c_str());
}

void print_analysis(const std::vector<OverheadCell>& cells) {
  std::printf("\n%-7s %-11s %-9s %-10s %4s %9s %5s %26s %18s %9s %12s\n", "transp.", "design", "arm", "op", "np",
              "size", "pairs", "difference ns/call [95% CI]", "relative [95% CI]", "p (BH)", "vs 5 %");
  for (const auto& c : cells) {
    const auto& a = c.analysis;
    std::string diff = format_ns(a.mean_difference);
    if (a.t_test) diff += " [" + format_ns(a.t_test->ci.low) + ", " + format_ns(a.t_test->ci.high) + "]";
    char rel[64] = "-";
    if (a.relative && a.relative->ci) {
      std::snprintf(rel, sizeof rel, "%+.1f%% [%+.1f, %+.1f]", 100 * a.relative->value, 100 * a.relative->ci->low,
                    100 * a.relative->ci->high);
    }
    char p[32] = "-";
    if (c.p_adjusted) std::snprintf(p, sizeof p, "%.3g%s", *c.p_adjusted, *c.p_adjusted < 0.05 ? " *" : "");
    std::printf("%-7s %-11s %-9s %-10s %4u %9llu %5zu %26s %18s %9s %12s\n", c.transport.c_str(), c.design.c_str(),
                c.arm.c_str(), c.op.c_str(), c.np, static_cast<unsigned long long>(c.size), a.n, diff.c_str(), rel, p,
                cost_words(decide_cost(a).verdict, 0.05).c_str());
  }
  std::printf(
      "(* significant at 5 %% after Benjamini-Hochberg within each transport, arm and operation; vs 5 %%: the\n"
      " relative 95 %% CI below or above a 5 %% cost, above 0 (a cost, its size open), or inconclusive: spanning\n"
      " both no cost and 5 %%)\n");
  std::size_t inconclusive = 0;
  std::optional<std::size_t> most_pairs;
  for (const auto& c : cells) {
    const CostDecision d = decide_cost(c.analysis);
    if (d.verdict != CostVerdict::inconclusive) continue;
    ++inconclusive;
    if (d.pairs_needed) most_pairs = std::max(most_pairs.value_or(0), *d.pairs_needed);
  }
  std::printf("%zu of %zu cells resolved (their 95 %% CI below or above 5 %%, or above 0)\n",
              cells.size() - inconclusive, cells.size());
  if (inconclusive > 0) {
    std::printf("%zu of %zu cells inconclusive: their intervals decide nothing", inconclusive, cells.size());
    if (most_pairs) std::printf("; about %zu pairs would narrow every one of them to +-2.5 %%", *most_pairs);
    std::printf(" (--pairs; pairs_needed in --csv)\n");
  }
}

void write_analysis_csv(const std::vector<OverheadCell>& cells, std::ostream& out) {
  out << "transport,arm,op,np,size,pairs,off_ns,arm_ns,difference_ns,difference_ci_low_ns,difference_ci_high_ns,"
         "t,df,p,p_bh,per_process_ns,per_process_ci_low_ns,per_process_ci_high_ns,relative,relative_ci_low,"
         "relative_ci_high,wilcoxon_v,wilcoxon_p,significant,verdict_5pct,pairs_for_2_5pct,design,comparison\n";
  for (const auto& c : cells) {
    const auto& a = c.analysis;
    const CostDecision decision = decide_cost(a);
    auto t = a.t_test;
    std::optional<double> rel_low, rel_high;
    if (a.relative && a.relative->ci) {
      rel_low = a.relative->ci->low;
      rel_high = a.relative->ci->high;
    }
    out << c.transport << ',' << c.arm << ',' << c.op << ',' << c.np << ',' << c.size << ',' << a.n << ','
        << csv_number(a.mean_off) << ',' << csv_number(a.mean_on) << ',' << csv_number(a.mean_difference) << ','
        << csv_number(t ? std::optional(t->ci.low) : std::nullopt) << ','
        << csv_number(t ? std::optional(t->ci.high) : std::nullopt) << ','
        << csv_number(t ? std::optional(t->t) : std::nullopt) << ','
        << csv_number(t ? std::optional(t->df) : std::nullopt) << ','
        << csv_number(t ? std::optional(t->p_value) : std::nullopt) << ',' << csv_number(c.p_adjusted) << ','
        << csv_number(c.per_process.value) << ','
        << csv_number(c.per_process.ci ? std::optional(c.per_process.ci->low) : std::nullopt) << ','
        << csv_number(c.per_process.ci ? std::optional(c.per_process.ci->high) : std::nullopt) << ','
        << csv_number(a.relative ? std::optional(a.relative->value) : std::nullopt) << ',' << csv_number(rel_low) << ','
        << csv_number(rel_high) << ',' << csv_number(a.wilcoxon ? std::optional(a.wilcoxon->v) : std::nullopt) << ','
        << csv_number(a.wilcoxon ? std::optional(a.wilcoxon->p_value) : std::nullopt) << ','
        << (a.significant() ? 1 : 0) << ',' << cost_verdict_name(decision.verdict) << ','
        << (decision.pairs_needed ? std::to_string(*decision.pairs_needed) : "") << ',' << c.design << ','
        << csv_quoted(std::string(comparison_title(c.arm, c.design))) << '\n';
  }
}

}  // namespace mpimon::cli
