#include <cstdio>
#include <filesystem>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/locations.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

int pvars_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "[--all] [--mode 0|1|2] [--launcher CMD]",
              "Lists the MPI_T performance variables of the MPI library in use (by default those of the\n"
              "monitoring components): class, binding, and whether each one can still be used after\n"
              "MPI_Init. Runs mpimon-pvars on one process with pml_monitoring_enable set (default 2)."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string launcher, programs;
    int mode = 2;
    options.add_options()("all", "list every variable, not only the monitoring ones")(
        "mode", po::value(&mode)->default_value(2)->notifier(in_range("mode", 0, 2)),
        "pml_monitoring_enable for the probe")("launcher", po::value(&launcher)->default_value("mpirun"),
                                               "MPI launcher command")(
        "programs", po::value(&programs)->default_value(programs_directory(), "mpimon's validation programs"),
        "directory holding mpimon-pvars");
    po::variables_map vm;
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    MpiLaunch l(launcher, 1);
    l.mca("pml_monitoring_enable", std::to_string(mode));
    l.program((std::filesystem::path(programs) / "mpimon-pvars").string(),
              vm.count("all") ? std::vector<std::string>{"--all"} : std::vector<std::string>{});
    LaunchResult r = l.run(std::chrono::seconds(120));
    std::fputs(r.output.c_str(), stdout);
    if (r.timed_out || r.exit_code != 0) {
      raise_error(Error::Kind::system, l.argv().front(),
                  "the probe failed (exit code " + std::to_string(r.exit_code) + ")");
    }
    return kExitOk;
  });
}

}  // namespace mpimon::cli
