#pragma once
// The few JSON words the gate's reports and baseline write by hand (numbers that may be NaN, a
// string map), shared by gate_baseline.cpp, gate_reports.cpp and app_gate.cpp.

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <ostream>
#include <string>

#include "mpimon/base/json.hpp"

namespace mpimon::gate_detail {

inline std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

inline std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : "null"; }

inline void write_strings(std::ostream& out, const std::map<std::string, std::string>& values,
                          const std::string& indent) {
  out << "{";
  bool first = true;
  for (const auto& [k, v] : values) {
    out << (first ? "\n" : ",\n") << indent << "  \"" << json_escape(k) << "\": \"" << json_escape(v) << "\"";
    first = false;
  }
  out << "\n" << indent << "}";
}

}  // namespace mpimon::gate_detail
