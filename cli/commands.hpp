#pragma once
// The mpimon subcommands. Each takes the arguments after its own name and returns an exit code.

#include <string>
#include <vector>

namespace mpimon::cli {

/// `name` is how the command was invoked ("mpimon-merge" or "mpimon merge"), for messages.
int merge_command(const std::string& name, const std::vector<std::string>& args);
int export_command(const std::string& name, const std::vector<std::string>& args);
int show_command(const std::string& name, const std::vector<std::string>& args);
int validate_command(const std::string& name, const std::vector<std::string>& args);

}  // namespace mpimon::cli
