#include "overhead_report.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace mpimon::cli {

namespace {

std::string format_ns(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1000 ? "%.0f" : "%.1f", v);
  return buf;
}

std::string num(std::optional<double> v) { return csv_number(v); }

}  // namespace

std::string csv_number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", *v);
  return buf;
}

void print_analysis(const std::vector<OverheadCell>& cells) {
  std::printf("\n%-7s %-9s %-10s %4s %9s %5s %26s %18s %9s\n", "transp.", "arm", "op", "np", "size", "pairs",
              "difference ns/call [95% CI]", "relative [95% CI]", "p (BH)");
  for (const auto& c : cells) {
    const auto& a = c.analysis;
    std::string diff = format_ns(a.mean_difference);
    if (a.t_test) diff += " [" + format_ns(a.t_test->ci.low) + ", " + format_ns(a.t_test->ci.high) + "]";
    char rel[64] = "-";
    if (a.relative && a.relative->ci) {
      std::snprintf(rel, sizeof rel, "%+.1f%% [%+.1f, %+.1f]", 100 * a.relative->value, 100 * a.relative->ci->low,
                    100 * a.relative->ci->high);
    }
    char p[32] = "-";
    if (c.p_adjusted) std::snprintf(p, sizeof p, "%.3g%s", *c.p_adjusted, *c.p_adjusted < 0.05 ? " *" : "");
    std::printf("%-7s %-9s %-10s %4u %9llu %5zu %26s %18s %9s\n", c.transport.c_str(), c.arm.c_str(), c.op.c_str(),
                c.np, static_cast<unsigned long long>(c.size), a.n, diff.c_str(), rel, p);
  }
  std::printf("(* significant at 5 %% after Benjamini-Hochberg within each transport, arm and operation)\n");
}

void write_analysis_csv(const std::vector<OverheadCell>& cells, std::ostream& out) {
  out << "transport,arm,op,np,size,pairs,off_ns,arm_ns,difference_ns,difference_ci_low_ns,difference_ci_high_ns,"
         "t,df,p,p_bh,per_process_ns,per_process_ci_low_ns,per_process_ci_high_ns,relative,relative_ci_low,"
         "relative_ci_high,wilcoxon_v,wilcoxon_p,significant\n";
  for (const auto& c : cells) {
    const auto& a = c.analysis;
    auto t = a.t_test;
    std::optional<double> rel_low, rel_high;
    if (a.relative && a.relative->ci) {
      rel_low = a.relative->ci->low;
      rel_high = a.relative->ci->high;
    }
    out << c.transport << ',' << c.arm << ',' << c.op << ',' << c.np << ',' << c.size << ',' << a.n << ','
        << num(a.mean_off) << ',' << num(a.mean_on) << ',' << num(a.mean_difference) << ','
        << num(t ? std::optional(t->ci.low) : std::nullopt) << ',' << num(t ? std::optional(t->ci.high) : std::nullopt)
        << ',' << num(t ? std::optional(t->t) : std::nullopt) << ',' << num(t ? std::optional(t->df) : std::nullopt)
        << ',' << num(t ? std::optional(t->p_value) : std::nullopt) << ',' << num(c.p_adjusted) << ','
        << num(c.per_process.value) << ',' << num(c.per_process.ci ? std::optional(c.per_process.ci->low) : std::nullopt)
        << ',' << num(c.per_process.ci ? std::optional(c.per_process.ci->high) : std::nullopt) << ','
        << num(a.relative ? std::optional(a.relative->value) : std::nullopt) << ','
        << num(rel_low) << ',' << num(rel_high) << ','
        << num(a.wilcoxon ? std::optional(a.wilcoxon->v) : std::nullopt) << ','
        << num(a.wilcoxon ? std::optional(a.wilcoxon->p_value) : std::nullopt) << ',' << (a.significant() ? 1 : 0)
        << '\n';
  }
}

void write_launches_csv(const std::vector<LaunchRecord>& launches, std::ostream& out) {
  out << "launch,transport,np,pair,arm,position,status,seconds,op,size,samples,median_ns,q1_ns,q3_ns,d1_ns,d9_ns,"
         "mean_ns,min_ns,max_ns,iqm_ns\n";
  std::size_t index = 0;
  for (const auto& l : launches) {
    ++index;
    std::string status = l.status;
    for (char& ch : status) {
      if (ch == ',' || ch == '\n' || ch == '"') ch = ' ';
    }
    std::string head = std::to_string(index) + ',' + l.key.transport + ',' + std::to_string(l.key.np) + ',' +
                       std::to_string(l.key.pair) + ',' + l.key.arm + ',' + std::to_string(l.position) + ',' + status +
                       ',' + num(l.seconds);
    if (l.benchmarks.empty()) out << head << ",,,0,,,,,,,,,\n";
    for (const auto& b : l.benchmarks) {
      SampleSummary s = summarize(b.ns);
      out << head << ',' << b.op << ',' << b.size << ',' << b.ns.size() << ',' << num(s.median) << ',' << num(s.q1)
          << ',' << num(s.q3) << ',' << num(s.d1) << ',' << num(s.d9) << ',' << num(s.mean) << ',' << num(s.min) << ','
          << num(s.max) << ',' << num(s.iqm) << '\n';
    }
  }
}

}  // namespace mpimon::cli
