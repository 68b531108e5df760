// mpimon stats paired: the paired analysis of docs/statistics.md on a user's own two columns.

#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/json.hpp"
#include "mpimon/stats.hpp"

namespace mpimon::cli {

namespace {

struct ReportOptions {
  std::string input;
  std::string unit;
  double confidence = 0.95;
  std::optional<std::size_t> processes;
};

std::string printf_text(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

/// 6 significant digits for estimates, 4 for statistics and p-values (R prints 4).
std::string estimate_text(double value) { return printf_text("%.6g", value); }
std::string signed_text(double value) { return printf_text("%+.6g", value); }
std::string statistic_text(double value) { return printf_text("%.4g", value); }

std::string interval_text(const Interval& ci, const std::string& suffix) {
  return estimate_text(ci.low) + ".." + estimate_text(ci.high) + suffix;
}

/// A fraction as a percentage, 4 significant digits: the CI is rarely known better than that.
std::string percent_text(double fraction, const char* format) { return printf_text(format, 100 * fraction); }

std::string level_text(double confidence) { return printf_text("%g", confidence * 100) + " %"; }
std::string alpha_text(double confidence) { return printf_text("%g", (1 - confidence) * 100) + " %"; }

std::string unit_suffix(const std::string& unit) { return unit.empty() ? "" : " " + unit; }
std::string with_unit(const std::string& number, const std::string& unit) { return number + unit_suffix(unit); }

/// One line a reader can act on: the t-test's conclusion, its size and direction.
std::string verdict(const PairedAnalysis& a, const std::string& unit) {
  if (!a.t_test) return "no t-test: " + a.t_test_unavailable;
  const Interval& ci = a.t_test->ci;
  const std::string level = level_text(a.confidence) + " CI ";
  if (!a.significant()) {
    return "not significant at " + alpha_text(a.confidence) + " (p = " + statistic_text(a.t_test->p_value) +
           "): difference " + with_unit(signed_text(a.mean_difference), unit) + ", " + level +
           interval_text(ci, unit_suffix(unit));
  }
  const bool slower = a.mean_difference > 0;
  // Magnitudes read more naturally after "slower by"/"faster by"; the CI excludes 0 here.
  const Interval magnitude = slower ? ci : Interval{-ci.high, -ci.low};
  return "significant at " + alpha_text(a.confidence) + ": on is " + (slower ? "slower" : "faster") + " by " +
         with_unit(estimate_text(std::abs(a.mean_difference)), unit) + " (" + level +
         interval_text(magnitude, unit_suffix(unit)) + ")";
}

/// Flags the case where the companion test contradicts the t-test (skew or outliers likely).
/// When every sign already agrees, the Wilcoxon p is as small as it gets for this n: the test is
/// too small to reach the level, which is no contradiction.
std::string disagreement(const PairedAnalysis& a) {
  if (!a.t_test || !a.wilcoxon) return "";
  const auto& w = *a.wilcoxon;
  const bool wilcoxon_significant = w.p_value < 1 - a.confidence;
  if (wilcoxon_significant == a.significant()) return "";
  const auto n = static_cast<double>(w.n);
  if (w.v == 0 || w.v == n * (n + 1) / 2) {
    return "note: the Wilcoxon test cannot reach p < " + alpha_text(a.confidence) + " with " + std::to_string(w.n) +
           " non-zero difference" + (w.n == 1 ? "" : "s") + " (all of one sign give p = " + statistic_text(w.p_value) +
           "); more launch pairs are needed";
  }
  return "note: the Wilcoxon test disagrees (p = " + statistic_text(w.p_value) +
         "): the differences may be skewed or have outliers; look at them";
}

void print_row(const std::string& label, const std::string& text) {
  std::printf("%-15s %s\n", label.c_str(), text.c_str());
}

void print_report(const PairedAnalysis& a, const PairedSamples& samples, const ReportOptions& o) {
  const std::string level = ", " + level_text(a.confidence) + " CI ";
  std::printf("paired analysis of %s (on - off)\n", o.input.c_str());
  std::string pairs = std::to_string(a.n);
  if (samples.header.size() == 2) pairs += " (off = '" + samples.header[0] + "', on = '" + samples.header[1] + "')";
  print_row("pairs", pairs);
  print_row("mean off", with_unit(estimate_text(a.mean_off), o.unit));
  print_row("mean on", with_unit(estimate_text(a.mean_on), o.unit));
  std::string difference = with_unit(signed_text(a.mean_difference), o.unit);
  if (a.t_test) difference += level + interval_text(a.t_test->ci, unit_suffix(o.unit));
  print_row("difference", difference);
  if (a.sd_difference) print_row("sd of diffs", with_unit(estimate_text(*a.sd_difference), o.unit));
  if (a.t_test) {
    print_row("t-test", "t = " + statistic_text(a.t_test->t) + ", df = " + printf_text("%g", a.t_test->df) +
                            ", p = " + statistic_text(a.t_test->p_value));
  } else {
    print_row("t-test", "none: " + a.t_test_unavailable);
  }
  if (a.relative) {
    std::string relative = percent_text(a.relative->value, "%+.4g") + " % of mean off";
    if (a.relative->ci)
      relative +=
          level + percent_text(a.relative->ci->low, "%.4g") + ".." + percent_text(a.relative->ci->high, "%.4g") + " %";
    print_row("relative", relative);
  } else {
    print_row("relative", "none: the mean of off is not positive");
  }
  if (o.processes) {
    Estimate p = per_process(a, *o.processes);
    std::string text =
        with_unit(signed_text(p.value), o.unit) + " per process (difference / " + std::to_string(*o.processes) + ")";
    if (p.ci) text += level + interval_text(*p.ci, unit_suffix(o.unit));
    print_row("per process", text);
  }
  if (a.wilcoxon) {
    const auto& w = *a.wilcoxon;
    std::string method = w.exact ? "exact" : "normal approximation";
    if (w.zeros) method += ", " + std::to_string(w.zeros) + " zero difference" + (w.zeros == 1 ? "" : "s") + " dropped";
    if (w.ties) method += ", ties";
    print_row("Wilcoxon", "V = " + printf_text("%g", w.v) + ", p = " + statistic_text(w.p_value) + " (" + method + ")");
  } else {
    print_row("Wilcoxon", "none: every difference is zero");
  }
  std::printf("verdict: %s\n", verdict(a, o.unit).c_str());
  if (auto note = disagreement(a); !note.empty()) std::printf("%s\n", note.c_str());
}

// --- JSON: written by hand, the output is small and flat. Absent values are null. ---

std::string json_string(const std::string& text) { return "\"" + json_escape(text) + "\""; }

std::string json_number(double value) {
  if (!std::isfinite(value)) return "null";  // never expected: the library reports no NaN
  char text[32];
  auto result = std::to_chars(text, text + sizeof text, value);
  return {text, result.ptr};
}

std::string json_interval(const std::optional<Interval>& ci) {
  return ci ? "[" + json_number(ci->low) + ", " + json_number(ci->high) + "]" : "null";
}

std::string json_estimate(const std::optional<Estimate>& e) {
  return e ? "{\"value\": " + json_number(e->value) + ", \"ci\": " + json_interval(e->ci) + "}" : "null";
}

void print_json(const PairedAnalysis& a, const ReportOptions& o) {
  std::ostringstream out;
  out << "{\n  \"file\": " << json_string(o.input) << ",\n  \"unit\": " << json_string(o.unit)
      << ",\n  \"confidence\": " << json_number(a.confidence) << ",\n  \"n\": " << a.n
      << ",\n  \"mean_off\": " << json_number(a.mean_off) << ",\n  \"mean_on\": " << json_number(a.mean_on)
      << ",\n  \"difference\": {\"mean\": " << json_number(a.mean_difference)
      << ", \"sd\": " << (a.sd_difference ? json_number(*a.sd_difference) : "null")
      << ", \"ci\": " << json_interval(a.t_test ? std::optional(a.t_test->ci) : std::nullopt) << "}";
  out << ",\n  \"t_test\": ";
  if (a.t_test) {
    out << "{\"t\": " << json_number(a.t_test->t) << ", \"df\": " << json_number(a.t_test->df)
        << ", \"p_value\": " << json_number(a.t_test->p_value) << "}";
  } else {
    out << "null";
  }
  out << ",\n  \"t_test_unavailable\": " << (a.t_test ? "null" : json_string(a.t_test_unavailable));
  out << ",\n  \"relative\": " << json_estimate(a.relative);
  out << ",\n  \"per_process\": ";
  if (o.processes) {
    out << "{\"processes\": " << *o.processes << ", \"estimate\": " << json_estimate(per_process(a, *o.processes))
        << "}";
  } else {
    out << "null";
  }
  out << ",\n  \"wilcoxon\": ";
  if (a.wilcoxon) {
    const auto& w = *a.wilcoxon;
    out << "{\"v\": " << json_number(w.v) << ", \"n\": " << w.n << ", \"zeros\": " << w.zeros
        << ", \"ties\": " << (w.ties ? "true" : "false") << ", \"exact\": " << (w.exact ? "true" : "false")
        << ", \"p_value\": " << json_number(w.p_value) << "}";
  } else {
    out << "null";
  }
  out << ",\n  \"significant\": " << (a.significant() ? "true" : "false")
      << ",\n  \"verdict\": " << json_string(verdict(a, o.unit)) << "\n}\n";
  std::cout << out.str();
}

}  // namespace

int stats_paired_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.csv [--processes P] [--confidence 0.95] [--unit ns] [--json]",
              "Paired analysis of two columns of timings, off and on, one pair of launches per line\n"
              "(comma or whitespace separated; an optional header line; '#' comments): paired t-test on\n"
              "on - off with its confidence interval, relative difference, Wilcoxon signed-rank test, and a\n"
              "verdict (docs/statistics.md). Pair per-launch summaries, never iterations pooled across launches."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    ReportOptions report;
    long long processes = 0;
    options.add_options()("processes", po::value(&processes),
                          "also report the difference divided by this process count (per call per process)")(
        "confidence", po::value(&report.confidence)->default_value(0.95, "0.95"), "confidence level of the intervals")(
        "unit", po::value(&report.unit)->default_value("ns"), "unit of the timings, for the report (\"\" for none)")(
        "json", "print the result as JSON")("input", po::value(&report.input)->required(), "file of pairs");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    if (!(report.confidence > 0 && report.confidence < 1))
      throw po::error("--confidence must be between 0 and 1 (exclusive), e.g. 0.95");
    if (vm.count("processes")) {
      if (processes < 1) throw po::error("--processes must be at least 1");
      report.processes = static_cast<std::size_t>(processes);
    }
    PairedSamples samples = read_paired_samples(report.input);
    PairedAnalysis analysis = paired_analysis(samples.off, samples.on, report.confidence);
    if (vm.count("json")) {
      print_json(analysis, report);
    } else {
      print_report(analysis, samples, report);
    }
    return kExitOk;
  });
}

}  // namespace mpimon::cli
