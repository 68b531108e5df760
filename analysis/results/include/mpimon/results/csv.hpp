#pragma once
// The fields of the CSV files mpimon writes (launches, analyses): what the readers of
// results_file.hpp's CsvFile take back.

#include <optional>
#include <string>

#include "mpimon/base/number_text.hpp"

namespace mpimon {

/// A number for CSV (9 significant digits); empty when absent or not finite.
inline std::string csv_number(std::optional<double> v) { return format_number(v, "%.9g", ""); }

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
