#include "app_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <tuple>

#include "overhead_report.hpp"

namespace mpimon::cli {

namespace {

std::string fixed(std::optional<double> v, const char* format) {
  if (!v || !std::isfinite(*v)) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

template <typename T, typename F>
std::optional<double> field(const std::optional<T>& o, F f) {
  return o ? std::optional<double>(f(*o)) : std::nullopt;
}

}  // namespace

// The difference, relative difference (each with its 95 % CI) and t-test p cells of a row.
std::tuple<std::string, std::string, std::string> difference_cells(const PairedAnalysis& a) {
  std::string diff = fixed(a.mean_difference, "%+.4f");
  if (a.t_test) diff += " [" + fixed(a.t_test->ci.low, "%+.4f") + ", " + fixed(a.t_test->ci.high, "%+.4f") + "]";
  std::string rel = fixed(field(a.relative, [](const Estimate& e) { return 100 * e.value; }), "%+.2f");
  if (a.relative && a.relative->ci) {
    rel += " [" + fixed(100 * a.relative->ci->low, "%+.2f") + ", " + fixed(100 * a.relative->ci->high, "%+.2f") + "]";
  }
  std::string p = fixed(field(a.t_test, [](const StudentTTest& t) { return t.p_value; }), "%.3g");
  if (a.significant()) p += " *";
  return {diff, rel, p};
}

void print_app_table(const std::vector<AppRow>& rows, double threshold) {
  const std::string vs = "vs " + cost_words(CostVerdict::below, threshold).substr(2);
  std::printf("\n%-28s %4s %5s %10s %10s %11s %12s %27s %20s %9s %9s %5s %12s\n", "application", "np", "pairs", "off s",
              "on s", "msg/proc", "msg/s", "overhead s [95% CI]", "overhead % [95% CI]", "p (t)", "p (W)", "comm",
              vs.c_str());
  for (const auto& r : rows) {
    const auto& a = r.analysis;
    const auto [diff, rel, p] = difference_cells(a);
    std::printf("%-28s %4u %5zu %10s %10s %11s %12s %27s %20s %9s %9s %5s %12s\n", r.app.c_str(), r.np, a.n,
                fixed(a.mean_off, "%.4f").c_str(), fixed(a.mean_on, "%.4f").c_str(),
                fixed(r.messages_per_process, "%.2f").c_str(), fixed(r.messages_per_second, "%.1f").c_str(),
                diff.c_str(), rel.c_str(), p.c_str(),
                fixed(field(a.wilcoxon, [](const WilcoxonSignedRank& w) { return w.p_value; }), "%.3g").c_str(),
                fixed(field(r.comm_share, [](double s) { return 100 * s; }), "%.0f%%").c_str(),
                cost_words(decide_cost(a, threshold).verdict, threshold).c_str());
  }
  std::printf(
      "(off/on s: mean over pairs; msg: point-to-point messages, external + internal, of the merged dumps of\n"
      " the on launches; msg/s: all processes' messages per second of on time; * significant at 5 %%\n"
      " (paired t-test); p (W): Wilcoxon signed-rank; comm: the workload's communication share; %s: the\n"
      " overhead's 95 %% CI below or above that cost, above 0 (a cost, its size open), or inconclusive)\n",
      vs.c_str());
  for (const auto& r : rows) print_inconclusive(r.app + " np " + std::to_string(r.np), r.analysis, threshold);
}

void print_placement_table(const std::vector<AppRow>& rows, const ArmPair& arms) {
  const std::string& a_name = arms.base;
  const std::string& b_name = arms.other;
  const std::string diff_head = b_name + " - " + a_name + " s [95% CI]";
  const std::string rel_head = b_name + " vs " + a_name + " % [95% CI]";
  std::printf("\n%-28s %4s %5s %10s %10s %27s %20s %9s %9s %13s\n", "application", "np", "pairs",
              (a_name + " s").c_str(), (b_name + " s").c_str(), diff_head.c_str(), rel_head.c_str(), "p (t)", "p (W)",
              "faster");
  for (const auto& r : rows) {
    const auto& a = r.analysis;
    const auto [diff, rel, p] = difference_cells(a);
    const std::string faster = !a.t_test               ? "-"
                               : !a.significant()      ? "inconclusive"
                               : a.mean_difference < 0 ? b_name
                                                       : a_name;
    std::printf("%-28s %4u %5zu %10s %10s %27s %20s %9s %9s %13s\n", r.app.c_str(), r.np, a.n,
                fixed(a.mean_off, "%.4f").c_str(), fixed(a.mean_on, "%.4f").c_str(), diff.c_str(), rel.c_str(),
                p.c_str(),
                fixed(field(a.wilcoxon, [](const WilcoxonSignedRank& w) { return w.p_value; }), "%.3g").c_str(),
                faster.c_str());
  }
  std::printf(
      "(%s s, %s s: mean time over pairs, monitoring off in both; * significant at 5 %% (paired t-test); p (W):\n"
      " Wilcoxon signed-rank; faster: the arm whose time the 95 %% CI shows lower, inconclusive when it spans 0)\n",
      a_name.c_str(), b_name.c_str());
  for (const auto& r : rows) {
    const auto& a = r.analysis;
    if (!a.t_test || a.significant()) continue;
    print_undecided(r.app + " np " + std::to_string(r.np), a, "0: neither placement shown faster",
                    decide_cost(a).pairs_needed, 0.025, a_name);
  }
}

void print_simulated_table(const std::vector<SimulatedMapping>& rows, const std::string& label, std::uint32_t np) {
  std::printf("\n%s, np %u: SIMULATED (SimGrid SMPI)\n%-4s %-24s %14s %9s %14s %10s  %s\n", label.c_str(), np, "arm",
              "mapping", "simulated s", "vs first", "modelled cost", "wall s", "status");
  for (const auto& r : rows) {
    std::printf("%-4s %-24s %14s %9s %14s %10s  %s\n", r.arm.c_str(), r.name.c_str(),
                fixed(r.status == "ok" ? std::optional(r.seconds) : std::nullopt, "%.6g").c_str(),
                fixed(r.ratio, "%.3f").c_str(), fixed(r.modelled, "%.4g").c_str(),
                fixed(r.wall_seconds, "%.1f").c_str(), r.status.c_str());
  }
  std::printf(
      "(simulated s: the program's time in the simulation; vs first: its ratio to the first mapping's;\n"
      " modelled cost: mpimon place's model of the same mapping; wall s: how long the simulation took here)\n");
  for (const auto& r : rows) {
    if (!r.traffic.empty()) std::printf("traffic %s: %s\n", r.arm.c_str(), r.traffic.c_str());
  }
}

void write_simulated_csv(const std::vector<SimulatedMapping>& rows, std::ostream& out) {
  out << "arm,name,status,seconds,ratio,simulated_clock_s,wall_s,modelled_cost,traffic_check\n";
  auto plain = [](std::string text) {
    std::replace_if(
        text.begin(), text.end(), [](char c) { return c == ',' || c == '\n' || c == '"'; }, ' ');
    return text;
  };
  for (const auto& r : rows) {
    const bool ok = r.status == "ok";
    out << r.arm << ',' << plain(r.name) << ',' << plain(r.status) << ','
        << csv_number(ok ? std::optional(r.seconds) : std::nullopt) << ',' << csv_number(r.ratio) << ','
        << csv_number(ok ? std::optional(r.simulated_seconds) : std::nullopt) << ',' << csv_number(r.wall_seconds)
        << ',' << csv_number(r.modelled) << ',' << plain(r.traffic) << '\n';
  }
}

void write_app_csv(const std::vector<AppRow>& rows, std::ostream& out, const ArmPair& arms) {
  const std::string& off = arms.base;
  const std::string& on = arms.other;
  out << "app,np,pairs,time_source," << off << "_mean_s," << off << "_median_s," << on << "_mean_s," << on
      << "_median_s,messages_per_process,"
         "external_messages_per_process,bytes_per_process,messages_per_second,difference_s,difference_ci_low_s,"
         "difference_ci_high_s,relative,relative_ci_low,relative_ci_high,t,df,p,wilcoxon_v,wilcoxon_p,significant,"
         "comm_share,verdict_5pct,pairs_for_2_5pct\n";
  for (const auto& r : rows) {
    const auto& a = r.analysis;
    const CostDecision decision = decide_cost(a);
    const auto& t = a.t_test;
    auto rel_ci = [&](bool high) {
      return a.relative && a.relative->ci ? std::optional(high ? a.relative->ci->high : a.relative->ci->low)
                                          : std::nullopt;
    };
    out << r.app << ',' << r.np << ',' << a.n << ',' << r.time_source << ',' << csv_number(a.mean_off) << ','
        << csv_number(r.off_median) << ',' << csv_number(a.mean_on) << ',' << csv_number(r.on_median) << ','
        << csv_number(r.messages_per_process) << ',' << csv_number(r.external_per_process) << ','
        << csv_number(r.bytes_per_process) << ',' << csv_number(r.messages_per_second) << ','
        << csv_number(a.mean_difference) << ',' << csv_number(field(t, [](const StudentTTest& x) { return x.ci.low; }))
        << ',' << csv_number(field(t, [](const StudentTTest& x) { return x.ci.high; })) << ','
        << csv_number(field(a.relative, [](const Estimate& e) { return e.value; })) << ',' << csv_number(rel_ci(false))
        << ',' << csv_number(rel_ci(true)) << ',' << csv_number(field(t, [](const StudentTTest& x) { return x.t; }))
        << ',' << csv_number(field(t, [](const StudentTTest& x) { return x.df; })) << ','
        << csv_number(field(t, [](const StudentTTest& x) { return x.p_value; })) << ','
        << csv_number(field(a.wilcoxon, [](const WilcoxonSignedRank& w) { return w.v; })) << ','
        << csv_number(field(a.wilcoxon, [](const WilcoxonSignedRank& w) { return w.p_value; })) << ','
        << (a.significant() ? 1 : 0) << ',' << csv_number(r.comm_share) << ',' << cost_verdict_name(decision.verdict)
        << ',' << (decision.pairs_needed ? std::to_string(*decision.pairs_needed) : "") << '\n';
  }
}

}  // namespace mpimon::cli
