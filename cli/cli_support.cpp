#include "cli_support.hpp"

#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <limits>

#include "mpimon/base/error.hpp"

namespace mpimon::cli {

namespace {

template <typename T>
bool holds(const po::option_description& d) {
  return dynamic_cast<const po::typed_value<T>*>(d.semantic().get()) != nullptr;
}

bool is_unsigned(const po::option_description& d) {
  return holds<unsigned>(d) || holds<unsigned long>(d) || holds<unsigned long long>(d) ||
         holds<std::vector<unsigned>>(d);
}

bool is_signed_integer(const po::option_description& d) {
  return holds<int>(d) || holds<long>(d) || holds<long long>(d) || holds<std::vector<int>>(d);
}

// What an option's value must look like, from its type.
std::string expected_value(const po::option_description& d) {
  if (is_unsigned(d)) return "expected a non-negative integer";
  if (is_signed_integer(d)) return "expected an integer";
  if (holds<double>(d) || holds<float>(d)) return "expected a number";
  return "see --help";
}

// Values no option accepts, refused with the option's name before anything runs: an empty value
// (unless the option's help offers "" itself), and a negative number for a numeric option (Boost
// turns "-1" into a huge unsigned number; no count, timeout, rank, rate or margin of mpimon is
// negative).
void reject_bad_values(const po::parsed_options& parsed) {
  for (const auto& o : parsed.options) {
    if (o.unregistered || o.string_key.empty() || o.position_key >= 0) continue;
    const po::option_description* d = parsed.description->find_nothrow(o.string_key, false);
    if (d == nullptr) continue;
    for (const auto& v : o.value) {
      const std::size_t first = v.find_first_not_of(" \t");
      if (first == std::string::npos && d->description().find("\"\"") == std::string::npos) {
        throw po::error("--" + o.string_key + ": empty value (see --help for what it takes)");
      }
      if (first != std::string::npos && v[first] == '-' && (is_unsigned(*d) || is_signed_integer(*d))) {
        throw po::error("--" + o.string_key + ": '" + v + "' is negative: expected a non-negative integer");
      }
      if (first != std::string::npos && v[first] == '-' && (holds<double>(*d) || holds<float>(*d))) {
        throw po::error("--" + o.string_key + ": '" + v + "' is negative: expected a number >= 0");
      }
    }
  }
}

}  // namespace

bool parse_options(const Command& cmd, const std::vector<std::string>& args, po::options_description& options,
                   const po::positional_options_description& positional, po::variables_map& vm) {
  options.add_options()("help,h", "print this help and exit");
  po::parsed_options parsed = po::command_line_parser(args).options(options).positional(positional).run();
  reject_bad_values(parsed);
  try {
    po::store(parsed, vm);
  } catch (const po::invalid_option_value& e) {
    // Boost says "the argument ('x') for option '--np' is invalid": say what is accepted too.
    const std::string option = e.get_option_name();
    const po::option_description* d = options.find_nothrow(option.substr(option.find_first_not_of('-')), false);
    throw po::error(std::string(e.what()) + ": " + (d ? expected_value(*d) : "see --help"));
  }
  if (vm.count("help")) {
    std::cout << "Usage: " << cmd.name << " " << cmd.synopsis << "\n\n" << cmd.summary << "\n\n" << options << "\n";
    return false;
  }
  try {
    po::notify(vm);
  } catch (const po::required_option& e) {
    // A positional argument is named by its hidden option ("--input"): say what is missing instead.
    const std::string option = e.get_option_name();
    const std::string key = option.substr(option.find_first_not_of('-'));
    for (unsigned i = 0; i < positional.max_total_count() && i < 8; ++i) {
      if (positional.name_for_position(i) == key) {
        throw po::error("missing " + key + " argument: give the file to read (see --help)");
      }
    }
    throw;
  }
  return true;
}

namespace {
int usage_error(const Command& cmd, const char* what) {
  std::cerr << cmd.name << ": error: " << what << "\n"
            << "Usage: " << cmd.name << " " << cmd.synopsis << "\n"
            << "Try '" << cmd.name << " --help' for more information.\n";
  return kExitUsage;
}
}  // namespace

// Every kind of error and its exit code, in one place (docs/cli.md, "Exit codes").
int exit_code_of(Error::Kind kind) {
  switch (kind) {
    case Error::Kind::usage:
      return kExitUsage;
    case Error::Kind::input:
    case Error::Kind::format:
    case Error::Kind::system:
      return kExitFailure;
    case Error::Kind::launch:
      return kExitLaunchesFailed;
  }
  return kExitFailure;
}

int run_command(const Command& cmd, const std::function<int()>& body) {
  try {
    return body();
  } catch (const po::error& e) {
    return usage_error(cmd, e.what());
  } catch (const mpimon::Error& e) {
    const int code = exit_code_of(e.kind());
    if (code == kExitUsage) return usage_error(cmd, e.what());
    std::cerr << cmd.name << ": error: " << e.what() << "\n";
    return code;
  } catch (const std::exception& e) {
    std::cerr << cmd.name << ": error: " << e.what() << "\n";
    return kExitFailure;
  }
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) != 0; }

std::vector<TrafficClass> parse_classes(const std::string& text, const std::string& option) {
  std::vector<TrafficClass> classes;
  for (const auto& item : split_list(text, option.substr(2))) {
    auto c = parse_class(item);
    if (!c)
      throw po::error("unknown class '" + item + "' in " + option + " (external, internal, osc_sent, osc_recv, coll)");
    classes.push_back(*c);
  }
  return classes;
}

Metric parse_metric(const std::string& text) {
  if (text == "bytes") return Metric::bytes;
  if (text == "count") return Metric::count;
  throw po::error("--metric must be bytes or count, not '" + text + "'");
}

}  // namespace mpimon::cli
