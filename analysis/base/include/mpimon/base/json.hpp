#pragma once
// The one JSON string escaper of the project: its reports are small and written by hand.

#include <string>
#include <string_view>

namespace mpimon {

/// `text` as the inside of a JSON string: quotes, backslashes and control characters escaped.
std::string json_escape(std::string_view text);

}  // namespace mpimon
