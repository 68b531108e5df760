#include "mpimon/harness/link_probe.hpp"

#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/harness/launch_pairs.hpp"
#include "mpimon/harness/locations.hpp"
#include "mpimon/link_probe/result_line.hpp"

namespace mpimon::harness {

void check_link_probe_settings(const LinkProbeSettings& s) {
  HarnessSettings h;
  h.mca = s.mca;
  check_harness_settings(h);
  if (s.repetitions == 0 || s.size == 0 || s.messages == 0 || s.rounds == 0) {
    throw Error(Error::Kind::usage, "--repetitions, --size, --messages and --rounds take positive numbers");
  }
}

LinkProbeResult probe_link(const LinkProbeSettings& s, const std::string& rankfile) {
  MpiLaunch l(s.launcher, 2);
  if (l.open_mpi()) l.option({"--rankfile", rankfile});
  monitoring_off(l, s.mca);
  user_mca(l, s.mca);
  l.program(own_file("mpimon-link-probe"),
            {"--repetitions", std::to_string(s.repetitions), "--size", std::to_string(s.size), "--messages",
             std::to_string(s.messages), "--rounds", std::to_string(s.rounds)});
  LinkProbeResult result;
  result.command = l.text();
  const LaunchResult r = l.run(s.timeout);
  const std::string failure = failure_status(r, static_cast<int>(s.timeout.count()));
  // The result is rank 0's line.
  if (const auto line = failure.empty() ? find_link_probe_line(r.output, result.command) : std::nullopt) {
    result.latency_seconds = line->latency_seconds;
    result.bytes_per_second = line->bytes_per_second;
    result.hosts = line->hosts;
    return result;
  }
  throw Error(Error::Kind::launch,
              result.command + ": " + (failure.empty() ? "printed no result line:\n" + r.output : failure));
}

}  // namespace mpimon::harness
