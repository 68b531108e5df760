#include "mpimon/results/gate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "mpimon/base/error.hpp"
#include "mpimon/base/json.hpp"
#include "mpimon/base/names.hpp"
#include "mpimon/results/stats.hpp"

namespace mpimon {

namespace fs = std::filesystem;

namespace {

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

bool is_component_object(const std::string& object) {
  const std::string b = base_name(object);
  return b.starts_with("mca_") && !is_monitoring_object(object);
}

// Code from which the monitoring layer is entered: the MPI library's API, or a component (a
// collective algorithm sending through the monitoring PML).
bool is_outer_object(const std::string& object) {
  return base_name(object).starts_with("libmpi.so") || is_component_object(object);
}

std::uint64_t fnv1a(const char* data, std::size_t n, std::uint64_t h = 1469598103934665603ULL) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

bool is_monitoring_object(const std::string& object) {
  return base_name(object).find("monitoring") != std::string::npos;
}

CallgrindDump read_callgrind_dump(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot open");
  return parse_callgrind_dump(in, path);
}

CallgrindDump parse_callgrind_dump(std::istream& in, const std::string& path) {
  CallgrindDump dump;
  std::string line, ob, cob;
  bool call_cost_next = false, labelled = false;
  std::uint64_t entering = 0, wrapped = 0;
  std::set<std::string> seen;
  auto note_object = [&](const std::string& o) {
    if (seen.insert(o).second) dump.objects.push_back(o);
  };
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.starts_with("desc: Trigger: Client Request: ")) {
      std::istringstream label(line.substr(line.find("Request: ") + 9));
      std::string tag;
      if (!(label >> tag >> dump.op >> dump.size >> dump.count) || tag != "mpimon-gate" || dump.count == 0) {
        raise_input_error(path, number, "not a dump of mpimon-gate-probe (expected 'mpimon-gate OP SIZE N')");
      }
      labelled = true;
    } else if (line.starts_with("ob=")) {
      ob = line.substr(3);
      note_object(ob);
    } else if (line.starts_with("cob=")) {
      cob = line.substr(4);
      note_object(cob);
    } else if (line.starts_with("calls=")) {
      call_cost_next = true;
    } else if (call_cost_next && !line.empty() &&
               (std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '+' || line[0] == '-' ||
                line[0] == '*')) {
      std::istringstream fields(line);
      std::string position;
      std::uint64_t cost = 0;
      if (!(fields >> position >> cost)) raise_input_error(path, number, "expected a position and a cost");
      const std::string& callee = cob.empty() ? ob : cob;
      if (is_outer_object(ob) && is_monitoring_object(callee)) entering += cost;
      if (is_monitoring_object(ob) && is_component_object(callee)) wrapped += cost;
      call_cost_next = false;
      cob.clear();
    }
  }
  if (!labelled) raise_input_error(path, 0, "no 'mpimon-gate' client-request label: not a dump of mpimon-gate-probe");
  if (wrapped > entering) raise_input_error(path, 0, "wrapped calls cost more than the calls into the monitoring");
  dump.monitoring = entering - wrapped;
  return dump;
}

std::vector<InstructionCount> instructions_per_operation(const std::vector<CallgrindDump>& dumps) {
  std::map<std::pair<std::string, std::uint64_t>, std::map<std::uint64_t, std::uint64_t>> by_op;
  std::vector<std::pair<std::string, std::uint64_t>> order;
  for (const auto& d : dumps) {
    auto key = std::make_pair(d.op, d.size);
    if (!by_op.count(key)) order.push_back(key);
    by_op[key][d.count] = d.monitoring;
  }
  std::vector<InstructionCount> out;
  for (const auto& key : order) {
    const auto& counts = by_op[key];
    const std::uint64_t n = counts.begin()->first;
    auto twice = counts.find(2 * n);
    if (counts.size() != 2 || twice == counts.end()) {
      raise_error(Error::Kind::input, key.first, "expected dumps of N and 2N operations");
    }
    InstructionCount c{key.first, key.second, n, counts.begin()->second, twice->second, 0, true};
    const auto delta = static_cast<double>(c.at_2n) - static_cast<double>(c.at_n);
    c.per_op = delta / static_cast<double>(n);
    c.exact = c.at_2n >= c.at_n && (c.at_2n - c.at_n) % n == 0;
    out.push_back(c);
  }
  return out;
}

std::string objects_fingerprint(const std::vector<std::string>& objects, const std::string& exclude) {
  std::vector<std::string> parts;
  for (const auto& o : objects) {
    const std::string b = base_name(o);
    const bool counted = is_monitoring_object(o) || b.starts_with("libmpi.so") || b.starts_with("libopen-pal.so") ||
                         b.starts_with("libc.so");
    if (!counted || o == exclude || base_name(exclude) == b) continue;
    std::ifstream in(o, std::ios::binary);
    if (!in) raise_input_error(o, 0, "cannot read (fingerprint of the counted libraries)");
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    parts.push_back(b + ":" + std::to_string(content.size()) + ":" + hex(fnv1a(content.data(), content.size())));
  }
  std::sort(parts.begin(), parts.end());
  parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
  std::string all;
  for (const auto& p : parts) all += p + ";";
  return hex(fnv1a(all.data(), all.size())) + " (" + std::to_string(parts.size()) + " libraries)";
}

// ---- baseline -----------------------------------------------------------------------------------

namespace {

namespace pt = boost::property_tree;

std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : "null"; }

void write_strings(std::ostream& out, const std::map<std::string, std::string>& values, const std::string& indent) {
  out << "{";
  bool first = true;
  for (const auto& [k, v] : values) {
    out << (first ? "\n" : ",\n") << indent << "  \"" << json_escape(k) << "\": \"" << json_escape(v) << "\"";
    first = false;
  }
  out << "\n" << indent << "}";
}

std::map<std::string, std::string> read_strings(const pt::ptree& tree, const std::string& key) {
  std::map<std::string, std::string> out;
  if (auto child = tree.get_child_optional(key)) {
    for (const auto& [k, v] : *child) out[k] = v.data();
  }
  return out;
}

}  // namespace

void write_gate_baseline(const GateBaseline& b, std::ostream& out) {
  out << "{\n  \"format\": \"" << kGateBaselineFormat << "\",\n  \"format_version\": 1,\n  \"provenance\": ";
  write_strings(out, b.provenance, "  ");
  if (b.instructions) {
    out << ",\n  \"instructions\": {\n    \"build\": ";
    write_strings(out, b.instructions->build, "    ");
    out << ",\n    \"settings\": ";
    write_strings(out, b.instructions->settings, "    ");
    out << ",\n    \"operations\": [";
    for (std::size_t i = 0; i < b.instructions->operations.size(); ++i) {
      const auto& c = b.instructions->operations[i];
      out << (i ? ",\n" : "\n") << "      {\"op\": \"" << json_escape(c.op) << "\", \"size\": " << c.size
          << ", \"count\": " << c.count << ", \"at_n\": " << c.at_n << ", \"at_2n\": " << c.at_2n
          << ", \"instructions_per_op\": " << number(c.per_op) << "}";
    }
    out << "\n    ]\n  }";
  }
  if (b.timing) {
    out << ",\n  \"timing\": {\n    \"machine\": ";
    write_strings(out, b.timing->machine, "    ");
    out << ",\n    \"settings\": ";
    write_strings(out, b.timing->settings, "    ");
    out << ",\n    \"cells\": [";
    for (std::size_t i = 0; i < b.timing->cells.size(); ++i) {
      const auto& c = b.timing->cells[i];
      out << (i ? ",\n" : "\n") << "      {\"op\": \"" << json_escape(c.op) << "\", \"np\": " << c.np
          << ", \"size\": " << c.size << ", \"pairs\": " << c.pairs << ", \"off_ns\": " << number(c.off_ns)
          << ", \"difference_ns\": " << number(c.difference_ns)
          << ", \"sd_difference_ns\": " << number(c.sd_difference_ns) << "}";
    }
    out << "\n    ]\n  }";
  }
  out << "\n}\n";
}

GateBaseline read_gate_baseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot open");
  return parse_gate_baseline(in, path);
}

GateBaseline parse_gate_baseline(std::istream& in, const std::string& path) {
  pt::ptree tree;
  try {
    pt::read_json(in, tree);
  } catch (const pt::json_parser_error& e) {
    raise_input_error(path, e.line(), e.message());
  }
  if (tree.get<std::string>("format", "") != kGateBaselineFormat) {
    raise_error(Error::Kind::format, path, std::string("not an ") + kGateBaselineFormat + " file (\"format\")");
  }
  if (tree.get<std::string>("format_version", "") != "1") {
    raise_error(Error::Kind::format, path, "unsupported format_version (this mpimon reads 1)");
  }
  GateBaseline b;
  b.provenance = read_strings(tree, "provenance");
  try {
    if (auto ins = tree.get_child_optional("instructions")) {
      InstructionBaseline i;
      i.build = read_strings(*ins, "build");
      i.settings = read_strings(*ins, "settings");
      for (const auto& [unused, row] : ins->get_child("operations")) {
        InstructionCount c;
        c.op = row.get<std::string>("op");
        c.size = row.get<std::uint64_t>("size");
        c.count = row.get<std::uint64_t>("count");
        c.at_n = row.get<std::uint64_t>("at_n");
        c.at_2n = row.get<std::uint64_t>("at_2n");
        c.per_op = row.get<double>("instructions_per_op");
        i.operations.push_back(c);
      }
      b.instructions = i;
    }
    if (auto tim = tree.get_child_optional("timing")) {
      TimingBaseline t;
      t.machine = read_strings(*tim, "machine");
      t.settings = read_strings(*tim, "settings");
      for (const auto& [unused, row] : tim->get_child("cells")) {
        t.cells.push_back({row.get<std::string>("op"), row.get<std::uint32_t>("np"), row.get<std::uint64_t>("size"),
                           row.get<std::size_t>("pairs"), row.get<double>("off_ns"), row.get<double>("difference_ns"),
                           row.get<double>("sd_difference_ns")});
      }
      b.timing = t;
    }
  } catch (const pt::ptree_error& e) {
    raise_error(Error::Kind::format, path, std::string("bad baseline entry: ") + e.what());
  }
  return b;
}

// ---- verdicts -------------------------------------------------------------------------------------

constexpr std::array<Named<Verdict>, 6> kVerdictNames{{{Verdict::pass, "pass"},
                                                       {Verdict::regression, "REGRESSION"},
                                                       {Verdict::inconclusive, "inconclusive"},
                                                       {Verdict::rerecord, "re-record"},
                                                       {Verdict::unstable, "unstable"},
                                                       {Verdict::missing, "missing"}}};

const char* verdict_name(Verdict v) { return to_name(kVerdictNames, v); }

std::vector<InstructionVerdict> judge_instructions(const std::vector<InstructionCount>& now,
                                                   const InstructionBaseline& baseline, double tolerance,
                                                   bool same_build, bool stable, const std::string& build_note) {
  std::vector<InstructionVerdict> out;
  for (const auto& c : now) {
    InstructionVerdict v{c.op, c.size, std::nullopt, c.per_op, Verdict::pass, ""};
    for (const auto& b : baseline.operations) {
      if (b.op == c.op && b.size == c.size) v.baseline = b.per_op;
    }
    if (!stable) {
      v.verdict = Verdict::unstable;
      v.note = "two runs of the same build counted differently: the measure is not deterministic here";
    } else if (!same_build) {
      v.verdict = Verdict::rerecord;
      v.note = "baseline from another build: re-record (" + build_note + ")";
    } else if (!v.baseline) {
      v.verdict = Verdict::missing;
      v.note = "no baseline for this operation: re-record";
    } else if (c.per_op > *v.baseline * (1 + tolerance) && c.per_op - *v.baseline >= 1) {
      v.verdict = Verdict::regression;
      v.note = "+" + number(c.per_op - *v.baseline) + " instructions per operation";
    } else if (c.per_op != *v.baseline) {
      v.note = (c.per_op < *v.baseline ? "" : "+") + number(c.per_op - *v.baseline) + " (within tolerance)";
    }
    out.push_back(v);
  }
  // An operation of the baseline that this run did not measure is not a pass by omission.
  if (stable && same_build) {
    for (const auto& b : baseline.operations) {
      const bool measured = std::any_of(now.begin(), now.end(),
                                        [&](const InstructionCount& c) { return c.op == b.op && c.size == b.size; });
      if (!measured) {
        out.push_back({b.op, b.size, b.per_op, std::nullopt, Verdict::missing,
                       "in the baseline but not measured: measure it (--probe-ops) or re-record"});
      }
    }
  }
  return out;
}

std::vector<TimingVerdict> judge_timing(const std::vector<TimingCell>& now, const TimingBaseline& baseline,
                                        const TimingMargin& margin, double alpha, bool same_machine) {
  std::vector<TimingVerdict> out;
  std::vector<std::optional<WelchDifference>> tests;
  for (const auto& c : now) {
    TimingVerdict v;
    v.op = c.op;
    v.np = c.np;
    v.size = c.size;
    v.now_ns = c.difference_ns;
    const TimingCell* base = nullptr;
    for (const auto& b : baseline.cells) {
      if (b.op == c.op && b.np == c.np && b.size == c.size) base = &b;
    }
    std::optional<WelchDifference> w;
    if (!same_machine) {
      v.verdict = Verdict::rerecord;
      v.note = "baseline from another machine or Open MPI: re-record";
    } else if (!base) {
      v.verdict = Verdict::missing;
      v.note = "no baseline for this cell: re-record";
    } else {
      v.baseline_ns = base->difference_ns;
      v.regression_ns = c.difference_ns - base->difference_ns;
      v.margin_ns = std::max(margin.absolute_ns, margin.relative * base->off_ns);
      w = welch_difference(c.difference_ns, c.sd_difference_ns, c.pairs, base->difference_ns, base->sd_difference_ns,
                           base->pairs);
      if (w) {
        v.p = student_t_upper_tail((w->difference - v.margin_ns) / w->standard_error, w->df);
      } else {
        v.note = "no test: fewer than 2 pairs or no spread";
      }
    }
    tests.push_back(w);
    out.push_back(v);
  }
  // A baseline cell this run did not measure is not a pass by omission.
  for (const auto& b : baseline.cells) {
    if (!same_machine) break;
    const bool measured = std::any_of(
        now.begin(), now.end(), [&](const TimingCell& c) { return c.op == b.op && c.np == b.np && c.size == b.size; });
    if (measured) continue;
    TimingVerdict v;
    v.op = b.op;
    v.np = b.np;
    v.size = b.size;
    v.baseline_ns = b.difference_ns;
    v.verdict = Verdict::missing;
    v.note = "in the baseline but not measured: measure it (--ops, --sizes) or re-record";
    tests.emplace_back();
    out.push_back(v);
  }
  // Holm over the cells that have a test; simultaneous bounds at 1 - alpha/m each (Bonferroni).
  std::vector<double> p;
  std::vector<std::size_t> tested;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i].p) {
      p.push_back(*out[i].p);
      tested.push_back(i);
    }
  }
  const auto adjusted = holm(p);
  const double m = static_cast<double>(std::max<std::size_t>(tested.size(), 1));
  for (std::size_t k = 0; k < tested.size(); ++k) {
    TimingVerdict& v = out[tested[k]];
    const WelchDifference& w = *tests[tested[k]];
    const double t = student_t_quantile(1 - alpha / m, w.df);
    v.p_holm = adjusted[k];
    v.low_ns = w.difference - t * w.standard_error;
    v.high_ns = w.difference + t * w.standard_error;
    if (adjusted[k] < alpha) {
      v.verdict = Verdict::regression;
    } else if (*v.high_ns < v.margin_ns) {
      v.verdict = Verdict::pass;
    } else {
      v.verdict = Verdict::inconclusive;
      char buf[96];
      std::snprintf(buf, sizeof buf, "interval too wide to decide (upper bound %.1f ns > margin)", *v.high_ns);
      v.note = buf;
    }
  }
  return out;
}

int gate_exit_code(const GateReport& r, const std::set<Verdict>& accepted) {
  bool instructions = false, timing = false;
  std::set<Verdict> seen;
  for (const auto& v : r.instructions) {
    instructions = instructions || v.verdict == Verdict::regression;
    seen.insert(v.verdict);
  }
  for (const auto& v : r.timing) {
    timing = timing || (v.verdict == Verdict::regression && v.confirmed);
    seen.insert(v.verdict);
  }
  GateExit code = GateExit::ok;
  if (instructions && timing)
    code = GateExit::both;
  else if (instructions)
    code = GateExit::instructions;
  else if (timing)
    code = GateExit::timing;
  else if (seen.count(Verdict::rerecord) && !accepted.count(Verdict::rerecord))
    code = GateExit::rerecord;
  else if ((seen.count(Verdict::missing) || seen.empty()) && !accepted.count(Verdict::missing))
    code = GateExit::missing;
  else if (seen.count(Verdict::unstable) && !accepted.count(Verdict::unstable))
    code = GateExit::unstable;
  return static_cast<int>(code);
}

// ---- reports --------------------------------------------------------------------------------------

void write_gate_json(const GateReport& r, std::ostream& out) {
  out << "{\n  \"format\": \"mpimon-gate-report\",\n  \"format_version\": 1,\n  \"exit_code\": " << r.exit_code
      << ",\n  \"baseline\": \"" << json_escape(r.baseline_path) << "\",\n  \"provenance\": ";
  write_strings(out, r.provenance, "  ");
  out << ",\n  \"instructions\": [";
  for (std::size_t i = 0; i < r.instructions.size(); ++i) {
    const auto& v = r.instructions[i];
    out << (i ? ",\n" : "\n") << "    {\"op\": \"" << json_escape(v.op) << "\", \"size\": " << v.size
        << ", \"baseline_per_op\": " << optional_number(v.baseline) << ", \"now_per_op\": " << optional_number(v.now)
        << ", \"verdict\": \"" << verdict_name(v.verdict) << "\", \"note\": \"" << json_escape(v.note) << "\"}";
  }
  out << "\n  ],\n  \"timing\": [";
  for (std::size_t i = 0; i < r.timing.size(); ++i) {
    const auto& v = r.timing[i];
    out << (i ? ",\n" : "\n") << "    {\"op\": \"" << json_escape(v.op) << "\", \"np\": " << v.np
        << ", \"size\": " << v.size << ", \"baseline_ns\": " << number(v.baseline_ns)
        << ", \"now_ns\": " << number(v.now_ns) << ", \"regression_ns\": " << number(v.regression_ns)
        << ", \"regression_low_ns\": " << optional_number(v.low_ns)
        << ", \"regression_high_ns\": " << optional_number(v.high_ns) << ", \"margin_ns\": " << number(v.margin_ns)
        << ", \"p\": " << optional_number(v.p) << ", \"p_holm\": " << optional_number(v.p_holm) << ", \"verdict\": \""
        << verdict_name(v.verdict) << "\", \"confirmed\": " << (v.confirmed ? "true" : "false") << ", \"note\": \""
        << json_escape(v.note) << "\"}";
  }
  out << "\n  ],\n  \"notes\": [";
  for (std::size_t i = 0; i < r.notes.size(); ++i) out << (i ? ", " : "") << "\"" << json_escape(r.notes[i]) << "\"";
  out << "]\n}\n";
}

namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

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

// ---- the gate for applications ---------------------------------------------------------------

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
  report.exit_code = above ? kAppGateAbove : inconclusive && !allow_inconclusive ? kAppGateInconclusive : 0;
  return report;
}

void write_app_gate_json(const AppGateReport& r, std::ostream& out) {
  out << "{\n  \"format\": \"mpimon-app-gate-report\",\n  \"format_version\": 1,\n  \"exit_code\": " << r.exit_code
      << ",\n  \"fail_above\": " << number(r.fail_above)
      << ",\n  \"allow_inconclusive\": " << (r.allow_inconclusive ? "true" : "false") << ",\n  \"provenance\": ";
  write_strings(out, r.provenance, "  ");
  out << ",\n  \"applications\": [";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& v = r.rows[i];
    out << (i ? ",\n" : "\n") << "    {\"app\": \"" << json_escape(v.app) << "\", \"np\": " << v.np
        << ", \"pairs\": " << v.pairs << ", \"overhead\": " << optional_number(v.overhead)
        << ", \"overhead_ci_low\": " << optional_number(v.low) << ", \"overhead_ci_high\": " << optional_number(v.high)
        << ", \"interval\": \"" << cost_verdict_name(v.cost) << "\", \"verdict\": \"" << app_verdict_name(v.verdict)
        << "\", \"pairs_needed\": " << (v.pairs_needed ? std::to_string(*v.pairs_needed) : std::string("null"))
        << ", \"note\": \"" << json_escape(v.note) << "\"}";
  }
  out << "\n  ]\n}\n";
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
