#pragma once
// What every mpimon command shares: option parsing conventions, error reporting, exit codes.
//
// Exit codes: the one table of mpimon/base/exit_codes.hpp (docs/cli.md).

#include <boost/program_options.hpp>

#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>

#include <string>
#include <vector>
#include "mpimon/base/error.hpp"
#include "mpimon/base/exit_codes.hpp"
#include "mpimon/base/option_list.hpp"  // split_list
#include "mpimon/base/output.hpp"
#include "mpimon/matrices/matrix.hpp"
#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon::cli {

namespace po = boost::program_options;

/// Describes one command for --help and for error messages.
struct Command {
  std::string name;      ///< as typed, e.g. "mpimon export treematch"
  std::string synopsis;  ///< usage line after the name
  std::string summary;   ///< one paragraph
};

/// Parses args against `options` (+ positional), handles --help, and returns false when the
/// command should stop (help printed). Throws po::error on bad usage.
bool parse_options(const Command& cmd, const std::vector<std::string>& args, po::options_description& options,
                   const po::positional_options_description& positional, po::variables_map& vm);

/// Runs body, turning every exception into a one-line "NAME: error: ..." message and an exit code.
int run_command(const Command& cmd, const std::function<int()>& body);

// Every number and list an option takes is checked here, when the options are parsed and before
// anything runs: a value that is not a number, negative, zero where it is refused, empty or too
// large is a usage error naming the option and quoting the value.

/// "from 1 to 2", or "at least 1" when `max` is the largest std::uint64_t (no bound of its own).
std::string range_text(std::uint64_t min, std::uint64_t max);

/// A comma-separated list of whole numbers from `min` to `max` (--np 2,4; --sizes 0,8,1024).
std::vector<std::uint64_t> parse_number_list(const std::string& text, const std::string& option, std::uint64_t min,
                                             std::uint64_t max);
/// A comma-separated list of positive process counts (--np 2,4).
std::vector<std::uint32_t> split_positive_list(const std::string& text, const std::string& option);
/// --sizes: paper, quick, or a list of message sizes in bytes (what mpimon-overhead-bench takes).
void check_sizes(const std::string& text, const std::string& option);

/// A notifier for po::value (->notifier(in_range<unsigned>("pairs", 1))): the value must lie from
/// `min` to `max`. A vector option (repeatable) has each of its values checked.
template <typename T>
std::function<void(const T&)> in_range(const std::string& option, T min, T max = std::numeric_limits<T>::max()) {
  return [=](const T& value) {
    if (value < min || value > max) {
      const std::uint64_t bound =
          max == std::numeric_limits<T>::max() ? std::numeric_limits<std::uint64_t>::max() : std::uint64_t(max);
      throw po::error("--" + option + ": '" + std::to_string(value) +
                      "' is out of range: " + range_text(static_cast<std::uint64_t>(min), bound));
    }
  };
}
template <typename T>
std::function<void(const std::vector<T>&)> each_in_range(const std::string& option, T min,
                                                         T max = std::numeric_limits<T>::max()) {
  return [=](const std::vector<T>& values) {
    for (const T& v : values) in_range<T>(option, min, max)(v);
  };
}

/// The exit code of each kind of mpimon::Error (usage 2, the others 1), used by run_command.
int exit_code_of(Error::Kind kind);

/// Whether progress lines should be drawn (stderr is a terminal).
bool stderr_is_terminal();

/// The traffic classes of a --classes style list ("external,internal"); `option` names it in errors.
std::vector<TrafficClass> parse_classes(const std::string& text, const std::string& option = "--classes");
/// --metric: "bytes" or "count".
Metric parse_metric(const std::string& text);

}  // namespace mpimon::cli
