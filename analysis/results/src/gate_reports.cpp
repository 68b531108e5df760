// The gate's reports: JSON and JUnit.

#include "mpimon/base/xml.hpp"
#include "mpimon/results/gate.hpp"

#include <ostream>

#include "gate_json.hpp"

namespace mpimon {

using gate_detail::number;
using gate_detail::optional_number;
using gate_detail::strings_object;

void write_gate_json(const GateReport& r, std::ostream& out) {
  Json instructions = Json::array();
  for (const auto& v : r.instructions) {
    instructions.push_back({{"op", v.op},
                            {"size", v.size},
                            {"baseline_per_op", json_optional(v.baseline)},
                            {"now_per_op", json_optional(v.now)},
                            {"verdict", verdict_name(v.verdict)},
                            {"note", v.note}});
  }
  Json timing = Json::array();
  for (const auto& v : r.timing) {
    timing.push_back({{"op", v.op},
                      {"np", v.np},
                      {"size", v.size},
                      {"baseline_ns", v.baseline_ns},
                      {"now_ns", v.now_ns},
                      {"regression_ns", v.regression_ns},
                      {"regression_low_ns", json_optional(v.low_ns)},
                      {"regression_high_ns", json_optional(v.high_ns)},
                      {"margin_ns", v.margin_ns},
                      {"p", json_optional(v.p)},
                      {"p_holm", json_optional(v.p_holm)},
                      {"verdict", verdict_name(v.verdict)},
                      {"confirmed", v.confirmed},
                      {"note", v.note}});
  }
  const Json report = {{"format", "mpimon-gate-report"},
                       {"format_version", 1},
                       {"exit_code", r.exit_code},
                       {"baseline", r.baseline_path},
                       {"provenance", strings_object(r.provenance)},
                       {"instructions", instructions},
                       {"timing", timing},
                       {"notes", r.notes}};
  out << json_document(report);
}

void write_junit(const std::string& name, const std::vector<std::pair<std::string, std::vector<JunitCase>>>& suites,
                 std::ostream& out) {
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" << xml_escape(name) << "\">\n";
  for (const auto& [suite, cases] : suites) {
    std::size_t failures = 0, skipped = 0;
    for (const auto& c : cases) {
      failures += c.fails ? 1 : 0;
      skipped += !c.fails && c.verdict != Verdict::pass ? 1 : 0;
    }
    out << "  <testsuite name=\"" << xml_escape(suite) << "\" tests=\"" << cases.size() << "\" failures=\"" << failures
        << "\" errors=\"0\" skipped=\"" << skipped << "\">\n";
    for (const auto& c : cases) {
      out << "    <testcase classname=\"" << xml_escape(suite) << "\" name=\"" << xml_escape(c.name) << "\">\n";
      if (c.fails) {
        out << "      <failure message=\"" << xml_escape(c.note) << "\">" << xml_escape(c.detail) << "</failure>\n";
      } else if (c.verdict != Verdict::pass) {
        out << "      <skipped message=\"" << xml_escape(std::string(verdict_name(c.verdict)) + ": " + c.note)
            << "\"/>\n";
      }
      out << "      <system-out>" << xml_escape(c.detail) << "</system-out>\n    </testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

void write_gate_junit(const GateReport& r, std::ostream& out) {
  std::vector<JunitCase> ins, tim;
  for (const auto& v : r.instructions) {
    ins.push_back({v.op + " " + std::to_string(v.size) + " B",
                   "instructions per operation: baseline " + optional_number(v.baseline) + ", now " +
                       optional_number(v.now) + " (" + verdict_name(v.verdict) + ")",
                   v.note, v.verdict, v.verdict == Verdict::regression});
  }
  for (const auto& v : r.timing) {
    tim.push_back({v.op + " " + std::to_string(v.size) + " B np " + std::to_string(v.np),
                   "overhead per call: baseline " + number(v.baseline_ns) + " ns, now " + number(v.now_ns) +
                       " ns; regression " + number(v.regression_ns) + " ns [" + optional_number(v.low_ns) + ", " +
                       optional_number(v.high_ns) + "], margin " + number(v.margin_ns) + " ns, Holm p " +
                       optional_number(v.p_holm),
                   v.note.empty() ? std::string("regression above the margin, confirmed") : v.note, v.verdict,
                   v.verdict == Verdict::regression});
  }
  write_junit("mpimon gate", {{"mpimon gate instructions", ins}, {"mpimon gate timing", tim}}, out);
}

}  // namespace mpimon
