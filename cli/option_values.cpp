// The lists and ranges of option values (cli_support.hpp): the one place a list of numbers is
// read, so that every option refuses the same bad items with the same answer.

#include <algorithm>
#include <limits>

#include "cli_support.hpp"
#include "mpimon/overhead_design/sizes.hpp"

namespace mpimon::cli {

std::string range_text(std::uint64_t min, std::uint64_t max) {
  return max == std::numeric_limits<std::uint64_t>::max()
             ? "at least " + std::to_string(min)
             : "from " + std::to_string(min) + " to " + std::to_string(max);
}

std::vector<std::uint64_t> parse_number_list(const std::string& text, const std::string& option, std::uint64_t min,
                                             std::uint64_t max) {
  std::vector<std::uint64_t> out;
  for (const auto& item : split_list(text, option)) {
    // At most 19 digits: every such number fits in 64 bits, so the range check sees its value.
    const bool digits = item.find_first_not_of("0123456789") == std::string::npos && item.size() <= 19;
    const std::uint64_t value = digits ? std::stoull(item) : 0;
    if (!digits || value < min || value > max) {
      throw po::error("--" + option + ": '" + item + "' is not a whole number " + range_text(min, max) +
                      " (a comma-separated list such as " + std::to_string(std::max<std::uint64_t>(min, 2)) + "," +
                      std::to_string(std::max<std::uint64_t>(min, 2) * 2) + ")");
    }
    out.push_back(value);
  }
  return out;
}

std::vector<std::uint32_t> split_positive_list(const std::string& text, const std::string& option) {
  std::vector<std::uint32_t> out;
  for (auto n : parse_number_list(text, option, 1, std::numeric_limits<std::uint32_t>::max())) {
    out.push_back(static_cast<std::uint32_t>(n));
  }
  return out;
}

void check_sizes(const std::string& text, const std::string& option) {
  if (named_sizes(text)) return;
  parse_number_list(text, option, 0, static_cast<std::uint64_t>(std::numeric_limits<int>::max()));
}

}  // namespace mpimon::cli
