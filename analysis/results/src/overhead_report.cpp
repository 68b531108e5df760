// The overhead cells' columns, table and CSV (mpimon/results/overhead.hpp), shared by `mpimon bench
// overhead` and `mpimon show`, and the words of a cost's verdict the application tables print too.

#include <algorithm>
#include <cmath>

#include "mpimon/results/arms.hpp"
#include "mpimon/results/overhead.hpp"
#include "paired_columns.hpp"

namespace mpimon {

using namespace results_detail;

namespace {

std::string format_ns(double v) { return format_number(v, std::fabs(v) >= 1000 ? "%.0f" : "%.1f"); }

std::string difference_ns_cell(const PairedAnalysis& a) {
  std::string diff = format_ns(a.mean_difference);
  if (a.t_test) diff += " [" + format_ns(a.t_test->ci.low) + ", " + format_ns(a.t_test->ci.high) + "]";
  return diff;
}

std::string relative_percent_cell(const PairedAnalysis& a) {
  if (!a.relative || !a.relative->ci) return "-";
  return format_number(100 * a.relative->value, "%+.1f%%") + " [" + format_number(100 * a.relative->ci->low, "%+.1f") +
         ", " + format_number(100 * a.relative->ci->high, "%+.1f") + "]";
}

std::vector<Column<OverheadCell>> overhead_cell_column_list() {
  using C = OverheadCell;
  auto per_process = [](std::string name, auto value) {
    return number_column<C>(std::move(name), [value](const C& c) { return number_cell(value(c.per_process)); });
  };
  std::vector<Column<C>> c;
  c.push_back(text_column<C>("transport", [](const C& x) { return x.transport; }).console("transp.", -7));
  c.push_back(console_column<C>("design", -11, [](const C& x) { return TableCell(x.design); }));
  c.push_back(text_column<C>("arm", [](const C& x) { return x.arm; }).console("arm", -9));
  c.push_back(text_column<C>("op", [](const C& x) { return x.op; }).console("op", -10));
  c.push_back(count_column<C>("np", [](const C& x) { return std::uint64_t{x.np}; }).console("np", 4));
  c.push_back(count_column<C>("size", [](const C& x) { return x.size; }).console("size", 9));
  c.push_back(count_column<C>("pairs", [](const C& x) { return std::uint64_t{x.analysis.n}; }).console("pairs", 5));
  c.push_back(console_column<C>("difference ns/call [95% CI]", 26,
                                [](const C& x) { return TableCell(difference_ns_cell(x.analysis)); }));
  c.push_back(console_column<C>("relative [95% CI]", 18,
                                [](const C& x) { return TableCell(relative_percent_cell(x.analysis)); }));
  c.push_back(console_column<C>("p (BH)", 9, [](const C& x) {
    return x.p_adjusted ? TableCell(format_number(*x.p_adjusted, "%.3g") + (*x.p_adjusted < 0.05 ? " *" : ""))
                        : TableCell();
  }));
  c.push_back(console_column<C>(
      "vs 5 %", 12, [](const C& x) { return TableCell(cost_words(decide_cost(x.analysis).verdict, 0.05)); }));
  c.push_back(analysis_column<C>("off_ns", [](const PairedAnalysis& a) { return a.mean_off; }));
  c.push_back(analysis_column<C>("arm_ns", [](const PairedAnalysis& a) { return a.mean_on; }));
  add_difference_columns(c, "_ns");
  add_t_test_columns(c);
  c.push_back(number_column<C>("p_bh", [](const C& x) { return number_cell(x.p_adjusted); }));
  c.push_back(per_process("per_process_ns", [](const Estimate& e) { return e.value; }));
  c.push_back(per_process("per_process_ci_low_ns",
                          [](const Estimate& e) { return e.ci ? std::optional(e.ci->low) : std::nullopt; }));
  c.push_back(per_process("per_process_ci_high_ns",
                          [](const Estimate& e) { return e.ci ? std::optional(e.ci->high) : std::nullopt; }));
  add_relative_columns(c);
  c.push_back(analysis_column<C>("wilcoxon_v", wilcoxon_v));
  c.push_back(analysis_column<C>("wilcoxon_p", wilcoxon_p));
  c.push_back(analysis_column<C>("significant", significant));
  c.push_back(verdict_column<C>());
  c.push_back(pairs_needed_column<C>());
  c.push_back(text_column<C>("design", [](const C& x) { return x.design; }));
  c.push_back(text_column<C>("comparison", [](const C& x) { return std::string(comparison_title(x.arm, x.design)); })
                  .files(kCsvColumn)
                  .quoted());
  return c;
}

}  // namespace

const std::vector<Column<OverheadCell>>& overhead_columns() {
  static const std::vector<Column<OverheadCell>> columns = overhead_cell_column_list();
  return columns;
}

std::string cost_words(CostVerdict verdict, double threshold) {
  const std::string limit = format_number(100 * threshold, "%g %%");
  switch (verdict) {
    case CostVerdict::below:
      return "< " + limit;
    case CostVerdict::above:
      return "> " + limit;
    case CostVerdict::nonzero:
      return "> 0";
    case CostVerdict::inconclusive:
      return "inconclusive";
    case CostVerdict::no_interval:
      break;
  }
  return "-";
}

void write_undecided(std::ostream& out, const std::string& label, const PairedAnalysis& a, const std::string& spans,
                     std::optional<std::size_t> pairs_needed, double half_width, const std::string& base) {
  if (!a.relative || !a.relative->ci) return;
  out << "  " << label << ": inconclusive: the 95 % CI [" << format_number(100 * a.relative->ci->low, "%+.1f %%")
      << ", " << format_number(100 * a.relative->ci->high, "%+.1f %%") << "] spans " << spans;
  if (pairs_needed && a.sd_difference) {
    out << "; about " << *pairs_needed << " pairs would narrow it to +-" << format_number(100 * half_width, "%g %%")
        << " (from the observed spread, sd " << format_number(100 * *a.sd_difference / a.mean_off, "%.1f %%")
        << " of the " << base << " time)";
  }
  out << "\n";
}

void write_inconclusive(std::ostream& out, const std::string& label, const PairedAnalysis& a, double threshold) {
  const CostDecision d = decide_cost(a, threshold, threshold / 2);
  if (d.verdict != CostVerdict::inconclusive) return;
  write_undecided(out, label, a, "both no cost and a " + format_number(100 * threshold, "%g %%") + " cost",
                  d.pairs_needed, threshold / 2, "off");
}

void write_interleaving(const std::vector<LaunchRecord>& launches, const std::string& design, std::ostream& out) {
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
    out << "interleaved design: " << failed << " of " << interleaved << " launches failed (" << reason
        << "): MPI_T cannot switch the counting here"
        << (design.starts_with("both") ? "; the pairs design stands alone" : "") << "\n";
  }
  for (const auto& p : interleaving_problems(launches)) out << "interleaved design: left out " << p << "\n";
}

void write_analysis_table(const std::vector<OverheadCell>& cells, std::ostream& out) {
  out << "\n";
  write_console(overhead_columns(), cells, out);
  out << "(* significant at 5 % after Benjamini-Hochberg within each transport, arm and operation; vs 5 %: the\n"
         " relative 95 % CI below or above a 5 % cost, above 0 (a cost, its size open), or inconclusive: spanning\n"
         " both no cost and 5 %)\n";
  std::size_t inconclusive = 0;
  std::optional<std::size_t> most_pairs;
  for (const auto& c : cells) {
    const CostDecision d = decide_cost(c.analysis);
    if (d.verdict != CostVerdict::inconclusive) continue;
    ++inconclusive;
    if (d.pairs_needed) most_pairs = std::max(most_pairs.value_or(0), *d.pairs_needed);
  }
  out << cells.size() - inconclusive << " of " << cells.size()
      << " cells resolved (their 95 % CI below or above 5 %, or above 0)\n";
  if (inconclusive > 0) {
    out << inconclusive << " of " << cells.size() << " cells inconclusive: their intervals decide nothing";
    if (most_pairs) out << "; about " << *most_pairs << " pairs would narrow every one of them to +-2.5 %";
    out << " (--pairs; pairs_needed in --csv)\n";
  }
}

void write_analysis_csv(const std::vector<OverheadCell>& cells, std::ostream& out) {
  write_csv(overhead_columns(), cells, out);
}

}  // namespace mpimon
