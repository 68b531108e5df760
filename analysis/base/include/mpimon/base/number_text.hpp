#pragma once
// Numbers as mpimon prints them: one formatter behind every table, CSV field and message, so that
// an absent or undefined value reads the same everywhere.

#include <optional>
#include <string>
#include <string_view>

namespace mpimon {

/// `value` through printf's `format` (one conversion of a double: "%.4f", "%+.2f", "%.0f%%"), or
/// `absent` when there is no value or it is not finite.
std::string format_number(std::optional<double> value, const char* format, std::string_view absent = "-");

/// A duration for a reader, 3 significant digits in the unit that suits it: "2.5 s", "12.3 ms",
/// "40 us" ("0 s" for 0).
std::string format_seconds(double seconds);

}  // namespace mpimon
