#pragma once
// What every mpimon command shares: option parsing conventions, error reporting, exit codes.
//
// Exit codes (docs/cli.md): 0 success, 1 bad input or failed operation, 2 usage error.

#include <boost/program_options.hpp>

#include <functional>
#include <ostream>

#include <string>
#include <vector>
#include "mpimon/base/error.hpp"
#include "mpimon/base/output.hpp"
#include "mpimon/matrices/matrix.hpp"
#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon::cli {

namespace po = boost::program_options;

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
/// Nothing was checked (what is tested is not in this MPI library): CTest's SKIP_RETURN_CODE.
inline constexpr int kExitNothingChecked = 77;

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

/// Comma-separated list to vector ("a,b" -> {"a","b"}), empty items rejected.
/// A comma-separated list of positive integers (--np 2,4): a usage error naming the option and
/// the item otherwise.
std::vector<std::uint32_t> split_positive_list(const std::string& text, const std::string& option);

/// The exit code of each kind of mpimon::Error (usage 2, the others 1), used by run_command.
int exit_code_of(Error::Kind kind);

std::vector<std::string> split_list(const std::string& text, const std::string& option);

/// Whether progress lines should be drawn (stderr is a terminal).
bool stderr_is_terminal();

/// The traffic classes of a --classes style list ("external,internal"); `option` names it in errors.
std::vector<TrafficClass> parse_classes(const std::string& text, const std::string& option = "--classes");
/// --metric: "bytes" or "count".
Metric parse_metric(const std::string& text);

}  // namespace mpimon::cli
