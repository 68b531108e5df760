// Unit tests of the paired report's verdict and note (paired_report.hpp), from analyses set by
// hand: the expected sentences are written from docs/statistics.md.

#include "mpimon/results/paired_report.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace mpimon {
namespace {

PairedAnalysis analysis(double difference, Interval ci, double p) {
  PairedAnalysis a;
  a.n = 5;
  a.mean_off = 100;
  a.mean_on = 100 + difference;
  a.mean_difference = difference;
  a.sd_difference = 4;
  a.t_test = StudentTTest{2.5, 4, p, ci};
  return a;
}

TEST(PairedReport, VerdictSaysDirectionSizeAndInterval) {
  EXPECT_EQ(paired_verdict(analysis(10, {5, 15}, 0.0075), "ns"),
            "significant at 5 %: on is slower by 10 ns (95 % CI 5..15 ns)");
  EXPECT_EQ(paired_verdict(analysis(-10, {-15, -5}, 0.0075), "ns"),
            "significant at 5 %: on is faster by 10 ns (95 % CI 5..15 ns)");
  EXPECT_EQ(paired_verdict(analysis(10, {-1, 21}, 0.06), ""),
            "not significant at 5 % (p = 0.06): difference +10, 95 % CI -1..21");
  PairedAnalysis none;
  none.t_test_unavailable = "one pair";
  EXPECT_EQ(paired_verdict(none, "ns"), "no t-test: one pair");
}

TEST(PairedReport, NoteWhenWilcoxonCannotReachTheLevel) {
  PairedAnalysis a = analysis(10, {5, 15}, 0.0075);
  a.wilcoxon = WilcoxonSignedRank{5, 0, false, true, 15, 0.0625};  // all 5 positive: 2 / 2^5
  EXPECT_EQ(paired_disagreement(a),
            "note: the Wilcoxon test cannot reach p < 5 % with 5 non-zero differences "
            "(all of one sign give p = 0.0625); more launch pairs are needed");
  a.wilcoxon->p_value = 0.03;  // agrees with the t-test
  EXPECT_EQ(paired_disagreement(a), "");
}

TEST(PairedReport, RowsAndJson) {
  PairedAnalysis a = analysis(10, {5, 15}, 0.0075);
  PairedSamples samples;
  samples.header = {"before", "after"};
  const PairedReport r = paired_report(a, samples, {"t.csv", "ns", 0.95, 2});
  EXPECT_EQ(r.title, "paired analysis of t.csv (on - off)");
  ASSERT_GE(r.rows.size(), 4U);
  EXPECT_EQ(r.rows[0], (std::pair<std::string, std::string>{"pairs", "5 (off = 'before', on = 'after')"}));
  EXPECT_EQ(r.rows[3], (std::pair<std::string, std::string>{"difference", "+10 ns, 95 % CI 5..15 ns"}));
  std::ostringstream json;
  write_paired_json(json, a, {"t.csv", "ns", 0.95, std::nullopt});
  EXPECT_NE(json.str().find("\"per_process\": null"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\"verdict\": \"significant at 5 %: on is slower by 10 ns (95 % CI 5..15 ns)\""),
            std::string::npos);
}

}  // namespace
}  // namespace mpimon
