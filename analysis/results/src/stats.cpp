#include "mpimon/results/stats.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numeric>
#include <string_view>

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "mpimon/base/error.hpp"
#include "mpimon/base/names.hpp"
#include "mpimon/base/summary.hpp"

namespace mpimon {

namespace {

// R's wilcox.test computes the exact null distribution below this many non-zero differences.
constexpr std::size_t kExactWilcoxonBelow = 50;

[[noreturn]] void raise_stats_error(const std::string& reason) { raise_error(Error::Kind::input, "", reason); }

std::string format_value(double value) {
  char text[32];
  auto result = std::to_chars(text, text + sizeof text, value);
  return {text, result.ptr};
}

void require_finite(std::span<const double> values, const char* name) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i]))
      raise_stats_error(std::string(name) + " value " + std::to_string(i + 1) + " is not a finite number");
  }
}

void require_probabilities(std::span<const double> p) {
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0 && p[i] <= 1))
      raise_stats_error("p-value " + std::to_string(i + 1) + " (" + format_value(p[i]) + ") is not in [0, 1]");
  }
}

/// The t-test, or the reason it is undefined. Like R's t.test, differences whose standard error
/// is negligible next to their mean are "essentially constant": t would be rounding noise or ±inf.
std::optional<StudentTTest> student_t_test(std::size_t n, double mean, double sd, double confidence,
                                           std::string& unavailable) {
  if (n < 2) {
    unavailable = "1 pair: the t-test needs at least 2";
    return std::nullopt;
  }
  const double standard_error = sd / std::sqrt(static_cast<double>(n));
  if (standard_error == 0 || standard_error < 10 * std::numeric_limits<double>::epsilon() * std::abs(mean)) {
    unavailable = "the differences are constant (sd " + format_value(sd) + "): the t-test is undefined";
    return std::nullopt;
  }
  StudentTTest test;
  test.df = static_cast<double>(n - 1);
  test.t = mean / standard_error;
  const boost::math::students_t distribution(test.df);
  // The complement forms keep their accuracy far in the tail, where 1 - cdf would round to 0.
  test.p_value = std::min(1.0, 2 * cdf(complement(distribution, std::abs(test.t))));
  const double critical = quantile(complement(distribution, (1 - confidence) / 2));
  test.ci = {mean - critical * standard_error, mean + critical * standard_error};
  return test;
}

Interval scaled(Interval interval, double divisor) {
  double a = interval.low / divisor, b = interval.high / divisor;
  return {std::min(a, b), std::max(a, b)};
}

/// Ranks of |x| from 1, ties sharing the average of the ranks they span.
std::vector<double> ranks_of_magnitudes(std::span<const double> x, bool& ties) {
  std::vector<std::size_t> order(x.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::abs(x[a]) < std::abs(x[b]); });
  std::vector<double> ranks(x.size());
  ties = false;
  for (std::size_t first = 0; first < order.size();) {
    std::size_t last = first;
    while (last + 1 < order.size() && std::abs(x[order[last + 1]]) == std::abs(x[order[first]])) ++last;
    if (last > first) ties = true;
    const double average = static_cast<double>(first + last) / 2 + 1;
    for (std::size_t k = first; k <= last; ++k) ranks[order[k]] = average;
    first = last + 1;
  }
  return ranks;
}

/// Number of subsets of {1..n} with each rank sum: the null distribution of V times 2^n.
std::vector<std::uint64_t> signed_rank_sum_counts(std::size_t n) {
  std::vector<std::uint64_t> counts(n * (n + 1) / 2 + 1, 0);
  counts[0] = 1;
  for (std::size_t rank = 1; rank <= n; ++rank) {
    for (std::size_t sum = counts.size() - 1; sum >= rank; --sum) counts[sum] += counts[sum - rank];
  }
  return counts;
}

/// R's exact two-sided p: twice the tail on the side of V away from the centre, at most 1.
double exact_signed_rank_p(std::size_t n, std::size_t v) {
  const auto counts = signed_rank_sum_counts(n);
  const double total = std::ldexp(1.0, static_cast<int>(n));
  const bool upper = 4 * v > n * (n + 1);
  std::uint64_t tail = 0;
  for (std::size_t sum = 0; sum < counts.size(); ++sum) {
    if (upper ? sum >= v : sum <= v) tail += counts[sum];
  }
  return std::min(1.0, 2 * static_cast<double>(tail) / total);
}

/// Normal approximation with the tie-corrected variance and a 0.5 continuity correction
/// toward the mean, as R's wilcox.test(correct = TRUE).
double normal_signed_rank_p(std::span<const double> ranks, double v) {
  const auto n = static_cast<double>(ranks.size());
  std::vector<double> sorted(ranks.begin(), ranks.end());
  std::sort(sorted.begin(), sorted.end());
  double tie_term = 0;  // sum of t^3 - t over groups of t tied ranks
  for (std::size_t first = 0; first < sorted.size();) {
    std::size_t last = first;
    while (last + 1 < sorted.size() && sorted[last + 1] == sorted[first]) ++last;
    const auto t = static_cast<double>(last - first + 1);
    tie_term += t * t * t - t;
    first = last + 1;
  }
  const double variance = n * (n + 1) * (2 * n + 1) / 24 - tie_term / 48;
  const double centred = v - n * (n + 1) / 4;
  const double corrected = centred > 0 ? centred - 0.5 : centred < 0 ? centred + 0.5 : 0.0;
  const double z = corrected / std::sqrt(variance);  // variance >= n(n+1)^2/16 > 0 for n >= 1
  const boost::math::normal standard_normal;
  return std::min(1.0, 2 * cdf(complement(standard_normal, std::abs(z))));
}

}  // namespace

bool PairedAnalysis::significant() const { return t_test && t_test->p_value < 1 - confidence; }

std::optional<WilcoxonSignedRank> wilcoxon_signed_rank(std::span<const double> differences) {
  require_finite(differences, "difference");
  std::vector<double> nonzero;
  for (double d : differences) {
    if (d != 0) nonzero.push_back(d);
  }
  if (nonzero.empty()) return std::nullopt;
  WilcoxonSignedRank test;
  test.n = nonzero.size();
  test.zeros = differences.size() - nonzero.size();
  const auto ranks = ranks_of_magnitudes(nonzero, test.ties);
  for (std::size_t i = 0; i < nonzero.size(); ++i) {
    if (nonzero[i] > 0) test.v += ranks[i];
  }
  test.exact = test.n < kExactWilcoxonBelow && !test.ties && test.zeros == 0;
  test.p_value =
      test.exact ? exact_signed_rank_p(test.n, static_cast<std::size_t>(test.v)) : normal_signed_rank_p(ranks, test.v);
  return test;
}

PairedAnalysis paired_analysis(std::span<const double> off, std::span<const double> on, double confidence) {
  if (off.size() != on.size())
    raise_stats_error("paired samples differ in size: " + std::to_string(off.size()) + " off, " +
                      std::to_string(on.size()) + " on");
  if (off.empty()) raise_stats_error("no pairs to analyse");
  if (!(confidence > 0 && confidence < 1))
    raise_stats_error("confidence must be between 0 and 1 (exclusive), not " + format_value(confidence));
  require_finite(off, "off");
  require_finite(on, "on");

  PairedAnalysis a;
  a.n = off.size();
  a.confidence = confidence;
  std::vector<double> differences(a.n);
  for (std::size_t i = 0; i < a.n; ++i) differences[i] = on[i] - off[i];
  // Finite timings near the double range can overflow on - off, a mean or the sd; Boost.Math
  // would then throw on the NaN that follows (found with the fuzz target of `mpimon stats paired`).
  for (std::size_t i = 0; i < a.n; ++i) {
    if (!std::isfinite(differences[i]))
      raise_stats_error("pair " + std::to_string(i + 1) + ": on - off overflows (" + format_value(on[i]) + " - " +
                        format_value(off[i]) + ")");
  }
  a.mean_off = mean_of(off);
  a.mean_on = mean_of(on);
  a.mean_difference = mean_of(differences);
  if (a.n >= 2) a.sd_difference = sample_sd(differences, a.mean_difference);
  if (!std::isfinite(a.mean_off) || !std::isfinite(a.mean_on) || !std::isfinite(a.mean_difference) ||
      (a.sd_difference && !std::isfinite(*a.sd_difference))) {
    raise_stats_error("the timings are too large to analyse: their mean or standard deviation overflows");
  }
  a.t_test = student_t_test(a.n, a.mean_difference, a.sd_difference.value_or(0), confidence, a.t_test_unavailable);
  if (a.mean_off > 0) {
    a.relative = Estimate{a.mean_difference / a.mean_off, std::nullopt};
    if (a.t_test) a.relative->ci = scaled(a.t_test->ci, a.mean_off);
  }
  a.wilcoxon = wilcoxon_signed_rank(differences);
  return a;
}

Estimate per_process(const PairedAnalysis& analysis, std::size_t processes) {
  if (processes == 0) raise_stats_error("the process count must be at least 1");
  const auto divisor = static_cast<double>(processes);
  Estimate estimate{analysis.mean_difference / divisor, std::nullopt};
  if (analysis.t_test) estimate.ci = scaled(analysis.t_test->ci, divisor);
  return estimate;
}

constexpr std::array<Named<CostVerdict>, 5> kCostVerdictNames{{{CostVerdict::below, "below"},
                                                               {CostVerdict::above, "above"},
                                                               {CostVerdict::nonzero, "nonzero"},
                                                               {CostVerdict::inconclusive, "inconclusive"},
                                                               {CostVerdict::no_interval, "no interval"}}};

const char* cost_verdict_name(CostVerdict v) { return to_name(kCostVerdictNames, v); }

CostVerdict cost_verdict(const std::optional<Interval>& interval, double threshold) {
  if (!interval) return CostVerdict::no_interval;
  if (interval->high < threshold) return CostVerdict::below;
  if (interval->low > threshold) return CostVerdict::above;
  return interval->low > 0 ? CostVerdict::nonzero : CostVerdict::inconclusive;
}

std::optional<std::size_t> pairs_for_half_width(double sd, double half_width, double confidence) {
  if (!std::isfinite(sd) || sd < 0)
    raise_stats_error("the sd of the differences must be >= 0, not " + format_value(sd));
  if (!(half_width > 0) || !std::isfinite(half_width)) {
    raise_stats_error("the half-width must be > 0, not " + format_value(half_width));
  }
  if (!(confidence > 0 && confidence < 1)) raise_stats_error("confidence must be in (0, 1)");
  constexpr double kMostPairs = 1e9;
  const double q = (1 + confidence) / 2;
  const double z = boost::math::quantile(boost::math::normal(), q);
  // t > z for every n, so n >= (z sd / h)^2: start there and step up (t nears z fast).
  const double normal_n = std::ceil(std::pow(z * sd / half_width, 2));
  if (normal_n > kMostPairs) return std::nullopt;
  for (auto n = std::max<std::size_t>(2, static_cast<std::size_t>(normal_n));; ++n) {
    if (static_cast<double>(n) > kMostPairs) return std::nullopt;
    const double half = student_t_quantile(q, static_cast<double>(n - 1)) * sd / std::sqrt(static_cast<double>(n));
    if (half <= half_width) return n;
  }
}

CostDecision decide_cost(const PairedAnalysis& a, double threshold, double half_width) {
  CostDecision d;
  d.verdict = cost_verdict(a.relative && a.relative->ci ? a.relative->ci : std::nullopt, threshold);
  if (a.sd_difference && a.mean_off > 0)
    d.pairs_needed = pairs_for_half_width(*a.sd_difference / a.mean_off, half_width, a.confidence);
  return d;
}

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  require_probabilities(p);
  // Walk from the largest p down, keeping the running minimum of p * m / rank so that the
  // adjusted values are monotone in p.
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  const auto m = static_cast<double>(p.size());
  std::vector<double> adjusted(p.size());
  double running_min = 1;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const auto rank = static_cast<double>(p.size() - k);
    running_min = std::min(running_min, p[order[k]] * m / rank);
    adjusted[order[k]] = running_min;
  }
  return adjusted;
}

std::vector<double> holm(std::span<const double> p) {
  require_probabilities(p);
  // From the smallest p up: the one of rank i (1-based) is multiplied by m - i + 1, and the
  // running maximum keeps the adjusted values monotone in p.
  std::vector<std::size_t> order(p.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adjusted(p.size());
  double running_max = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    running_max = std::max(running_max, std::min(1.0, p[order[k]] * static_cast<double>(p.size() - k)));
    adjusted[order[k]] = running_max;
  }
  return adjusted;
}

std::optional<WelchDifference> welch_difference(double mean_a, double sd_a, std::size_t n_a, double mean_b, double sd_b,
                                                std::size_t n_b) {
  if (n_a < 2 || n_b < 2) return std::nullopt;
  const double va = sd_a * sd_a / static_cast<double>(n_a), vb = sd_b * sd_b / static_cast<double>(n_b);
  if (!(va + vb > 0)) return std::nullopt;
  const double df =
      (va + vb) * (va + vb) / (va * va / static_cast<double>(n_a - 1) + vb * vb / static_cast<double>(n_b - 1));
  return WelchDifference{mean_a - mean_b, std::sqrt(va + vb), df};
}

double student_t_upper_tail(double t, double df) {
  return boost::math::cdf(boost::math::complement(boost::math::students_t(df), t));
}

double student_t_quantile(double q, double df) { return boost::math::quantile(boost::math::students_t(df), q); }

namespace {

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> fields;
  const bool comma_separated = line.find(',') != std::string_view::npos;
  const std::string_view blanks = " \t\r\v\f";
  if (comma_separated) {
    std::size_t start = 0;
    while (true) {
      std::size_t comma = line.find(',', start);
      std::string_view field = line.substr(start, comma == std::string_view::npos ? comma : comma - start);
      std::size_t first = field.find_first_not_of(blanks);
      field = first == std::string_view::npos ? std::string_view{}
                                              : field.substr(first, field.find_last_not_of(blanks) - first + 1);
      fields.push_back(field);
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return fields;
  }
  for (std::size_t start = line.find_first_not_of(blanks); start != std::string_view::npos;) {
    std::size_t end = line.find_first_of(blanks, start);
    fields.push_back(line.substr(start, end == std::string_view::npos ? end : end - start));
    start = line.find_first_not_of(blanks, end == std::string_view::npos ? line.size() : end);
  }
  return fields;
}

std::optional<double> parse_number(std::string_view field) {
  if (!field.empty() && field.front() == '+') field.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) return std::nullopt;
  return value;
}

std::string_view without_comment(std::string_view line) {
  line = line.substr(0, line.find('#'));
  std::size_t last = line.find_last_not_of(" \t\r\v\f");
  return last == std::string_view::npos ? std::string_view{} : line.substr(0, last + 1);
}

}  // namespace

PairedSamples read_paired_samples(const std::string& path) {
  if (std::filesystem::is_directory(path)) raise_input_error(path, 0, "is a directory, not a file of pairs");
  std::ifstream in(path, std::ios::binary);
  if (!in) raise_input_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  return parse_paired_samples(in, path);
}

PairedSamples parse_paired_samples(std::istream& in, const std::string& path) {
  PairedSamples samples;
  bool first_content_line = true;
  std::string text;
  for (std::size_t line_number = 1; std::getline(in, text); ++line_number) {
    const auto fields = split_fields(without_comment(text));
    if (fields.empty()) continue;
    std::vector<std::optional<double>> numbers;
    for (auto field : fields) numbers.push_back(parse_number(field));
    const bool any_number = std::any_of(numbers.begin(), numbers.end(), [](const auto& v) { return v.has_value(); });
    if (first_content_line && !any_number) {
      first_content_line = false;
      samples.header.assign(fields.begin(), fields.end());
      continue;
    }
    first_content_line = false;
    if (fields.size() != 2)
      raise_input_error(path, line_number, "expected 2 numbers, found " + std::to_string(fields.size()));
    for (std::size_t i = 0; i < 2; ++i) {
      if (fields[i].empty()) raise_input_error(path, line_number, "field " + std::to_string(i + 1) + " is empty");
      if (!numbers[i]) raise_input_error(path, line_number, "'" + std::string(fields[i]) + "' is not a number");
      if (!std::isfinite(*numbers[i]))
        raise_input_error(path, line_number, "'" + std::string(fields[i]) + "' is not a finite number");
    }
    samples.off.push_back(*numbers[0]);
    samples.on.push_back(*numbers[1]);
  }
  if (in.bad()) raise_input_error(path, 0, "read error");
  if (samples.off.empty()) raise_input_error(path, 0, "no pairs of numbers");
  return samples;
}

}  // namespace mpimon
