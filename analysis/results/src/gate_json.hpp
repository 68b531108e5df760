#pragma once
// What the gate's baseline and reports share: numbers in notes and JUnit text, and a string map as
// a JSON object (gate_baseline.cpp, gate_verdicts.cpp, gate_reports.cpp, app_gate.cpp).

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "mpimon/json.hpp"

namespace mpimon::gate_detail {

/// A number in words: 10 significant digits, "null" for NaN.
inline std::string number(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

inline std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : "null"; }

inline Json strings_object(const std::map<std::string, std::string>& values) {
  Json out = Json::object();
  for (const auto& [k, v] : values) out[k] = v;
  return out;
}

}  // namespace mpimon::gate_detail
