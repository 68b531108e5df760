#include "mpimon/base/units.hpp"

#include <array>
#include <charconv>
#include <regex>
#include <utility>

#include "mpimon/base/error.hpp"

namespace mpimon {

namespace {

[[noreturn]] void refuse(const std::string& option, const std::string& what, const std::string& text) {
  throw Error(Error::Kind::usage, option + " takes " + what + ", not '" + text + "'");
}

}  // namespace

std::uint64_t parse_rate(const std::string& text, const std::string& option) {
  static const std::regex form("([1-9][0-9]{0,9})(bit|kbit|mbit|gbit)");
  std::smatch m;
  if (!std::regex_match(text, m, form)) {
    refuse(option, "a rate in tc's units (e.g. 100mbit, 1gbit; bit, kbit, mbit, gbit)", text);
  }
  const std::string unit = m[2];
  const std::uint64_t scale = unit == "gbit" ? 1000000000 : unit == "mbit" ? 1000000 : unit == "kbit" ? 1000 : 1;
  return std::stoull(m[1]) * scale;
}

double parse_duration(const std::string& text, const std::string& option) {
  static const std::regex form("([0-9]+(\\.[0-9]+)?)(ns|us|ms|s)");
  std::smatch m;
  if (!std::regex_match(text, m, form)) refuse(option, "a duration (e.g. 50us, 1.5ms; ns, us, ms, s)", text);
  const std::string unit = m[3];
  const double scale = unit == "ns" ? 1e-9 : unit == "us" ? 1e-6 : unit == "ms" ? 1e-3 : 1.0;
  return std::stod(m[1]) * scale;
}

std::string format_rate(std::uint64_t bits_per_second) {
  static constexpr std::array<std::pair<std::uint64_t, const char*>, 3> kUnits{
      {{1000000000, "gbit"}, {1000000, "mbit"}, {1000, "kbit"}}};
  for (const auto& [scale, unit] : kUnits) {
    if (bits_per_second >= scale && bits_per_second % scale == 0) return std::to_string(bits_per_second / scale) + unit;
  }
  return std::to_string(bits_per_second) + "bit";
}

}  // namespace mpimon
