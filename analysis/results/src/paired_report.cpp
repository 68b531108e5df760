// The report of `mpimon stats paired` (paired_report.hpp): its rows, verdict and JSON.

#include "mpimon/results/paired_report.hpp"

#include <cmath>
#include <cstdio>

#include "mpimon/json.hpp"

namespace mpimon {

namespace {

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

}  // namespace

std::string paired_verdict(const PairedAnalysis& a, const std::string& unit) {
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

std::string paired_disagreement(const PairedAnalysis& a) {
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

PairedReport paired_report(const PairedAnalysis& a, const PairedSamples& samples, const PairedReportOptions& o) {
  PairedReport r;
  const auto row = [&r](const std::string& label, const std::string& text) { r.rows.emplace_back(label, text); };
  const std::string level = ", " + level_text(a.confidence) + " CI ";
  r.title = "paired analysis of " + o.input + " (on - off)";
  std::string pairs = std::to_string(a.n);
  if (samples.header.size() == 2) pairs += " (off = '" + samples.header[0] + "', on = '" + samples.header[1] + "')";
  row("pairs", pairs);
  row("mean off", with_unit(estimate_text(a.mean_off), o.unit));
  row("mean on", with_unit(estimate_text(a.mean_on), o.unit));
  std::string difference = with_unit(signed_text(a.mean_difference), o.unit);
  if (a.t_test) difference += level + interval_text(a.t_test->ci, unit_suffix(o.unit));
  row("difference", difference);
  if (a.sd_difference) row("sd of diffs", with_unit(estimate_text(*a.sd_difference), o.unit));
  if (a.t_test) {
    row("t-test", "t = " + statistic_text(a.t_test->t) + ", df = " + printf_text("%g", a.t_test->df) +
                      ", p = " + statistic_text(a.t_test->p_value));
  } else {
    row("t-test", "none: " + a.t_test_unavailable);
  }
  if (a.relative) {
    std::string relative = percent_text(a.relative->value, "%+.4g") + " % of mean off";
    if (a.relative->ci)
      relative +=
          level + percent_text(a.relative->ci->low, "%.4g") + ".." + percent_text(a.relative->ci->high, "%.4g") + " %";
    row("relative", relative);
  } else {
    row("relative", "none: the mean of off is not positive");
  }
  if (o.processes) {
    Estimate p = per_process(a, *o.processes);
    std::string text =
        with_unit(signed_text(p.value), o.unit) + " per process (difference / " + std::to_string(*o.processes) + ")";
    if (p.ci) text += level + interval_text(*p.ci, unit_suffix(o.unit));
    row("per process", text);
  }
  if (a.wilcoxon) {
    const auto& w = *a.wilcoxon;
    std::string method = w.exact ? "exact" : "normal approximation";
    if (w.zeros) method += ", " + std::to_string(w.zeros) + " zero difference" + (w.zeros == 1 ? "" : "s") + " dropped";
    if (w.ties) method += ", ties";
    row("Wilcoxon", "V = " + printf_text("%g", w.v) + ", p = " + statistic_text(w.p_value) + " (" + method + ")");
  } else {
    row("Wilcoxon", "none: every difference is zero");
  }
  r.verdict = paired_verdict(a, o.unit);
  r.note = paired_disagreement(a);
  return r;
}

namespace {

// Absent values are null.

Json interval_json(const std::optional<Interval>& ci) { return ci ? Json{ci->low, ci->high} : Json(nullptr); }

Json estimate_json(const std::optional<Estimate>& e) {
  return e ? Json{{"value", e->value}, {"ci", interval_json(e->ci)}} : Json(nullptr);
}

}  // namespace

void write_paired_json(std::ostream& out, const PairedAnalysis& a, const PairedReportOptions& o) {
  Json t_test = nullptr, wilcoxon = nullptr, per_process_json = nullptr;
  if (a.t_test) t_test = {{"t", a.t_test->t}, {"df", a.t_test->df}, {"p_value", a.t_test->p_value}};
  if (o.processes)
    per_process_json = {{"processes", *o.processes}, {"estimate", estimate_json(per_process(a, *o.processes))}};
  if (a.wilcoxon) {
    const auto& w = *a.wilcoxon;
    wilcoxon = {{"v", w.v},       {"n", w.n},         {"zeros", w.zeros},
                {"ties", w.ties}, {"exact", w.exact}, {"p_value", w.p_value}};
  }
  const Json report = {{"file", o.input},
                       {"unit", o.unit},
                       {"confidence", a.confidence},
                       {"n", a.n},
                       {"mean_off", a.mean_off},
                       {"mean_on", a.mean_on},
                       {"difference",
                        {{"mean", a.mean_difference},
                         {"sd", json_optional(a.sd_difference)},
                         {"ci", interval_json(a.t_test ? std::optional(a.t_test->ci) : std::nullopt)}}},
                       {"t_test", t_test},
                       {"t_test_unavailable", a.t_test ? Json(nullptr) : Json(a.t_test_unavailable)},
                       {"relative", estimate_json(a.relative)},
                       {"per_process", per_process_json},
                       {"wilcoxon", wilcoxon},
                       {"significant", a.significant()},
                       {"verdict", paired_verdict(a, o.unit)}};
  out << json_document(report);
}

}  // namespace mpimon
