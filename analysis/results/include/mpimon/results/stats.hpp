#pragma once
// Paired statistics for monitoring-overhead measurements (docs/statistics.md).
//
// The unit of analysis is a pair of launches, one with monitoring off and one with it on, each
// summarised by one number (e.g. the median time per call of that launch). Iterations pooled
// across launches are not independent and must not be fed in here.
//
// Every function reports bad input (size mismatch, no pairs, non-finite values) as an
// mpimon::Error of kind input. Quantities that are undefined for the data given (a t-test on
// one pair, or on constant differences) are absent, with a reason, never NaN.

#include <cstddef>
#include <istream>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mpimon {

/// A closed interval [low, high], low <= high.
struct Interval {
  double low = 0;
  double high = 0;
};

/// Paired Student t-test on the differences on - off (the one-sample t-test of their mean).
struct StudentTTest {
  double t = 0;
  double df = 0;       ///< n - 1
  double p_value = 1;  ///< two-sided
  Interval ci;         ///< of the mean difference, at PairedAnalysis::confidence
};

/// Wilcoxon signed-rank test on the differences, computed as R's wilcox.test(paired = TRUE).
struct WilcoxonSignedRank {
  std::size_t n = 0;      ///< non-zero differences, the ones ranked
  std::size_t zeros = 0;  ///< zero differences, dropped before ranking
  bool ties = false;      ///< equal |differences| among the ranked ones (they get average ranks)
  bool exact = false;     ///< exact null distribution; else normal approximation
  double v = 0;           ///< sum of the ranks of the positive differences (R's V)
  double p_value = 1;     ///< two-sided
};

/// An estimate of the mean difference with its confidence interval (absent without a t-test).
struct Estimate {
  double value = 0;
  std::optional<Interval> ci;
};

struct PairedAnalysis {
  std::size_t n = 0;         ///< pairs
  double confidence = 0.95;  ///< of the intervals; the significance level is 1 - confidence
  double mean_off = 0;
  double mean_on = 0;
  double mean_difference = 0;           ///< mean of on - off
  std::optional<double> sd_difference;  ///< sample sd of on - off; needs n >= 2
  std::optional<StudentTTest> t_test;   ///< absent when undefined, see t_test_unavailable
  std::string t_test_unavailable;       ///< why there is no t-test ("" when there is one)
  /// mean_difference / mean_off, and the t-test's interval divided by mean_off (mean_off taken
  /// as exact); a fraction, 0.05 = 5 %. Absent when mean_off <= 0.
  std::optional<Estimate> relative;
  std::optional<WilcoxonSignedRank> wilcoxon;  ///< absent when every difference is zero

  /// Whether the t-test rejects "no difference" at 1 - confidence (its CI excludes 0).
  [[nodiscard]] bool significant() const;
};

/// Analyses pairs (off[i], on[i]). Throws mpimon::Error when the sizes differ, there are no
/// pairs, a value is not finite, or confidence is not in (0, 1).
PairedAnalysis paired_analysis(std::span<const double> off, std::span<const double> on, double confidence = 0.95);

/// The mean difference and its CI divided by a process count: "difference per call per process"
/// when the timings are per call of a collective over `processes` ranks. Throws when processes == 0.
Estimate per_process(const PairedAnalysis& analysis, std::size_t processes);

/// What an overhead's confidence interval (relative: 0.05 = 5 %) decides against a threshold.
enum class CostVerdict {
  below,         ///< the whole interval lies below the threshold
  above,         ///< the whole interval lies above it
  nonzero,       ///< above no cost but reaching the threshold: a cost, its size not settled
  inconclusive,  ///< spans both no cost and the threshold: decides nothing
  no_interval,   ///< no interval to judge (one pair, constant differences, no off time)
};
/// "below", "above", "nonzero", "inconclusive", "no interval".
const char* cost_verdict_name(CostVerdict v);
CostVerdict cost_verdict(const std::optional<Interval>& interval, double threshold);

/// The smallest number of pairs n >= 2 whose confidence interval of a mean difference has a
/// half-width of at most `half_width`, if the differences keep the sample sd `sd`:
/// t_{(1+confidence)/2, n-1} sd / sqrt(n) <= half_width. Absent above 10^9 pairs. Throws when sd
/// is negative or not finite, half_width <= 0, or confidence is not in (0, 1).
std::optional<std::size_t> pairs_for_half_width(double sd, double half_width, double confidence = 0.95);

/// An overhead judged against a threshold, with what it would take to decide it.
struct CostDecision {
  CostVerdict verdict = CostVerdict::no_interval;
  /// Pairs for a relative interval of +- half_width, from the observed spread of the differences
  /// relative to the mean off time (absent without an sd or an off time > 0).
  std::optional<std::size_t> pairs_needed;
};
/// The relative overhead's interval against `threshold` (0.05: a 5 % cost), and the pairs needed
/// for +- `half_width`. A half-width under threshold / 2 makes an interval too narrow to span both
/// no cost and the threshold: 2.5 % against 5 %.
CostDecision decide_cost(const PairedAnalysis& analysis, double threshold = 0.05, double half_width = 0.025);

/// Wilcoxon signed-rank test of "the differences are symmetric about 0". Zeros are dropped and
/// ties get average ranks, as in R; the p-value is exact for fewer than 50 non-zero differences
/// without ties or zeros, otherwise the normal approximation with tie and continuity corrections.
/// Returns nothing when no difference is non-zero.
std::optional<WilcoxonSignedRank> wilcoxon_signed_rank(std::span<const double> differences);

/// Benjamini-Hochberg adjusted p-values, in the order given (R's p.adjust(p, "BH")). Throws when
/// a p-value is not in [0, 1].
std::vector<double> benjamini_hochberg(std::span<const double> p);

/// Holm's step-down adjusted p-values, in the order given (R's p.adjust(p, "holm")): controls the
/// probability of any false rejection among the m tests, whatever their dependence. Throws when a
/// p-value is not in [0, 1].
std::vector<double> holm(std::span<const double> p);

/// Welch's comparison of two means from their summaries (mean, sample sd, n): the difference
/// a - b, its standard error and the Welch-Satterthwaite degrees of freedom (R's t.test with
/// var.equal = FALSE). Absent when a side has fewer than 2 values or both sds are 0.
struct WelchDifference {
  double difference = 0;
  double standard_error = 0;
  double df = 0;
};
std::optional<WelchDifference> welch_difference(double mean_a, double sd_a, std::size_t n_a, double mean_b, double sd_b,
                                                std::size_t n_b);

/// P(T_df > t), the upper tail of Student's t (accurate in the far tail).
double student_t_upper_tail(double t, double df);
/// The quantile q of Student's t with df degrees of freedom, 0 < q < 1.
double student_t_quantile(double q, double df);

/// Two columns of paired timings read from a text file.
struct PairedSamples {
  std::vector<double> off;
  std::vector<double> on;
  std::vector<std::string> header;  ///< the header line's fields, when there is one
};

/// Reads "off on" pairs, one per line, separated by a comma or by whitespace. Blank lines and
/// everything after '#' are ignored; a first line with no number in it is a header. Errors name
/// path:line, e.g. "runs.csv:7: expected 2 numbers, found 3".
PairedSamples read_paired_samples(const std::string& path);
/// The same from a stream; `path` names it in errors.
PairedSamples parse_paired_samples(std::istream& in, const std::string& path);

}  // namespace mpimon
