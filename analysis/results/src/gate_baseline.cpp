// The gate's baseline file (results/gate/baseline.json): written and read.

#include "mpimon/results/gate.hpp"

#include <fstream>
#include <sstream>

#include <boost/property_tree/json_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "gate_json.hpp"
#include "mpimon/base/error.hpp"

namespace mpimon {

using gate_detail::number;
using gate_detail::optional_number;
using gate_detail::write_strings;

namespace {

namespace pt = boost::property_tree;

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

}  // namespace mpimon
