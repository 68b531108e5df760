// mpimon-merge: the same as `mpimon merge`, under the name users type after a monitored run.

#include <string>
#include <vector>

#include "commands.hpp"

int main(int argc, char** argv) {
  return mpimon::cli::merge_command("mpimon-merge", std::vector<std::string>(argv + 1, argv + argc));
}
