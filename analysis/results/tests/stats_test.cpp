// Paired statistics against published values (R's documented examples) and values derived by
// hand in the comments. Nothing here compares the code with its own earlier output.
//
// Tolerances follow the printed precision of the source: R prints t to 5 significant digits
// (t = -4.0621: tolerance 5e-5), p to 4 (0.002833: 5e-7), CI bounds to 8 (5e-8).

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "mpimon/results/stats.hpp"
#include "test_util.hpp"

namespace mpimon {
namespace {

// R's `sleep` data (Cushny & Peebles, as analysed by Student in 1908): extra hours of sleep of
// the same 10 patients (ID 1..10) under drug 1 (group 1) and drug 2 (group 2).
const std::vector<double> kSleepGroup1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};
const std::vector<double> kSleepGroup2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

// R's ?wilcox.test example (Hollander & Wolfe 1973, p. 29): depression scale at the first (x)
// and second (y) visit of 9 patients.
const std::vector<double> kDepressionX = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
const std::vector<double> kDepressionY = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};

// R's t.test(x, y, paired = TRUE) tests x - y; paired_analysis(off, on) tests on - off, so R's
// x is our `on` and R's y our `off`.

TEST(PairedTTest, SleepDataMatchesR) {
  // ?t.test: t.test(extra ~ group, data = sleep, paired = TRUE) prints
  //   t = -4.0621, df = 9, p-value = 0.002833
  //   95 percent confidence interval: -2.4598858 -0.7001142
  //   mean difference -1.58
  auto a = paired_analysis(kSleepGroup2, kSleepGroup1);
  EXPECT_EQ(a.n, 10u);
  ASSERT_TRUE(a.t_test) << a.t_test_unavailable;
  EXPECT_NEAR(a.t_test->t, -4.0621, 5e-5);
  EXPECT_EQ(a.t_test->df, 9.0);
  EXPECT_NEAR(a.t_test->p_value, 0.002833, 5e-7);
  EXPECT_NEAR(a.t_test->ci.low, -2.4598858, 5e-8);
  EXPECT_NEAR(a.t_test->ci.high, -0.7001142, 5e-8);
  EXPECT_NEAR(a.mean_difference, -1.58, 1e-12);
  // Means of the columns by hand: 23.3 / 10 and 7.5 / 10.
  EXPECT_NEAR(a.mean_off, 2.33, 1e-12);
  EXPECT_NEAR(a.mean_on, 0.75, 1e-12);
  EXPECT_TRUE(a.significant());
}

TEST(PairedTTest, SwappingColumnsFlipsTheSign) {
  auto a = paired_analysis(kSleepGroup1, kSleepGroup2);
  ASSERT_TRUE(a.t_test);
  EXPECT_NEAR(a.t_test->t, 4.0621, 5e-5);
  EXPECT_NEAR(a.t_test->p_value, 0.002833, 5e-7);
  EXPECT_NEAR(a.t_test->ci.low, 0.7001142, 5e-8);
  EXPECT_NEAR(a.t_test->ci.high, 2.4598858, 5e-8);
}

TEST(PairedTTest, SleepDataAt99Percent) {
  // Not printed by R's example: derived as mean ± t(0.995, 9) · sd / √10, with sd = 1.229995483
  // and t(0.995, 9) = 3.249835542 from the closed-form Student CDF for odd df (Abramowitz &
  // Stegun 26.7.3) solved by bisection; R's qt(0.995, 9) prints 3.249836.
  auto a = paired_analysis(kSleepGroup2, kSleepGroup1, 0.99);
  ASSERT_TRUE(a.t_test);
  EXPECT_NEAR(a.t_test->ci.low, -2.844051885, 5e-9);
  EXPECT_NEAR(a.t_test->ci.high, -0.315948115, 5e-9);
  EXPECT_NEAR(*a.sd_difference, 1.229995483, 5e-9);
  EXPECT_TRUE(a.significant());  // p = 0.0028 < 0.01
}

TEST(PairedTTest, DepressionDataMatchesR) {
  // t.test(x, y, paired = TRUE) prints t = 3.0354, df = 8, p-value = 0.01618,
  // 95 percent confidence interval: 0.1037787 0.7599991, mean difference 0.4318889.
  auto a = paired_analysis(kDepressionY, kDepressionX);
  ASSERT_TRUE(a.t_test);
  EXPECT_NEAR(a.t_test->t, 3.0354, 5e-5);
  EXPECT_EQ(a.t_test->df, 8.0);
  EXPECT_NEAR(a.t_test->p_value, 0.01618, 5e-6);
  EXPECT_NEAR(a.t_test->ci.low, 0.1037787, 5e-8);
  EXPECT_NEAR(a.t_test->ci.high, 0.7599991, 5e-8);
  EXPECT_NEAR(a.mean_difference, 0.4318889, 5e-8);
  // At 99 % the interval contains 0 (p = 0.016 > 0.01).
  EXPECT_FALSE(paired_analysis(kDepressionY, kDepressionX, 0.99).significant());
}

TEST(PairedAnalysis, RelativeDifferenceIsTheAbsoluteOneOverTheOffMean) {
  // Definition (docs/statistics.md): mean difference / mean off, and the CI bounds divided by
  // the same mean off. Sleep: -1.58 / 2.33, CI [-2.4598858, -0.7001142] / 2.33.
  auto a = paired_analysis(kSleepGroup2, kSleepGroup1);
  ASSERT_TRUE(a.relative);
  EXPECT_NEAR(a.relative->value, -0.678111588, 1e-9);
  ASSERT_TRUE(a.relative->ci);
  EXPECT_NEAR(a.relative->ci->low, -2.4598858 / 2.33, 5e-8);
  EXPECT_NEAR(a.relative->ci->high, -0.7001142 / 2.33, 5e-8);
}

TEST(PairedAnalysis, NoRelativeDifferenceWithoutAPositiveOffMean) {
  auto a = paired_analysis(std::vector<double>{-1, 0, 1}, std::vector<double>{0, 2, 1});
  EXPECT_FALSE(a.relative);
}

TEST(PairedAnalysis, PerProcessDividesDifferenceAndInterval) {
  auto a = paired_analysis(kSleepGroup2, kSleepGroup1);
  auto p = per_process(a, 4);
  EXPECT_NEAR(p.value, -0.395, 1e-12);
  ASSERT_TRUE(p.ci);
  EXPECT_NEAR(p.ci->low, -2.4598858 / 4, 5e-8);
  EXPECT_NEAR(p.ci->high, -0.7001142 / 4, 5e-8);
  EXPECT_NE(test::error_of([&] { per_process(a, 0); }), "");
}

TEST(PairedAnalysis, OnePairReportsWhatIsDefined) {
  auto a = paired_analysis(std::vector<double>{10}, std::vector<double>{12});
  EXPECT_EQ(a.n, 1u);
  EXPECT_EQ(a.mean_difference, 2.0);
  EXPECT_FALSE(a.sd_difference);
  EXPECT_FALSE(a.t_test);
  EXPECT_EQ(a.t_test_unavailable, "1 pair: the t-test needs at least 2");
  EXPECT_FALSE(a.significant());
  ASSERT_TRUE(a.relative);
  EXPECT_EQ(a.relative->value, 0.2);
  EXPECT_FALSE(a.relative->ci);
  EXPECT_FALSE(per_process(a, 2).ci);
  // Wilcoxon with one positive difference: V = 1 and P(V >= 1) = 1/2, doubled: p = 1.
  ASSERT_TRUE(a.wilcoxon);
  EXPECT_EQ(a.wilcoxon->v, 1.0);
  EXPECT_EQ(a.wilcoxon->p_value, 1.0);
}

TEST(PairedAnalysis, ConstantDifferencesHaveNoTTest) {
  auto a = paired_analysis(std::vector<double>{1, 2, 3}, std::vector<double>{2, 3, 4});
  EXPECT_EQ(a.mean_difference, 1.0);
  EXPECT_EQ(*a.sd_difference, 0.0);
  EXPECT_FALSE(a.t_test);
  EXPECT_EQ(a.t_test_unavailable, "the differences are constant (sd 0): the t-test is undefined");
  EXPECT_FALSE(a.significant());
  // All-zero differences: no t-test and no Wilcoxon (every difference dropped).
  auto zero = paired_analysis(std::vector<double>{5, 6}, std::vector<double>{5, 6});
  EXPECT_FALSE(zero.t_test);
  EXPECT_FALSE(zero.wilcoxon);
  EXPECT_EQ(zero.mean_difference, 0.0);
}

TEST(PairedAnalysis, RejectsBadInput) {
  std::vector<double> three = {1, 2, 3}, two = {1, 2}, none;
  EXPECT_EQ(test::error_of([&] { paired_analysis(three, two); }), "paired samples differ in size: 3 off, 2 on");
  EXPECT_EQ(test::error_of([&] { paired_analysis(none, none); }), "no pairs to analyse");
  std::vector<double> with_nan = {1, std::nan(""), 3};
  EXPECT_EQ(test::error_of([&] { paired_analysis(three, with_nan); }), "on value 2 is not a finite number");
  EXPECT_EQ(test::error_of([&] { paired_analysis(three, three, 1.0); }),
            "confidence must be between 0 and 1 (exclusive), not 1");
}

// Found with the fuzz target of `mpimon stats paired` (analysis/fuzz/regressions/paired_csv): finite timings
// whose difference, mean or sd overflows reached Boost.Math as a NaN, which threw its own error.
TEST(PairedAnalysis, RejectsTimingsThatOverflow) {
  std::vector<double> off = {1e308, -1e308, 1}, on = {-1e308, 1e308, 2};
  EXPECT_EQ(test::error_of([&] { paired_analysis(off, on); }), "pair 1: on - off overflows (-1e+308 - 1e+308)");
  std::vector<double> big = {1.5e308, 1.5e308, 1.5e308}, bigger = {1.6e308, 1.7e308, 1.6e308};
  EXPECT_EQ(test::error_of([&] { paired_analysis(big, bigger); }),
            "the timings are too large to analyse: their mean or standard deviation overflows");
}

TEST(Wilcoxon, SleepDataMatchesR) {
  // wilcox.test(group1, group2, paired = TRUE) prints V = 0, p-value = 0.009091, and warns that
  // it cannot compute an exact p-value with ties and with zeroes. By hand: the differences
  // g1 - g2 are -1.2 -2.4 -1.3 -1.3 0 -1.0 -1.8 -0.8 -4.6 -1.4; the 0 is dropped (n = 9), all
  // the others are negative so V = 0; the two 1.3 share rank 4.5, so the variance is
  // 9·10·19/24 - (2³-2)/48 = 71.125 and z = (0 - 22.5 + 0.5) / √71.125 = -2.6086.
  auto a = paired_analysis(kSleepGroup2, kSleepGroup1);
  ASSERT_TRUE(a.wilcoxon);
  EXPECT_EQ(a.wilcoxon->v, 0.0);
  EXPECT_EQ(a.wilcoxon->n, 9u);
  EXPECT_EQ(a.wilcoxon->zeros, 1u);
  EXPECT_TRUE(a.wilcoxon->ties);
  EXPECT_FALSE(a.wilcoxon->exact);
  EXPECT_NEAR(a.wilcoxon->p_value, 0.009091, 5e-7);
}

TEST(Wilcoxon, DepressionDataExact) {
  // ?wilcox.test: wilcox.test(x, y, paired = TRUE, alternative = "greater") prints V = 40,
  // p-value = 0.01953 (= 10/512). By hand: the differences x - y have |d| ranks 1..9 with the
  // two negative ones (-0.08, -0.147) at ranks 2 and 3, so V = 45 - 5 = 40. P(V >= 40) =
  // P(V <= 5) by symmetry; subsets of {1..9} with sum <= 5: {}, {1}, {2}, {3}, {1,2}, {4},
  // {1,3}, {5}, {1,4}, {2,3} = 10 of 2⁹ = 512. Two-sided: 20/512 = 0.0390625.
  auto a = paired_analysis(kDepressionY, kDepressionX);
  ASSERT_TRUE(a.wilcoxon);
  EXPECT_EQ(a.wilcoxon->v, 40.0);
  EXPECT_TRUE(a.wilcoxon->exact);
  EXPECT_FALSE(a.wilcoxon->ties);
  EXPECT_NEAR(a.wilcoxon->p_value, 20.0 / 512, 1e-15);
}

TEST(Wilcoxon, SmallExactCaseByEnumeration) {
  // d = +0.5 -1.5 +2.5 +3.5: ranks 1 2 3 4, V = 1 + 3 + 4 = 8. The 16 subsets of {1,2,3,4}
  // have sums 0:1 1:1 2:1 3:2 4:2 5:2 6:2 7:2 8:1 9:1 10:1 (counts). V = 8 is above the mean 5,
  // so p = 2 · P(V >= 8) = 2 · 3/16 = 0.375.
  auto w = wilcoxon_signed_rank(std::vector<double>{0.5, -1.5, 2.5, 3.5});
  ASSERT_TRUE(w);
  EXPECT_EQ(w->v, 8.0);
  EXPECT_TRUE(w->exact);
  EXPECT_DOUBLE_EQ(w->p_value, 0.375);
  // Five positive differences: V = 15 is the maximum, reached by 1 subset of 32: p = 2/32.
  auto all_up = wilcoxon_signed_rank(std::vector<double>{1, 2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(all_up->p_value, 0.0625);
  // Mirror image: V = 0, same p.
  auto all_down = wilcoxon_signed_rank(std::vector<double>{-1, -2, -3, -4, -5});
  EXPECT_EQ(all_down->v, 0.0);
  EXPECT_DOUBLE_EQ(all_down->p_value, 0.0625);
}

TEST(Wilcoxon, ExactBelowFiftyNormalFromFifty) {
  // 49 positive distinct differences: only the full set reaches V = 1225, so p = 2 / 2^49.
  std::vector<double> d(49);
  for (std::size_t i = 0; i < d.size(); ++i) d[i] = static_cast<double>(i + 1);
  auto w49 = wilcoxon_signed_rank(d);
  EXPECT_TRUE(w49->exact);
  EXPECT_DOUBLE_EQ(w49->p_value, std::ldexp(2.0, -49));
  // 50: normal approximation. V = 1275, mean 637.5, variance 50·51·101/24 = 10731.25,
  // z = (637.5 - 0.5) / √10731.25 = 6.149139, p = 2 (1 - Φ(z)) = 7.790492e-10 (math.erfc).
  d.push_back(50);
  auto w50 = wilcoxon_signed_rank(d);
  EXPECT_FALSE(w50->exact);
  EXPECT_EQ(w50->v, 1275.0);
  EXPECT_NEAR(w50->p_value, 7.790492e-10, 5e-16);
}

TEST(Wilcoxon, AllTiedUsesTheTieCorrectedVariance) {
  // d = 1 1 1: ranks 2 2 2, V = 6, mean 3, variance 3·4·7/24 - (3³-3)/48 = 3.5 - 0.5 = 3,
  // z = (3 - 0.5) / √3 = 1.443376, p = 2 (1 - Φ(z)) = 0.1489147.
  auto w = wilcoxon_signed_rank(std::vector<double>{1, 1, 1});
  EXPECT_TRUE(w->ties);
  EXPECT_FALSE(w->exact);
  EXPECT_EQ(w->v, 6.0);
  EXPECT_NEAR(w->p_value, 0.1489147, 5e-8);
}

TEST(BenjaminiHochberg, EqualAdjustmentsAsInR) {
  // p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "BH") prints 0.05 0.05 0.05 0.05 0.05:
  // each p_(i) · 5 / i is 0.05.
  auto adjusted = benjamini_hochberg(std::vector<double>{0.01, 0.02, 0.03, 0.04, 0.05});
  ASSERT_EQ(adjusted.size(), 5u);
  for (double q : adjusted) EXPECT_NEAR(q, 0.05, 1e-15);
}

TEST(BenjaminiHochberg, RunningMinimumByHand) {
  // p = 0.010 0.040 0.030 0.005 0.200 0.045, m = 6. Sorted with rank i and p·6/i:
  //   0.005 (1) 0.030 | 0.010 (2) 0.030 | 0.030 (3) 0.060 | 0.040 (4) 0.060 | 0.045 (5) 0.054 |
  //   0.200 (6) 0.200.
  // Running minimum from the largest: 0.200, 0.054, min(0.060, 0.054) = 0.054, 0.054, 0.030, 0.030.
  // Back in the input order: 0.030 0.054 0.054 0.030 0.200 0.054.
  auto adjusted = benjamini_hochberg(std::vector<double>{0.010, 0.040, 0.030, 0.005, 0.200, 0.045});
  const std::vector<double> expected = {0.030, 0.054, 0.054, 0.030, 0.200, 0.054};
  ASSERT_EQ(adjusted.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(adjusted[i], expected[i], 1e-12) << "p " << i;
}

TEST(BenjaminiHochberg, EdgeCases) {
  EXPECT_TRUE(benjamini_hochberg(std::vector<double>{}).empty());
  EXPECT_EQ(benjamini_hochberg(std::vector<double>{0.3}), std::vector<double>{0.3});
  // Ties: p.adjust(c(0.02, 0.02), "BH") = 0.02 0.02 (0.02·2/2 at rank 2, min(0.04, 0.02) at rank 1).
  auto tied = benjamini_hochberg(std::vector<double>{0.02, 0.02});
  EXPECT_NEAR(tied[0], 0.02, 1e-15);
  EXPECT_NEAR(tied[1], 0.02, 1e-15);
  EXPECT_EQ(test::error_of([] {
              benjamini_hochberg(std::vector<double>{0.1, 1.5});
            }),
            "p-value 2 (1.5) is not in [0, 1]");
  EXPECT_NE(test::error_of([] { benjamini_hochberg(std::vector<double>{std::nan("")}); }), "");
}

TEST(ReadPairedSamples, HeaderCommentsAndSeparators) {
  test::TempDir dir;
  auto path = dir.write("runs.csv",
                        "# launch pairs\n"
                        "off,on\n"
                        "\n"
                        "100, 105\n"
                        "101\t107   # second pair\r\n"
                        "  99 104\n"
                        "+1e2,1.02e2\n");
  auto samples = read_paired_samples(path);
  EXPECT_EQ(samples.off, (std::vector<double>{100, 101, 99, 100}));
  EXPECT_EQ(samples.on, (std::vector<double>{105, 107, 104, 102}));
  EXPECT_EQ(samples.header, (std::vector<std::string>{"off", "on"}));
}

TEST(ReadPairedSamples, ErrorsNameFileAndLine) {
  test::TempDir dir;
  auto error_for = [&](const std::string& content) {
    auto path = dir.write("bad.csv", content);
    return test::error_of([&] { read_paired_samples(path); });
  };
  const std::string where = dir.file("bad.csv");
  EXPECT_EQ(error_for("off,on\n1,2\n3,4,5\n"), where + ":3: expected 2 numbers, found 3");
  EXPECT_EQ(error_for("1 2\n3\n"), where + ":2: expected 2 numbers, found 1");
  EXPECT_EQ(error_for("1,2\n3,abc\n"), where + ":2: 'abc' is not a number");
  EXPECT_EQ(error_for("1,x\n"), where + ":1: 'x' is not a number");  // a number in it: not a header
  EXPECT_EQ(error_for("1,,2\n"), where + ":1: expected 2 numbers, found 3");
  EXPECT_EQ(error_for("1,\n"), where + ":1: field 2 is empty");
  EXPECT_EQ(error_for("1,inf\n"), where + ":1: 'inf' is not a finite number");
  EXPECT_EQ(error_for("off,on\n# nothing\n"), where + ": no pairs of numbers");
  EXPECT_EQ(error_for("off,on\nbefore,after\n"), where + ":2: 'before' is not a number");
  EXPECT_EQ(test::error_of([&] { read_paired_samples(dir.file("missing.csv")); }),
            dir.file("missing.csv") + ": cannot open: No such file or directory");
}

// Welch's unpaired comparison, used by `mpimon gate` to compare an overhead with its baseline.
TEST(WelchDifference, SleepDataMatchesR) {
  // ?t.test: t.test(extra ~ group, data = sleep) (Welch, the default) prints
  //   t = -1.8608, df = 17.776, p-value = 0.07939
  //   95 percent confidence interval: -3.3654832  0.2054832
  auto sd = [](const std::vector<double>& v) {
    double m = 0, ss = 0;
    for (double x : v) m += x / static_cast<double>(v.size());
    for (double x : v) ss += (x - m) * (x - m);
    return std::sqrt(ss / static_cast<double>(v.size() - 1));
  };
  auto w = welch_difference(0.75, sd(kSleepGroup1), 10, 2.33, sd(kSleepGroup2), 10);
  ASSERT_TRUE(w);
  EXPECT_NEAR(w->difference, -1.58, 1e-12);
  EXPECT_NEAR(w->difference / w->standard_error, -1.8608, 5e-5);
  EXPECT_NEAR(w->df, 17.776, 5e-4);
  EXPECT_NEAR(2 * student_t_upper_tail(std::fabs(w->difference / w->standard_error), w->df), 0.07939, 5e-6);
  const double half = student_t_quantile(0.975, w->df) * w->standard_error;
  EXPECT_NEAR(w->difference - half, -3.3654832, 5e-8);
  EXPECT_NEAR(w->difference + half, 0.2054832, 5e-8);
}

TEST(WelchDifference, UndefinedWithoutSpreadOrPairs) {
  EXPECT_FALSE(welch_difference(1, 0, 5, 2, 0, 5));
  EXPECT_FALSE(welch_difference(1, 1, 1, 2, 1, 5));
}

TEST(Holm, MatchesHandDerivation) {
  // p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm"): sorted, times 5 4 3 2 1 = 0.05 0.08 0.09
  // 0.08 0.05, then the running maximum: 0.05 0.08 0.09 0.09 0.09.
  const std::vector<double> p = {0.03, 0.01, 0.05, 0.02, 0.04};
  auto a = holm(p);
  const std::vector<double> expected = {0.09, 0.05, 0.09, 0.08, 0.09};
  for (std::size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(a[i], expected[i], 1e-15) << i;
  // Capped at 1: 0.6 * 2 = 1.2.
  auto b = holm(std::vector<double>{0.6, 0.7});
  EXPECT_EQ(b[0], 1.0);
  EXPECT_EQ(b[1], 1.0);
  EXPECT_THROW(holm(std::vector<double>{1.5}), Error);
}

// Pairs for a half-width: the smallest n with t_{0.975, n-1} sd / sqrt(n) <= h, checked on both
// sides with Student's t from printed tables (Fisher & Yates; any statistics textbook).
TEST(PairsForHalfWidth, SmallestNFromTTables) {
  // sd 1, h 1: n = 6 gives t_5 = 2.5706, 2.5706 / sqrt(6) = 1.0494 > 1; n = 7 gives t_6 = 2.4469,
  // 2.4469 / sqrt(7) = 0.9248 <= 1.
  EXPECT_EQ(pairs_for_half_width(1.0, 1.0), std::optional<std::size_t>(7));
  // sd 0.1, h 0.025 (a 10 % spread, +-2.5 %): n = 63 gives t_62 = 1.9990, 0.19990 / 7.9373 =
  // 0.025185 > 0.025; n = 64 gives t_63 = 1.9983, 0.19983 / 8 = 0.024979.
  EXPECT_EQ(pairs_for_half_width(0.1, 0.025), std::optional<std::size_t>(64));
  // 99 %: sd 1, h 1: n = 10 gives t_9 = 3.2498, / 3.1623 = 1.0277 > 1; n = 11 gives t_10 = 3.1693,
  // / 3.3166 = 0.9556.
  EXPECT_EQ(pairs_for_half_width(1.0, 1.0, 0.99), std::optional<std::size_t>(11));
  EXPECT_EQ(pairs_for_half_width(0.0, 0.01), std::optional<std::size_t>(2));  // no spread: the fewest pairs
  EXPECT_EQ(pairs_for_half_width(1.0, 1e-6), std::nullopt);                   // more than 10^9 pairs
  EXPECT_THROW(pairs_for_half_width(-1.0, 0.01), Error);
  EXPECT_THROW(pairs_for_half_width(1.0, 0.0), Error);
  EXPECT_THROW(pairs_for_half_width(1.0, 0.1, 1.0), Error);
}

TEST(CostVerdict, IntervalAgainstThreshold) {
  EXPECT_EQ(cost_verdict(Interval{-0.25, 0.29}, 0.05), CostVerdict::inconclusive);  // the example
  EXPECT_EQ(cost_verdict(Interval{-0.02, 0.03}, 0.05), CostVerdict::below);
  EXPECT_EQ(cost_verdict(Interval{-0.10, -0.01}, 0.05), CostVerdict::below);  // faster with monitoring: below
  EXPECT_EQ(cost_verdict(Interval{0.01, 0.04}, 0.05), CostVerdict::below);
  EXPECT_EQ(cost_verdict(Interval{0.06, 0.10}, 0.05), CostVerdict::above);
  EXPECT_EQ(cost_verdict(Interval{0.02, 0.08}, 0.05), CostVerdict::nonzero);
  EXPECT_EQ(cost_verdict(Interval{0.0, 0.08}, 0.05), CostVerdict::inconclusive);  // 0 itself is in it
  EXPECT_EQ(cost_verdict(std::nullopt, 0.05), CostVerdict::no_interval);
  EXPECT_STREQ(cost_verdict_name(CostVerdict::inconclusive), "inconclusive");
}

// Off 10 s each, on 10 + d with d = -2, 3, -1, 4: mean 1, sd sqrt(26/3) = 2.94392, t_{0.975,3} =
// 3.18245: CI 1 +- 4.6845, relative [-36.8 %, +56.8 %]: both no cost and 5 % inside. Pairs for
// +-2.5 %: relative sd 0.294392; the normal bound (1.959964 x 0.294392 / 0.025)^2 = 532.7, and
// with t_{0.975,535} = 1.96443, (1.96443 x 0.294392 / 0.025)^2 = 535.1: 536 pairs.
TEST(DecideCost, InconclusiveWithPairsNeeded) {
  const std::vector<double> off = {10, 10, 10, 10}, on = {8, 13, 9, 14};
  const PairedAnalysis a = paired_analysis(off, on);
  ASSERT_TRUE(a.relative && a.relative->ci);
  EXPECT_NEAR(a.relative->ci->low, -0.36845, 5e-5);
  EXPECT_NEAR(a.relative->ci->high, 0.56845, 5e-5);
  const CostDecision d = decide_cost(a);
  EXPECT_EQ(d.verdict, CostVerdict::inconclusive);
  EXPECT_EQ(d.pairs_needed, std::optional<std::size_t>(536));
  // Against a 100 % limit the same interval lies below.
  EXPECT_EQ(decide_cost(a, 1.0, 0.5).verdict, CostVerdict::below);
  // One pair: no interval, no spread.
  const std::vector<double> one_off = {10}, one_on = {11};
  const CostDecision none = decide_cost(paired_analysis(one_off, one_on));
  EXPECT_EQ(none.verdict, CostVerdict::no_interval);
  EXPECT_EQ(none.pairs_needed, std::nullopt);
}

}  // namespace
}  // namespace mpimon
