#pragma once
// The report of a paired analysis (`mpimon stats paired`, docs/statistics.md): the rows a
// reader sees, the verdict in one line, a note when the Wilcoxon test contradicts the t-test, and
// the same as JSON.

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/results/stats.hpp"

namespace mpimon {

struct PairedReportOptions {
  std::string input;  ///< the file's name, for the title
  std::string unit;   ///< of the timings ("" for none)
  double confidence = 0.95;
  std::optional<std::size_t> processes;  ///< also the difference per process
};

struct PairedReport {
  std::string title;
  std::vector<std::pair<std::string, std::string>> rows;  ///< label, text
  std::string verdict;
  std::string note;  ///< empty, or why the Wilcoxon test disagrees
};

PairedReport paired_report(const PairedAnalysis& a, const PairedSamples& samples, const PairedReportOptions& o);

/// One line a reader can act on: the t-test's conclusion, its size and direction.
std::string paired_verdict(const PairedAnalysis& a, const std::string& unit);

/// The case where the companion test contradicts the t-test (skew or outliers likely); empty when
/// they agree. When every sign already agrees, the Wilcoxon p is as small as it gets for this n:
/// the test is too small to reach the level, which is no contradiction.
std::string paired_disagreement(const PairedAnalysis& a);

void write_paired_json(std::ostream& out, const PairedAnalysis& a, const PairedReportOptions& o);

}  // namespace mpimon
