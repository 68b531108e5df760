#pragma once
// The columns of a paired analysis that the application rows and the overhead cells share
// (their `analysis` member), and the words and cells their tables print of it.

#include <optional>
#include <ostream>
#include <string>

#include "mpimon/base/number_text.hpp"
#include "mpimon/results/columns.hpp"
#include "mpimon/results/stats.hpp"

namespace mpimon::results_detail {

/// A number column of a row's paired analysis: `value` of its `analysis`.
template <typename Row, typename F>
Column<Row> analysis_column(std::string name, F value) {
  return number_column<Row>(std::move(name), [value](const Row& r) { return number_cell(value(r.analysis)); });
}

/// The parts of a paired analysis the columns show (absent where the analysis has none).
inline std::optional<double> t_ci_low(const PairedAnalysis& a) {
  return a.t_test ? std::optional(a.t_test->ci.low) : std::nullopt;
}
inline std::optional<double> t_ci_high(const PairedAnalysis& a) {
  return a.t_test ? std::optional(a.t_test->ci.high) : std::nullopt;
}
inline std::optional<double> t_value(const PairedAnalysis& a) {
  return a.t_test ? std::optional(a.t_test->t) : std::nullopt;
}
inline std::optional<double> t_df(const PairedAnalysis& a) {
  return a.t_test ? std::optional(a.t_test->df) : std::nullopt;
}
inline std::optional<double> t_p(const PairedAnalysis& a) {
  return a.t_test ? std::optional(a.t_test->p_value) : std::nullopt;
}
inline std::optional<double> relative_value(const PairedAnalysis& a) {
  return a.relative ? std::optional(a.relative->value) : std::nullopt;
}
inline std::optional<double> relative_low(const PairedAnalysis& a) {
  return a.relative && a.relative->ci ? std::optional(a.relative->ci->low) : std::nullopt;
}
inline std::optional<double> relative_high(const PairedAnalysis& a) {
  return a.relative && a.relative->ci ? std::optional(a.relative->ci->high) : std::nullopt;
}
inline std::optional<double> wilcoxon_v(const PairedAnalysis& a) {
  return a.wilcoxon ? std::optional(a.wilcoxon->v) : std::nullopt;
}
inline std::optional<double> wilcoxon_p(const PairedAnalysis& a) {
  return a.wilcoxon ? std::optional(a.wilcoxon->p_value) : std::nullopt;
}
inline std::optional<double> significant(const PairedAnalysis& a) { return a.significant() ? 1.0 : 0.0; }

/// The difference and its CI (`difference` UNIT, `difference_ci_low` UNIT, `difference_ci_high`
/// UNIT); the relative difference and its CI; the t-test's t, df and p.
template <typename Row>
void add_difference_columns(std::vector<Column<Row>>& columns, const std::string& unit) {
  columns.push_back(
      analysis_column<Row>("difference" + unit, [](const PairedAnalysis& a) { return a.mean_difference; }));
  columns.push_back(analysis_column<Row>("difference_ci_low" + unit, t_ci_low));
  columns.push_back(analysis_column<Row>("difference_ci_high" + unit, t_ci_high));
}
template <typename Row>
void add_relative_columns(std::vector<Column<Row>>& columns) {
  columns.push_back(analysis_column<Row>("relative", relative_value));
  columns.push_back(analysis_column<Row>("relative_ci_low", relative_low));
  columns.push_back(analysis_column<Row>("relative_ci_high", relative_high));
}
template <typename Row>
void add_t_test_columns(std::vector<Column<Row>>& columns) {
  columns.push_back(analysis_column<Row>("t", t_value));
  columns.push_back(analysis_column<Row>("df", t_df));
  columns.push_back(analysis_column<Row>("p", t_p));
}

/// The CSV's verdict against 5 % (cost_verdict_name) and the pairs a 2.5 % half-width needs.
template <typename Row>
Column<Row> verdict_column() {
  return text_column<Row>(
             "verdict_5pct",
             [](const Row& r) { return TableCell(std::string(cost_verdict_name(decide_cost(r.analysis).verdict))); })
      .files(kCsvColumn);
}
template <typename Row>
Column<Row> pairs_needed_column() {
  return text_column<Row>("pairs_for_2_5pct",
                          [](const Row& r) {
                            const auto needed = decide_cost(r.analysis).pairs_needed;
                            return needed ? TableCell(std::to_string(*needed)) : TableCell();
                          })
      .files(kCsvColumn);
}

/// The difference in seconds with its 95 % CI ("+0.1234 [+0.0100, +0.2000]"), the relative one in
/// % with its CI, and the t-test's p with " *" when significant: the table's cells of an application row.
std::string difference_cell(const PairedAnalysis& a);
std::string relative_cell(const PairedAnalysis& a);
std::string p_cell(const PairedAnalysis& a);

}  // namespace mpimon::results_detail
