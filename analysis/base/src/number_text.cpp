#include "mpimon/base/number_text.hpp"

#include <cmath>
#include <cstdio>

namespace mpimon {

std::string format_number(std::optional<double> value, const char* format, std::string_view absent) {
  if (!value || !std::isfinite(*value)) return std::string(absent);
  char text[64];
  std::snprintf(text, sizeof text, format, *value);
  return text;
}

std::string format_seconds(double seconds) {
  if (seconds >= 1 || seconds == 0) return format_number(seconds, "%.3g s");
  if (seconds >= 1e-3) return format_number(seconds * 1e3, "%.3g ms");
  return format_number(seconds * 1e6, "%.3g us");
}

}  // namespace mpimon
