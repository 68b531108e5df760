// The gate's baseline file (results/gate/baseline.json): written and read.

#include "mpimon/results/gate.hpp"

#include <fstream>

#include "gate_json.hpp"
#include "mpimon/base/error.hpp"

namespace mpimon {

using gate_detail::strings_object;

namespace {

/// `object[key]`, an object of strings, or empty when absent.
std::map<std::string, std::string> read_strings(const Json& object, const char* key, const std::string& where) {
  std::map<std::string, std::string> out;
  const auto it = object.find(key);
  if (it == object.end()) return out;
  if (!it->is_object()) raise_error(Error::Kind::format, where, std::string("'") + key + "' is not an object");
  for (const auto& [k, v] : it->items()) out[k] = json_value<std::string>(*it, k, where + ": " + key);
  return out;
}

/// `object[key]`, an array, or throws.
const Json& read_array(const Json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_array())
    raise_error(Error::Kind::format, where, std::string("'") + key + "' is missing or not an array");
  return *it;
}

}  // namespace

void write_gate_baseline(const GateBaseline& b, std::ostream& out) {
  Json baseline = {
      {"format", kGateBaselineFormat}, {"format_version", 1}, {"provenance", strings_object(b.provenance)}};
  if (b.instructions) {
    Json operations = Json::array();
    for (const auto& c : b.instructions->operations) {
      operations.push_back({{"op", c.op},
                            {"size", c.size},
                            {"count", c.count},
                            {"at_n", c.at_n},
                            {"at_2n", c.at_2n},
                            {"instructions_per_op", c.per_op}});
    }
    baseline["instructions"] = {{"build", strings_object(b.instructions->build)},
                                {"settings", strings_object(b.instructions->settings)},
                                {"operations", operations}};
  }
  if (b.timing) {
    Json cells = Json::array();
    for (const auto& c : b.timing->cells) {
      cells.push_back({{"op", c.op},
                       {"np", c.np},
                       {"size", c.size},
                       {"pairs", c.pairs},
                       {"off_ns", c.off_ns},
                       {"difference_ns", c.difference_ns},
                       {"sd_difference_ns", c.sd_difference_ns}});
    }
    baseline["timing"] = {{"machine", strings_object(b.timing->machine)},
                          {"settings", strings_object(b.timing->settings)},
                          {"cells", cells}};
  }
  out << json_document(baseline);
}

GateBaseline read_gate_baseline(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot open");
  return parse_gate_baseline(in, path);
}

GateBaseline parse_gate_baseline(std::istream& in, const std::string& path) {
  const Json tree = parse_json(in, path);
  if (!tree.is_object() || tree.value("format", Json()) != kGateBaselineFormat) {
    raise_error(Error::Kind::format, path, std::string("not an ") + kGateBaselineFormat + " file (\"format\")");
  }
  if (tree.value("format_version", Json()) != 1) {
    raise_error(Error::Kind::format, path, "unsupported format_version (this mpimon reads 1)");
  }
  GateBaseline b;
  b.provenance = read_strings(tree, "provenance", path);
  if (auto ins = tree.find("instructions"); ins != tree.end()) {
    const std::string where = path + ": instructions";
    InstructionBaseline i;
    i.build = read_strings(*ins, "build", where);
    i.settings = read_strings(*ins, "settings", where);
    for (const Json& row : read_array(*ins, "operations", where)) {
      const std::string at = where + " operation " + std::to_string(i.operations.size() + 1);
      i.operations.push_back({json_value<std::string>(row, "op", at), json_value<std::uint64_t>(row, "size", at),
                              json_value<std::uint64_t>(row, "count", at), json_value<std::uint64_t>(row, "at_n", at),
                              json_value<std::uint64_t>(row, "at_2n", at),
                              json_value<double>(row, "instructions_per_op", at)});
    }
    b.instructions = i;
  }
  if (auto tim = tree.find("timing"); tim != tree.end()) {
    const std::string where = path + ": timing";
    TimingBaseline t;
    t.machine = read_strings(*tim, "machine", where);
    t.settings = read_strings(*tim, "settings", where);
    for (const Json& row : read_array(*tim, "cells", where)) {
      const std::string at = where + " cell " + std::to_string(t.cells.size() + 1);
      t.cells.push_back({json_value<std::string>(row, "op", at), json_value<std::uint32_t>(row, "np", at),
                         json_value<std::uint64_t>(row, "size", at), json_value<std::size_t>(row, "pairs", at),
                         json_value<double>(row, "off_ns", at), json_value<double>(row, "difference_ns", at),
                         json_value<double>(row, "sd_difference_ns", at)});
    }
    b.timing = t;
  }
  return b;
}

}  // namespace mpimon
