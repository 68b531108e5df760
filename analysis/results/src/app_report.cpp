// The application rows' columns, table and CSV (mpimon/results/apps.hpp): Table 1 of `mpimon bench
// app` and the placements' table of `mpimon bench placement`, which `mpimon show` prints again.

#include <cmath>

#include "mpimon/results/apps.hpp"
#include "mpimon/results/overhead.hpp"
#include "paired_columns.hpp"

namespace mpimon {

using namespace results_detail;

namespace results_detail {

std::string difference_cell(const PairedAnalysis& a) {
  std::string diff = format_number(a.mean_difference, "%+.4f");
  if (a.t_test)
    diff += " [" + format_number(a.t_test->ci.low, "%+.4f") + ", " + format_number(a.t_test->ci.high, "%+.4f") + "]";
  return diff;
}

std::string relative_cell(const PairedAnalysis& a) {
  std::string rel = format_number(a.relative ? std::optional(100 * a.relative->value) : std::nullopt, "%+.2f");
  if (a.relative && a.relative->ci) {
    rel += " [" + format_number(100 * a.relative->ci->low, "%+.2f") + ", " +
           format_number(100 * a.relative->ci->high, "%+.2f") + "]";
  }
  return rel;
}

std::string p_cell(const PairedAnalysis& a) {
  std::string p = format_number(t_p(a), "%.3g");
  if (a.significant()) p += " *";
  return p;
}

}  // namespace results_detail

namespace {

// The heading of the verdict column of Table 1: "vs 5 %".
std::string verdict_heading(double threshold) { return "vs " + cost_words(CostVerdict::below, threshold).substr(2); }

}  // namespace

bool is_overhead(const ArmPair& arms) { return arms.base == kArmOff && arms.other == kArmOn; }

std::vector<Column<AppRow>> app_columns(const ArmPair& arms, AppTable table, double threshold) {
  using R = AppRow;
  const std::string& base = arms.base;
  const std::string& other = arms.other;
  const bool overhead = table == AppTable::overhead;
  // Table 1's columns (overhead) or the placements' (not): console columns of one table or the other.
  auto on_console = [](Column<R> c, bool shown) {
    if (!shown) c.format.writers &= ~static_cast<unsigned>(kConsoleColumn);
    return c;
  };
  auto table1 = [&](Column<R> c) { return on_console(std::move(c), overhead); };
  auto placements = [&](Column<R> c) { return on_console(std::move(c), !overhead); };
  auto number = [](std::string name, auto value) {
    return number_column<R>(std::move(name), [value](const R& r) { return number_cell(value(r)); });
  };
  std::vector<Column<R>> c;
  c.push_back(text_column<R>("app", [](const R& r) { return r.app; }).console("application", -28));
  c.push_back(count_column<R>("np", [](const R& r) { return std::uint64_t{r.np}; }).console("np", 4));
  c.push_back(count_column<R>("pairs", [](const R& r) { return std::uint64_t{r.analysis.n}; }).console("pairs", 5));
  c.push_back(text_column<R>("time_source", [](const R& r) { return r.time_source; }));
  c.push_back(number(base + "_mean_s", [](const R& r) {
                return r.analysis.mean_off;
              }).console((overhead ? "off" : base) + " s", 10, "%.4f"));
  c.push_back(number(base + "_median_s", [](const R& r) { return r.off_median; }));
  c.push_back(number(other + "_mean_s", [](const R& r) {
                return r.analysis.mean_on;
              }).console((overhead ? "on" : other) + " s", 10, "%.4f"));
  c.push_back(number(other + "_median_s", [](const R& r) { return r.on_median; }));
  c.push_back(table1(number("messages_per_process", [](const R& r) {
                       return r.messages_per_process;
                     }).console("msg/proc", 11, "%.2f")));
  c.push_back(number("external_messages_per_process", [](const R& r) { return r.external_per_process; }));
  c.push_back(number("bytes_per_process", [](const R& r) { return r.bytes_per_process; }));
  c.push_back(table1(
      number("messages_per_second", [](const R& r) { return r.messages_per_second; }).console("msg/s", 12, "%.1f")));
  const std::string difference = overhead ? "overhead s [95% CI]" : other + " - " + base + " s [95% CI]";
  const std::string relative = overhead ? "overhead % [95% CI]" : other + " vs " + base + " % [95% CI]";
  c.push_back(console_column<R>(difference, 27, [](const R& r) { return TableCell(difference_cell(r.analysis)); }));
  c.push_back(console_column<R>(relative, 20, [](const R& r) { return TableCell(relative_cell(r.analysis)); }));
  c.push_back(console_column<R>("p (t)", 9, [](const R& r) { return TableCell(p_cell(r.analysis)); }));
  add_difference_columns(c, "_s");
  add_relative_columns(c);
  add_t_test_columns(c);
  c.push_back(analysis_column<R>("wilcoxon_v", wilcoxon_v));
  c.push_back(analysis_column<R>("wilcoxon_p", wilcoxon_p).console("p (W)", 9, "%.3g"));
  c.push_back(analysis_column<R>("significant", significant));
  c.push_back(number("comm_share", [](const R& r) { return r.comm_share; }));
  c.push_back(table1(console_column<R>(
      "comm", 5,
      [](const R& r) { return number_cell(r.comm_share ? std::optional(100 * *r.comm_share) : std::nullopt); },
      "%.0f%%")));
  c.push_back(table1(console_column<R>(verdict_heading(threshold), 12, [threshold](const R& r) {
    return TableCell(cost_words(decide_cost(r.analysis, threshold).verdict, threshold));
  })));
  c.push_back(placements(console_column<R>("faster", 13, [base, other](const R& r) {
    const auto& a = r.analysis;
    return TableCell(!a.t_test ? "-" : !a.significant() ? "inconclusive" : a.mean_difference < 0 ? other : base);
  })));
  c.push_back(verdict_column<R>());
  c.push_back(pairs_needed_column<R>());
  return c;
}

void write_app_table(const std::vector<AppRow>& rows, AppTable table, const ArmPair& arms, double threshold,
                     std::ostream& out) {
  out << "\n";
  write_console(app_columns(arms, table, threshold), rows, out);
  if (table == AppTable::overhead) {
    out << "(off/on s: mean over pairs; msg: point-to-point messages, external + internal, of the merged dumps of\n"
           " the on launches; msg/s: all processes' messages per second of on time; * significant at 5 %\n"
           " (paired t-test); p (W): Wilcoxon signed-rank; comm: the workload's communication share; "
        << verdict_heading(threshold)
        << ": the\n"
           " overhead's 95 % CI below or above that cost, above 0 (a cost, its size open), or inconclusive)\n";
    for (const auto& r : rows) write_inconclusive(out, r.app + " np " + std::to_string(r.np), r.analysis, threshold);
    return;
  }
  out << "(" << arms.base << " s, " << arms.other
      << " s: mean time over pairs, monitoring off in both; * significant at 5 % (paired t-test); p (W):\n"
         " Wilcoxon signed-rank; faster: the arm whose time the 95 % CI shows lower, inconclusive when it spans 0)\n";
  for (const auto& r : rows) {
    const auto& a = r.analysis;
    if (!a.t_test || a.significant()) continue;
    write_undecided(out, r.app + " np " + std::to_string(r.np), a, "0: neither placement shown faster",
                    decide_cost(a).pairs_needed, 0.025, arms.base);
  }
}

void write_app_csv(const std::vector<AppRow>& rows, std::ostream& out, const ArmPair& arms) {
  write_csv(app_columns(arms), rows, out);
}

}  // namespace mpimon
