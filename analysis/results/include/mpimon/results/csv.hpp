#pragma once
// The fields of the CSV files mpimon writes (launches, analyses): what the readers of
// results_file.hpp's CsvFile take back.

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace mpimon {

/// A number for CSV (9 significant digits); empty when absent or not finite.
inline std::string csv_number(std::optional<double> v) {
  if (!v || !std::isfinite(*v)) return "";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", *v);
  return buf;
}

/// A text field: commas, newlines and quotes become spaces (the readers split on commas and take
/// no quoting).
inline std::string csv_text(std::string text) {
  for (char& ch : text) {
    if (ch == ',' || ch == '\n' || ch == '"') ch = ' ';
  }
  return text;
}

/// A text field quoted as RFC 4180 says, for the columns only other programs read (Python's csv).
inline std::string csv_quoted(const std::string& text) {
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace mpimon
