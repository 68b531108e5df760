// The gate for applications (mpimon bench app --fail-above): verdicts and reports.

#include "mpimon/results/gate.hpp"

#include <cstdio>
#include <ostream>

#include "gate_json.hpp"

namespace mpimon {

using gate_detail::strings_object;

namespace {

std::string percent(std::optional<double> v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.2f %%", 100 * *v);
  return buf;
}

// The application gate's words: "above" the limit rather than the library gate's "REGRESSION".
const char* app_verdict_name(Verdict v) { return v == Verdict::regression ? "above" : verdict_name(v); }

std::string app_gate_note(const AppGateRow& r, double fail_above) {
  const std::string limit = percent(fail_above).substr(1);  // without the sign
  const std::string ci = "[" + percent(r.low) + ", " + percent(r.high) + "]";
  const std::string more = r.pairs_needed ? "; about " + std::to_string(*r.pairs_needed) +
                                                " pairs would narrow it to +-" + percent(fail_above / 2).substr(1)
                                          : "";
  switch (r.cost) {
    case CostVerdict::below:
      return "the whole 95 % CI " + ci + " lies below " + limit;
    case CostVerdict::above:
      return "the whole 95 % CI " + ci + " lies above " + limit;
    case CostVerdict::nonzero:
      return "a cost is established (95 % CI " + ci + " above 0) and may exceed " + limit + more;
    case CostVerdict::inconclusive:
      return "inconclusive: the 95 % CI " + ci + " spans both no cost and " + limit + more;
    case CostVerdict::no_interval:
      break;
  }
  return "inconclusive: no confidence interval (fewer than 2 pairs, or constant differences)";
}

}  // namespace

AppGateReport judge_app_overhead(const std::vector<AppRow>& rows, double fail_above, bool allow_inconclusive) {
  AppGateReport report;
  report.fail_above = fail_above;
  report.allow_inconclusive = allow_inconclusive;
  bool above = false, inconclusive = false;
  for (const auto& row : rows) {
    const auto& a = row.analysis;
    AppGateRow r;
    r.app = row.app;
    r.np = row.np;
    r.pairs = a.n;
    if (a.relative) r.overhead = a.relative->value;
    if (a.relative && a.relative->ci) {
      r.low = a.relative->ci->low;
      r.high = a.relative->ci->high;
    }
    const CostDecision d = decide_cost(a, fail_above, fail_above / 2);
    r.cost = d.verdict;
    r.pairs_needed = d.pairs_needed;
    r.verdict = r.cost == CostVerdict::below                                     ? Verdict::pass
                : r.cost == CostVerdict::above || r.cost == CostVerdict::nonzero ? Verdict::regression
                                                                                 : Verdict::inconclusive;
    r.note = app_gate_note(r, fail_above);
    above |= r.verdict == Verdict::regression;
    inconclusive |= r.verdict == Verdict::inconclusive;
    report.rows.push_back(r);
  }
  report.exit_code = above ? kExitAppGateAbove : inconclusive && !allow_inconclusive ? kExitAppGateInconclusive : 0;
  return report;
}

void write_app_gate_json(const AppGateReport& r, std::ostream& out) {
  Json applications = Json::array();
  for (const auto& v : r.rows) {
    applications.push_back({{"app", v.app},
                            {"np", v.np},
                            {"pairs", v.pairs},
                            {"overhead", json_optional(v.overhead)},
                            {"overhead_ci_low", json_optional(v.low)},
                            {"overhead_ci_high", json_optional(v.high)},
                            {"interval", cost_verdict_name(v.cost)},
                            {"verdict", app_verdict_name(v.verdict)},
                            {"pairs_needed", json_optional(v.pairs_needed)},
                            {"note", v.note}});
  }
  const Json report = {{"format", "mpimon-app-gate-report"},
                       {"format_version", 1},
                       {"exit_code", r.exit_code},
                       {"fail_above", r.fail_above},
                       {"allow_inconclusive", r.allow_inconclusive},
                       {"provenance", strings_object(r.provenance)},
                       {"applications", applications}};
  out << json_document(report);
}

void write_app_gate_junit(const AppGateReport& r, std::ostream& out) {
  std::vector<JunitCase> cases;
  for (const auto& v : r.rows) {
    const bool fails =
        v.verdict == Verdict::regression || (v.verdict == Verdict::inconclusive && !r.allow_inconclusive);
    cases.push_back({v.app + " np " + std::to_string(v.np),
                     "overhead " + percent(v.overhead) + " [" + percent(v.low) + ", " + percent(v.high) + "] over " +
                         std::to_string(v.pairs) + " pairs; limit " + percent(r.fail_above).substr(1),
                     v.note, v.verdict, fails});
  }
  write_junit("mpimon bench app", {{"mpimon bench app overhead", cases}}, out);
}

}  // namespace mpimon
